"""`inbox webhooks`: maintenance of stored webhook bodies."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from app.cli_errors import CommandError
from app.commands.common import open_database, parts_for, settings_from
from backend.webhooks.compliance import Compliance
from backend.webhooks.processor import replay_since


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox webhooks` and its actions."""
    parser = subcommands.add_parser("webhooks", help="replay stored webhook bodies")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    replay = actions.add_parser("replay", help="process stored bodies again (idempotent)")
    replay.add_argument("--since", metavar="TIME", required=True, help="ISO 8601 time")
    replay.set_defaults(run=run_replay)


def parse_since(text: str) -> datetime:
    """An ISO 8601 time (a date alone means its midnight); UTC when it names no zone."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise CommandError(f"--since {text!r} is not an ISO 8601 time such as 2026-11-29T09:00Z") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def run_replay(args: argparse.Namespace) -> int:
    """Re-run processing over stored bodies received since a time; events already applied are skipped."""
    since = parse_since(args.since)
    settings = settings_from(args, log_to_file=True)
    database = open_database(settings)
    try:
        parts = parts_for(settings, database)
        result = replay_since(
            parts.database,
            since,
            phone_number_id=settings.whatsapp_phone_number_id,
            clock=parts.clock,
            on_window_opened=parts.hooks.on_window_opened,
            compliance=Compliance(parts.settings, parts.templates),
        )
    finally:
        database.dispose()
    print(
        f"replayed {result.deliveries} stored bodies since {since.isoformat()}: {result.events} events, "
        f"{result.applied} newly applied, {result.duplicates} already applied, "
        f"{result.parse_failures} unreadable"
    )
    return 0
