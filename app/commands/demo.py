"""`inbox demo`: the product on the embedded database, with a sandbox standing in for Meta."""

from __future__ import annotations

import argparse
import secrets
from dataclasses import replace

from app.commands.common import open_database, settings_from
from app.commands.serve import wait_for_signal
from app.http_server import HttpServer
from app.service import build_service
from backend.clock import utc_now
from backend.users import create_user


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox demo`."""
    parser = subcommands.add_parser("demo", help="run the whole product locally on the embedded database")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Start the backend on a free port with a demo supervisor, until Ctrl+C."""
    settings = settings_from(args)
    settings = replace(
        settings,
        whatsapp_app_secret=settings.whatsapp_app_secret or secrets.token_hex(16),
        whatsapp_verify_token=settings.whatsapp_verify_token or secrets.token_hex(8),
        whatsapp_token=settings.whatsapp_token or secrets.token_hex(16),
        whatsapp_phone_number_id=settings.whatsapp_phone_number_id or "100000000000001",
    )
    database = open_database(settings)
    with database.transaction() as session:
        token = create_user(session, f"demo-{secrets.token_hex(3)}", "supervisor", utc_now())
    service = build_service(settings, database)
    server = HttpServer(service.web_app, "127.0.0.1", 0).start()
    service.start_workers()
    print("The desktop client and the sandbox are not built yet: running the backend alone.")
    print(f"Backend: {server.url}   (try {server.url}/healthz)")
    print(f"Database: {settings.database_url}")
    print(f"Supervisor token: {token}")
    print("Ctrl+C to stop.", flush=True)
    wait_for_signal(service.stop_event)
    server.stop()
    service.stop()
    return 0
