"""The `inbox` command line: one subcommand per part of the product."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from app.cli_errors import USAGE_STATUS, CommandError
from app.commands import (
    database,
    demo,
    logs,
    media,
    sandbox,
    serve,
    service,
    templates,
    tls,
    ui,
    user,
    webhooks,
    worker,
)
from backend.settings import SettingsError

COMMANDS = (demo, serve, worker, sandbox, ui, database, user, webhooks, tls, templates, logs, service, media)


def build_parser() -> argparse.ArgumentParser:
    """The parser for `inbox` and all its subcommands."""
    parser = argparse.ArgumentParser(
        prog="inbox",
        description="Shared inbox for the WhatsApp Business Cloud API.",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="settings file (default: inbox.toml in the data folder)",
    )
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.register(subcommands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run `inbox` and return its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Migration steps are routine; show them only when something is wrong.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    try:
        status: int = args.run(args)
    except SettingsError as error:
        print(f"inbox {args.command}: {error}", file=sys.stderr)
        return USAGE_STATUS
    except CommandError as error:
        print(f"inbox {args.command}: {error}", file=sys.stderr)
        return error.exit_status
    except KeyboardInterrupt:
        return 130
    return status
