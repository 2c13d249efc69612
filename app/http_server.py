"""Waitress, the production WSGI server, run on a thread so commands and tests can stop it."""

from __future__ import annotations

import copy
import ipaddress
import logging
import socket
import threading
import time
from typing import Any

from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import create_server

from backend.web.factory import MAX_UPLOAD_BODY_BYTES, MAX_WEBHOOK_BYTES, UPLOAD_PATH, InboxApp
from backend.web.long_polls import LONG_POLL_SLOTS

log = logging.getLogger(__name__)
# Under a burst waitress logs "Task queue depth is N" for every queued request; a queue that
# drains in milliseconds is normal for webhook bursts and would flood the log.
logging.getLogger("waitress.queue").setLevel(logging.ERROR)

# Threads for everything but waiting long-polls: webhooks, /healthz and the rest of the API.
RESERVE_THREADS = 16
# Listen backlog large enough for bursts of concurrent webhooks, and for the connections that
# arrive while the HTTP process of `inbox serve` restarts on a socket its supervisor keeps open.
LISTEN_BACKLOG = 1024


class _UploadAwareParser(HTTPRequestParser):  # type: ignore[misc]
    """Waitress's parser, allowing the media upload route a body as large as the largest file Meta takes.

    Every other route keeps the webhook's 3 MB, refused from the head (or, chunked, near the limit).
    """

    def parse_header(self, header_plus: bytes) -> None:
        """Parse the head, then widen the body limit for a media upload alone."""
        super().parse_header(header_plus)
        if self.command == "POST" and self.path == UPLOAD_PATH:
            adjustments: Any = copy.copy(self.adj)  # type: ignore[has-type]
            adjustments.max_request_body_size = MAX_UPLOAD_BODY_BYTES
            self.adj = adjustments


class _UploadAwareChannel(HTTPChannel):  # type: ignore[misc]
    """A channel whose requests are parsed by _UploadAwareParser."""

    parser_class = _UploadAwareParser


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


class HttpServer:
    """Waitress serving one WSGI app on a background thread."""

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
        `host` and `port` are ignored and the server accepts on that socket.
        """
        self._app = app
        if isinstance(app, InboxApp):
            app.limit_long_polls(long_poll_slots)
        where: dict[str, Any] = (
            {"sockets": [listener]} if listener is not None else {"host": host, "port": port}
        )
        self._server = create_server(
            app,
            **where,
            threads=threads + long_poll_slots,
            ident="inbox",
            backlog=LISTEN_BACKLOG,
            connection_limit=1000,
            clear_untrusted_proxy_headers=True,
            # Refuse oversized bodies from the request head (413) instead of buffering up to
            # waitress's default of 1 GB before the app can check its own limits.
            max_request_body_size=MAX_WEBHOOK_BYTES,
        )
        for server in getattr(self._server, "effective_listen", [self._server]):
            server.channel_class = _UploadAwareChannel
        self.host = host if listener is None else str(listener.getsockname()[0])
        self.port: int = self._server.effective_port
        self._listener_closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"http:{self.port}", daemon=True)

    @property
    def url(self) -> str:
        """The base URL clients use."""
        return f"http://{self.host}:{self.port}"

    def start(self) -> HttpServer:
        """Start serving; returns at once."""
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self._server.run()
        except OSError:
            # Closing the listening socket from stop() ends the loop with EBADF; that is a stop.
            log.debug("http server on port %s stopped", self.port)

    def close_listener(self, timeout: float = 1.0) -> None:
        """Stop accepting and close the listening socket now, so another server can bind its port.

        Requests in progress carry on. The socket is closed on the serving loop's own thread, between
        two of its waits, since closing a socket that loop is waiting on would end the loop.
        """

        def close() -> None:
            self._server.accepting = False
            self._server.socket.close()
            self._listener_closed.set()

        self._server.trigger.pull_trigger(close)
        self._listener_closed.wait(timeout)

    def long_polls_waiting(self) -> int:
        """How many long-polls wait for events now (0 for an app other than the product's)."""
        return self._app.long_polls_waiting() if isinstance(self._app, InboxApp) else 0

    def _wait_for_answers_sent(self, deadline: float) -> None:
        """Give the serving loop until `deadline` to send what finished requests have written."""
        while time.monotonic() < deadline and any(
            getattr(channel, "total_outbufs_len", 0) for channel in list(self._server._map.values())
        ):
            time.sleep(0.01)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop accepting connections, let requests in progress finish, then close every connection."""
        deadline = time.monotonic() + timeout
        # No new connection while the rest winds down. The serving loop reads this flag before each
        # wait: once it has run a thunk pulled now, it will accept nothing more, so every connection
        # it ever accepted is in its map when that map is closed below.
        self._server.accepting = False
        past_last_accept = threading.Event()
        self._server.trigger.pull_trigger(past_last_accept.set)
        past_last_accept.wait(min(1.0, max(deadline - time.monotonic(), 0.0)))
        if isinstance(self._app, InboxApp):
            self._app.end_long_polls()
        # Worker threads answer through the server's trigger; closing it under a thread still
        # answering fails that answer (EBADF), so the threads end before anything else is closed.
        remaining = max(deadline - time.monotonic(), 0.0)
        self._server.task_dispatcher.shutdown(cancel_pending=True, timeout=remaining)
        self._wait_for_answers_sent(deadline)
        self._server.close()
        wasyncore.close_all(self._server._map)
        self._thread.join(max(deadline - time.monotonic(), 0.1))
        # Anything the loop took in while it wound down is closed too, never left to the collector.
        wasyncore.close_all(self._server._map)
