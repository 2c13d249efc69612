"""`inbox user`: API users and their tokens."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC

from sqlalchemy.orm import Session

from app.cli_errors import FAILURE_STATUS, CommandError
from app.commands.common import open_database, settings_from
from backend.clock import utc_now
from backend.database.models import User
from backend.users import (
    ROLES,
    UnknownUserError,
    UserError,
    all_users,
    create_user,
    rotate_token,
    set_disabled,
    set_role,
)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox user` and its actions."""
    parser = subcommands.add_parser(
        "user",
        help="manage API users and tokens",
        description=(
            "Manage API users and their tokens. Disabling a user or rotating their token refuses "
            "the old token from the next request on, also on a running `inbox serve`."
        ),
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add a user and print their API token (shown once)")
    add.add_argument("name", help="the user's name, e.g. dana")
    add.add_argument("--role", choices=ROLES, default="agent", help="agent (default) or supervisor")
    add.set_defaults(run=run_add)

    listing = actions.add_parser("list", help="show every user: name, role, enabled or disabled, created")
    listing.set_defaults(run=run_list)

    disable = actions.add_parser("disable", help="refuse a user's token from their next request on")
    disable.add_argument("name", help="the user's name")
    disable.set_defaults(run=run_disable)

    enable = actions.add_parser("enable", help="accept a disabled user's token again")
    enable.add_argument("name", help="the user's name")
    enable.set_defaults(run=run_enable)

    rotate = actions.add_parser(
        "rotate-token", help="give a user a new token (printed once) and refuse the old one"
    )
    rotate.add_argument("name", help="the user's name")
    rotate.set_defaults(run=run_rotate_token)

    invite = actions.add_parser(
        "invite",
        help="give a user a new token and print the invite their desk pastes into its sign-in",
    )
    invite.add_argument("name", help="the user's name")
    invite.set_defaults(run=run_invite)

    role = actions.add_parser("set-role", help="make a user an agent or a supervisor")
    role.add_argument("name", help="the user's name")
    role.add_argument("--role", choices=ROLES, required=True, help="agent or supervisor")
    role.set_defaults(run=run_set_role)


@contextmanager
def _users_transaction(args: argparse.Namespace, *, write: bool = True) -> Iterator[Session]:
    """A transaction on the configured database; user errors end the command with one line."""
    database = open_database(settings_from(args, log_to_file=True))
    try:
        with database.transaction() if write else database.reader() as session:
            yield session
    except UnknownUserError as error:
        hint = "`inbox user list` shows who there is"
        raise CommandError(f"{error} ({hint})", exit_status=FAILURE_STATUS) from None
    except UserError as error:
        raise CommandError(str(error)) from None
    finally:
        database.dispose()


def run_add(args: argparse.Namespace) -> int:
    """Create the user; the token is the last line of output, alone."""
    with _users_transaction(args) as session:
        token = create_user(session, args.name, args.role, utc_now())
    print(f"Added {args.role} {args.name!r}. Their API token (store it now, it is not shown again):")
    print(token)
    return 0


def run_list(args: argparse.Namespace) -> int:
    """Print every user as a table."""
    with _users_transaction(args, write=False) as session:
        rows = [_row(user) for user in all_users(session)]
    if not rows:
        print("No users yet; add one with `inbox user add NAME`.")
        return 0
    print(format_table(("NAME", "ROLE", "STATUS", "CREATED"), rows))
    return 0


def _row(user: User) -> tuple[str, str, str, str]:
    created = user.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (user.name, user.role, "disabled" if user.disabled else "enabled", created)


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, two spaces apart."""
    widths = [max(len(row[column]) for row in (header, *rows)) for column in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in (header, *rows)
    ]
    return "\n".join(line.rstrip() for line in lines)


def _change(args: argparse.Namespace, change: Callable[[Session], User]) -> User:
    with _users_transaction(args) as session:
        return change(session)


def run_disable(args: argparse.Namespace) -> int:
    """Disable the user: their token is refused from the next request on."""
    user = _change(args, lambda session: set_disabled(session, args.name, True))
    print(f"Disabled {user.role} {user.name!r}: their token is refused from their next request on.")
    return 0


def run_enable(args: argparse.Namespace) -> int:
    """Enable the user again with the token they had."""
    user = _change(args, lambda session: set_disabled(session, args.name, False))
    print(f"Enabled {user.role} {user.name!r}: their token is accepted again.")
    return 0


def _replace_token(args: argparse.Namespace) -> tuple[str, str]:
    """Give the user a new token and say that the old one is refused; their name and the token."""
    with _users_transaction(args) as session:
        user, token = rotate_token(session, args.name)
        name, disabled = user.name, user.disabled
    print(f"The old token of {name!r} is refused from now on.")
    if disabled:
        print(f"{name!r} is still disabled; `inbox user enable {name}` lets the new token in.")
    return name, token


def run_rotate_token(args: argparse.Namespace) -> int:
    """Replace the user's token; the new one is the last line of output, alone."""
    _name, token = _replace_token(args)
    print("Their new API token (store it now, it is not shown again):")
    print(token)
    return 0


def run_invite(args: argparse.Namespace) -> int:
    """Replace the user's token and print the invite for their desk, alone on the last line."""
    from app.lan.certificate import ensure_certificate
    from app.lan.invite import invite_url, lan_host_for_invites

    settings = settings_from(args)
    host = lan_host_for_invites(settings)
    certificate = ensure_certificate(settings.data_dir, host)
    name, token = _replace_token(args)
    print(
        f"On {name}'s PC, paste this invite into the inbox's sign-in (it holds their token: give it to "
        "them alone, and it is not shown again):"
    )
    print(invite_url(host, settings.lan_port, certificate.fingerprint, token))
    return 0


def run_set_role(args: argparse.Namespace) -> int:
    """Make the user an agent or a supervisor."""
    user = _change(args, lambda session: set_role(session, args.name, args.role))
    print(f"{user.name!r} is now {'a supervisor' if user.role == 'supervisor' else 'an agent'}.")
    return 0
