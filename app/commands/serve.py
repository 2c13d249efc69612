"""`inbox serve`: the whole backend in one process."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from types import FrameType

from app.cli_errors import CommandError
from app.commands.common import open_database, settings_from
from app.http_server import HttpServer, is_loopback
from app.service import build_service

log = logging.getLogger(__name__)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox serve`."""
    parser = subcommands.add_parser(
        "serve",
        help="run the HTTP API, webhook receiver, outbox sender and workers",
    )
    parser.add_argument("--host", help="address to bind (default INBOX_HOST or 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to bind (default INBOX_PORT or 8080)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT or SIGTERM."""
    settings = settings_from(args)
    host = args.host or settings.host
    port = settings.port if args.port is None else args.port
    if not is_loopback(host) and not settings.allow_remote_bind:
        raise CommandError(
            f"refusing to listen on {host}: only this machine may connect by default. "
            "Set INBOX_ALLOW_REMOTE_BIND=true to allow it, and put TLS in front."
        )
    for name in (
        "whatsapp_app_secret",
        "whatsapp_verify_token",
        "whatsapp_token",
        "whatsapp_phone_number_id",
    ):
        settings.require(name)
    database = open_database(settings)
    service = build_service(settings, database)
    try:
        server = HttpServer(service.web_app, host, port).start()
    except OSError as error:
        raise CommandError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    service.start_workers()
    log.info("serving on %s", server.url)
    print(f"inbox is serving on {server.url} (Ctrl+C to stop)", flush=True)
    wait_for_signal(service.stop_event)
    server.stop()
    service.stop()
    return 0


def wait_for_signal(stop: threading.Event) -> None:
    """Block until SIGINT/SIGTERM (or until `stop` is set elsewhere)."""

    def _handle(signum: int, _frame: FrameType | None) -> None:
        log.info("received signal %s, stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, _handle)
    signal.signal(signal.SIGINT, _handle)
    while not stop.wait(0.5):
        pass
