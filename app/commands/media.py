"""`inbox media`: customers' files that could not be downloaded, tried again."""

from __future__ import annotations

import argparse

from app.cli_errors import CommandError
from app.commands.common import open_database, parts_for, settings_from
from backend.media.records import retry_media


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox media` and its actions."""
    parser = subcommands.add_parser("media", help="customers' photos, voice notes and documents")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    retry = actions.add_parser("retry", help="download failed media again (all, or the ids given)")
    retry.add_argument(
        "media_ids", metavar="MEDIA_ID", nargs="*", help="media ids (default: every failed one)"
    )
    retry.set_defaults(run=run_retry)


def run_retry(args: argparse.Namespace) -> int:
    """Put failed media back in the fetcher's queue; a running `inbox serve` fetches it within a second."""
    settings = settings_from(args)
    database = open_database(settings)
    wanted: list[str] | None = list(args.media_ids) or None
    try:
        parts = parts_for(settings, database)
        with parts.database.transaction() as session:
            chosen = retry_media(session, parts.clock(), wanted)
    finally:
        database.dispose()
    if wanted is not None:
        missing = sorted(set(wanted) - set(chosen))
        if missing:
            raise CommandError(
                f"not failed media (unknown, pending or already stored): {', '.join(missing)}", exit_status=1
            )
    print(f"{len(chosen)} media to download again")
    return 0
