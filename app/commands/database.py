"""`inbox db`: database schema commands."""

from __future__ import annotations

import argparse

from app.commands.common import open_database, settings_from
from backend.database.migrate import current_revision


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox db` and its actions."""
    parser = subcommands.add_parser("db", help="manage the database schema")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    upgrade = actions.add_parser("upgrade", help="bring the schema to the newest version")
    upgrade.set_defaults(run=run_upgrade)
    current = actions.add_parser("current", help="print the schema version")
    current.set_defaults(run=run_current)


def run_upgrade(args: argparse.Namespace) -> int:
    """Migrate the configured database to the newest schema."""
    settings = settings_from(args)
    database = open_database(settings)
    print(f"database at {current_revision(database)}: {_safe_url(settings.database_url)}")
    database.dispose()
    return 0


def run_current(args: argparse.Namespace) -> int:
    """Print the schema version of the configured database."""
    database = open_database(settings_from(args), upgrade=False)
    print(current_revision(database) or "empty")
    database.dispose()
    return 0


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
