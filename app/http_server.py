"""The production HTTP server: granian's embedded server on a thread, so commands and tests can stop it.

Granian parses HTTP in Rust and runs one asyncio loop here; webhooks are taken on that loop and the
rest of the app runs on a pool of threads (app/asgi_front.py). It always serves a socket bound in
Python (by the caller, such as the supervisor of `inbox serve`, or here), so a restarted HTTP process
keeps the port and a port of 0 is known before the server starts. `bench/http_servers.py` holds the
measurements that chose it over waitress and cheroot.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import threading
import time
from typing import Any

from app.asgi_front import InboxAsgi
from backend.web.factory import InboxApp
from backend.web.long_polls import LONG_POLL_SLOTS

log = logging.getLogger(__name__)

# Threads for everything but waiting long-polls: webhooks, /healthz and the rest of the API.
RESERVE_THREADS = 16
# Listen backlog large enough for bursts of concurrent webhooks, and for the connections that
# arrive while the HTTP process of `inbox serve` restarts on a socket its supervisor keeps open.
LISTEN_BACKLOG = 1024
# A client has this long to send a request's head; a connection that says nothing is then closed.
HEADER_READ_TIMEOUT_MILLISECONDS = 10_000


def bind_listener(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host`:`port` (0 = any free port); raises OSError when it cannot."""
    family, _type, _proto, _name, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    return socket.create_server(address[:2], family=family, backlog=LISTEN_BACKLOG)


def is_loopback(host: str) -> bool:
    """Whether a bind address only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _granian_server(front: InboxAsgi, listener: socket.socket) -> Any:
    """Granian's embedded server for `front`, accepting on a duplicate of `listener`."""
    from granian._granian import SocketHolder
    from granian.constants import HTTPModes, Interfaces
    from granian.http import HTTP1Settings
    from granian.server.embed import Server

    # Granian's stubs lag its code: the holder takes (fd, is a Unix socket, backlog).
    socket_holder: Any = SocketHolder

    class PreboundServer(Server):
        """Granian binds its own socket in this step; it is handed ours instead (a duplicate it may close)."""

        def _init_shared_socket(self) -> None:
            holder = socket_holder(listener.dup().detach(), False, LISTEN_BACKLOG)
            self._shd = holder
            self._sfd = holder.get_fd()
            self._ssp = None

    return PreboundServer(
        front,
        interface=Interfaces.ASGINL,
        http=HTTPModes.http1,
        http1_settings=HTTP1Settings(header_read_timeout=HEADER_READ_TIMEOUT_MILLISECONDS),
        websockets=False,
        backlog=LISTEN_BACKLOG,
        # Its "experimental" banner and per-start lines would reach every command's output.
        log_enabled=False,
    )


class HttpServer:
    """Granian serving one WSGI app (the product's webhooks on its event loop) on a background thread."""

    def __init__(
        self,
        app: Any,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        listener: socket.socket | None = None,
        threads: int = RESERVE_THREADS,
        long_poll_slots: int = LONG_POLL_SLOTS,
    ) -> None:
        """Serve `app` with `threads` threads for any request and `long_poll_slots` more for long-polls.

        The product's app is told to let no more than `long_poll_slots` long-polls wait at once, so
        however many desks wait on GET /v1/events, `threads` threads stay free for everything else.
        With `listener` (a socket bound by someone else, such as the supervisor of `inbox serve`),
        `host` and `port` are ignored and the server accepts on that socket, which stays open.
        """
        self._app = app
        receiver = None
        if isinstance(app, InboxApp):
            app.limit_long_polls(long_poll_slots)
            receiver = app.webhook_receiver
        self._owns_listener = listener is None
        self._listener = listener if listener is not None else bind_listener(host, port)
        # Accepted connections inherit it: an answer's head and body may leave in two writes, and without
        # it the second waits for the client's delayed acknowledgement (about 40 ms on Linux).
        self._listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.host = host if listener is None else str(self._listener.getsockname()[0])
        self.port: int = self._listener.getsockname()[1]
        self._front = InboxAsgi(app, threads=threads + long_poll_slots, receiver=receiver)
        self._server = _granian_server(self._front, self._listener)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = threading.Event()
        self._stopping = threading.Event()
        self._finish_by = 0.0
        self._thread = threading.Thread(target=self._run, name=f"http:{self.port}", daemon=True)

    @property
    def url(self) -> str:
        """The base URL clients use."""
        return f"http://{self.host}:{self.port}"

    def start(self) -> HttpServer:
        """Start serving; returns once the loop runs (connections meanwhile wait in the backlog)."""
        self._thread.start()
        self._started.wait(5.0)
        return self

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._started.set()
        try:
            await self._server.serve()
        except Exception:
            log.exception("the HTTP server on port %s stopped with an error", self.port)
        # A request whose client left may still run on one of the app's threads, and it hands its answer
        # to this loop: the loop runs on until those threads are done, or the stop's time is up.
        finishing = threading.Thread(target=self._front.close, kwargs={"wait": True}, daemon=True)
        finishing.start()
        while finishing.is_alive() and time.monotonic() < self._finish_by:
            await asyncio.sleep(0.01)

    def _interrupt(self, timeout: float) -> None:
        """Tell granian, from any thread, to stop accepting and let its requests finish within `timeout`."""
        if self._stopping.is_set():
            return
        self._finish_by = time.monotonic() + timeout
        self._stopping.set()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._stop_server)
            except RuntimeError:  # the loop closed between the check and the call
                log.debug("http server loop already closed")

    def _stop_server(self) -> None:
        server: Any = self._server  # stop() has no annotations
        server.stop()

    def close_listener(self, timeout: float = 1.0) -> None:
        """Stop accepting and release the port now, so another server can bind it.

        Requests in progress carry on until they are answered.
        """
        self._interrupt(timeout)
        if self._thread.ident is not None:  # started
            self._thread.join(timeout)
        self._listener.close()

    def long_polls_waiting(self) -> int:
        """How many long-polls wait for events now (0 for an app other than the product's)."""
        return self._app.long_polls_waiting() if isinstance(self._app, InboxApp) else 0

    def stop(self, timeout: float = 5.0) -> None:
        """Stop accepting connections, let requests in progress finish, then close every connection."""
        deadline = time.monotonic() + timeout
        if isinstance(self._app, InboxApp):
            self._app.end_long_polls()
        self._interrupt(timeout)
        if self._thread.ident is not None:  # started
            self._thread.join(max(deadline - time.monotonic(), 0.1))
        if self._thread.is_alive():
            log.warning("the HTTP server on port %s did not stop within %.1f s", self.port, timeout)
        self._front.close()
        if self._owns_listener:
            self._listener.close()
