"""`inbox sandbox`: the local stand-in for Meta's Cloud API."""

from __future__ import annotations

import argparse

from app.commands.common import not_built


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox sandbox`."""
    parser = subcommands.add_parser("sandbox", help="run the local stand-in for the Cloud API")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve the sandbox until stopped."""
    return not_built("sandbox")
