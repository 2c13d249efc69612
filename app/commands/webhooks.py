"""`inbox webhooks`: maintenance of stored webhook bodies."""

from __future__ import annotations

import argparse

from app.commands.common import not_built


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox webhooks` and its actions."""
    parser = subcommands.add_parser("webhooks", help="replay stored webhook bodies")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    replay = actions.add_parser("replay", help="process stored bodies again (idempotent)")
    replay.add_argument("--since", metavar="TIME", required=True, help="ISO 8601 time")
    replay.set_defaults(run=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    """Re-run processing over stored bodies received since a time."""
    return not_built("webhooks replay")
