"""`inbox worker`: the sender and the background workers without HTTP, for scaling out on PostgreSQL."""

from __future__ import annotations

import argparse
import logging

from app.commands.common import open_database, parts_for, settings_from
from app.log_files import attach_log_file
from app.processes import WORKER_ROLES, Supervisor, supervise
from app.server_lock import ProcessLock

log = logging.getLogger(__name__)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox worker`."""
    parser = subcommands.add_parser(
        "worker",
        help="run the outbox sender, sweepers and webhook processor without the HTTP server",
        description=(
            "Run the outbox sender and the background workers, each in its own process, restarted "
            "if it crashes; SIGINT or SIGTERM stops them within 10 seconds."
        ),
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the workers until SIGINT or SIGTERM, then stop them within a bound."""
    settings = settings_from(args, log_to_file=True)
    for name in ("whatsapp_token", "whatsapp_phone_number_id"):
        settings.require(name)
    with ProcessLock(settings.data_dir, "inbox worker"):
        database = open_database(settings)
        parts_for(settings, database)
        database.dispose()
        supervisor = Supervisor(settings, WORKER_ROLES, log_handler=attach_log_file(settings.data_dir))
        status = supervise(
            supervisor,
            lambda described: (
                f"inbox worker is running ({', '.join(described.values())}); stop with Ctrl+C or SIGTERM"
            ),
        )
    print("inbox worker stopped", flush=True)
    return status
