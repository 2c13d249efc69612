"""`inbox worker`: a process that only sends and processes, for scaling out on PostgreSQL."""

from __future__ import annotations

import argparse
import logging

from app.commands.common import open_database, settings_from
from app.commands.serve import wait_for_signal
from app.service import Service, build_workers

log = logging.getLogger(__name__)

# SIGTERM must end the process within this bound, with nothing left in `sending`.
STOP_TIMEOUT_SECONDS = 9.0


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox worker`."""
    parser = subcommands.add_parser(
        "worker", help="run the outbox sender, sweepers and webhook processor without the HTTP server"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the workers until SIGINT or SIGTERM, then stop them within a bound."""
    settings = settings_from(args)
    for name in ("whatsapp_token", "whatsapp_phone_number_id"):
        settings.require(name)
    database = open_database(settings)
    workers = build_workers(settings, database)
    service = Service(settings=settings, database=database, web_app=None, workers=workers)  # type: ignore[arg-type]
    service.start_workers()
    names = ", ".join(worker.name for worker in workers)
    log.info("worker running: %s", names)
    print(f"inbox worker is running ({names}); stop with Ctrl+C or SIGTERM", flush=True)
    wait_for_signal(service.stop_event)
    service.stop(timeout=STOP_TIMEOUT_SECONDS)
    print("inbox worker stopped", flush=True)
    return 0
