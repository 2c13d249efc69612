"""`inbox ui`: the desktop client."""

from __future__ import annotations

import argparse

from app.commands.common import not_built


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox ui`."""
    parser = subcommands.add_parser("ui", help="open the desktop inbox")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Open the desktop client."""
    return not_built("ui")
