"""`inbox templates`: the message templates as Meta has them (with WHATSAPP_BUSINESS_ACCOUNT_ID set)."""

from __future__ import annotations

import argparse

from app.cli_errors import FAILURE_STATUS, CommandError
from app.commands.common import open_database, settings_from
from app.composition import graph_client_factory
from backend.clock import utc_now
from backend.outbox.account_sync import AccountSyncError, GraphAccountClient, sync_templates
from backend.outbox.template_store import stored_catalog


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox templates` and its actions."""
    parser = subcommands.add_parser("templates", help="sync message templates and their status from Meta")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sync = actions.add_parser("sync", help="read every template from Meta now (as the hourly sync does)")
    sync.set_defaults(run=run_sync)


def run_sync(args: argparse.Namespace) -> int:
    """Read every page of the business account's templates and store them; print each with its status."""
    settings = settings_from(args)
    if not settings.whatsapp_business_account_id:
        raise CommandError(
            "WHATSAPP_BUSINESS_ACCOUNT_ID is not set: the templates file is the source of templates"
        )
    settings.require("whatsapp_token")
    database = open_database(settings)
    try:
        with graph_client_factory(settings)() as http:
            try:
                count = sync_templates(database, GraphAccountClient(settings, http), utc_now())
            except AccountSyncError as error:
                raise CommandError(f"templates not synced: {error}", exit_status=FAILURE_STATUS) from None
        with database.reader() as session:
            for template in stored_catalog(session):
                print(f"{template.name} ({template.language}) {template.status} {template.category}")
    finally:
        database.dispose()
    print(f"synced {count} templates from business account {settings.whatsapp_business_account_id}")
    return 0
