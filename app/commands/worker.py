"""`inbox worker`: a process that only sends and processes, for scaling out on PostgreSQL."""

from __future__ import annotations

import argparse

from app.commands.common import not_built


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox worker`."""
    parser = subcommands.add_parser(
        "worker", help="run the outbox sender and webhook processor without the HTTP server"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the workers until stopped."""
    return not_built("worker")
