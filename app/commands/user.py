"""`inbox user`: API users and their tokens."""

from __future__ import annotations

import argparse

from app.cli_errors import CommandError
from app.commands.common import open_database, settings_from
from backend.clock import utc_now
from backend.users import ROLES, UserError, create_user


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox user` and its actions."""
    parser = subcommands.add_parser("user", help="manage API users and tokens")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add a user and print their API token (shown once)")
    add.add_argument("name", help="the user's name, e.g. dana")
    add.add_argument("--role", choices=ROLES, default="agent", help="agent (default) or supervisor")
    add.set_defaults(run=run_add)


def run_add(args: argparse.Namespace) -> int:
    """Create the user; the token is the last line of output, alone."""
    database = open_database(settings_from(args))
    try:
        with database.transaction() as session:
            token = create_user(session, args.name, args.role, utc_now())
    except UserError as error:
        raise CommandError(str(error)) from None
    finally:
        database.dispose()
    print(f"Added {args.role} {args.name!r}. Their API token (store it now, it is not shown again):")
    print(token)
    return 0
