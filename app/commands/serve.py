"""`inbox serve`: the HTTP intake and the workers, each role in its own supervised process."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import socket
import threading
from types import FrameType

from app.cli_errors import FAILURE_STATUS, CommandError
from app.commands.common import open_database, parts_for, settings_from
from app.http_server import bind_listener, is_loopback
from app.log_files import attach_log_file
from app.processes import SERVE_ROLES, Role, Supervisor, supervise
from app.server_lock import ProcessLock, holders
from backend.settings import Settings

log = logging.getLogger(__name__)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox serve`."""
    parser = subcommands.add_parser(
        "serve",
        help="run the HTTP API, webhook receiver, outbox sender and workers",
        description=(
            "Run the HTTP API and webhook receiver, the outbox sender and the background workers, "
            "each in its own process, restarted if it crashes; SIGINT or SIGTERM stops them all."
        ),
    )
    parser.add_argument("--host", help="address to bind (default INBOX_HOST or 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to bind (default INBOX_PORT or 8080)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT or SIGTERM."""
    settings = settings_from(args, log_to_file=True)
    host = args.host or settings.host
    port = settings.port if args.port is None else args.port
    if not is_loopback(host) and not settings.allow_remote_bind:
        raise CommandError(
            f"refusing to listen on {host}: only this machine may connect by default. "
            "For the other desks of the office set INBOX_LAN_HOST instead (TLS, /v1 only); otherwise "
            "set INBOX_ALLOW_REMOTE_BIND=true to allow it, and put TLS in front."
        )
    for name in (
        "whatsapp_app_secret",
        "whatsapp_verify_token",
        "whatsapp_token",
        "whatsapp_phone_number_id",
    ):
        settings.require(name)
    restoring = [holder for holder in holders(settings.data_dir) if holder.startswith("inbox db restore")]
    if restoring:
        raise CommandError(
            f"{restoring[0]} is replacing the data; start again once it is done", exit_status=FAILURE_STATUS
        )
    # Registered before the database is touched: a restore refuses while this process lives.
    registration = ProcessLock(settings.data_dir, "inbox serve")
    registration.acquire()
    try:
        return _serve(settings, host, port)
    finally:
        registration.release()


def _serve(settings: Settings, host: str, port: int) -> int:
    """Migrate, bind, and supervise the children until a signal."""
    # Migrate once, here, and check what every process will load before starting any.
    database = open_database(settings)
    parts_for(settings, database)
    database.dispose()
    # Bound here and kept: a restarted HTTP process serves the same sockets.
    listener = _bind(host, port)
    with contextlib.ExitStack() as kept:
        kept.enter_context(listener)
        lan_listener, certificate = None, None
        if settings.lan_host:
            # Loaded only for a LAN listener: a loopback-only start does not pay for them.
            from app.lan.advertisement import LanAdvertisement, service_info
            from app.lan.certificate import ensure_certificate

            certificate = ensure_certificate(settings.data_dir, settings.lan_host)
            lan_listener = kept.enter_context(_bind(settings.lan_host, settings.lan_port))
            advertised = service_info(settings.lan_host, settings.lan_port, certificate.fingerprint)
            kept.callback(LanAdvertisement(advertised).start().close)
        supervisor = Supervisor(
            settings,
            SERVE_ROLES,
            listener=listener,
            lan_listener=lan_listener,
            lan_certificate=certificate,
            log_handler=attach_log_file(settings.data_dir),
        )
        pinned = f"; desks pin the certificate {certificate.fingerprint}" if certificate else ""
        status = supervise(
            supervisor,
            lambda described: f"inbox is serving on {described[Role.HTTP]}{pinned} (Ctrl+C to stop)",
        )
    log.info("stopped")
    return status


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket, or a CommandError that says why there cannot be one."""
    try:
        return bind_listener(host, port)
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise CommandError(f"cannot listen on {host}:{port}: {reason}") from None


def wait_for_signal(stop: threading.Event) -> None:
    """Block until SIGINT/SIGTERM (or until `stop` is set elsewhere)."""

    def _handle(signum: int, _frame: FrameType | None) -> None:
        log.info("received signal %s, stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, _handle)
    signal.signal(signal.SIGINT, _handle)
    while not stop.wait(0.5):
        pass
