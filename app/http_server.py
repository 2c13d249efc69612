"""Waitress, the production WSGI server, run on a thread so commands and tests can stop it."""

from __future__ import annotations

import ipaddress
import logging
import threading
import time
from typing import Any

from waitress import wasyncore
from waitress.server import create_server

from backend.web.factory import MAX_WEBHOOK_BYTES, InboxApp
from backend.web.long_polls import LONG_POLL_SLOTS

log = logging.getLogger(__name__)
# Under a burst waitress logs "Task queue depth is N" for every queued request; a queue that
# drains in milliseconds is normal for webhook bursts and would flood the log.
logging.getLogger("waitress.queue").setLevel(logging.ERROR)

# Threads for everything but waiting long-polls: webhooks, /healthz and the rest of the API.
RESERVE_THREADS = 16


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
        host: str,
        port: int,
        *,
        threads: int = RESERVE_THREADS,
        long_poll_slots: int = LONG_POLL_SLOTS,
    ) -> None:
        """Serve `app` with `threads` threads for any request and `long_poll_slots` more for long-polls.

        The product's app is told to let no more than `long_poll_slots` long-polls wait at once, so
        however many desks wait on GET /v1/events, `threads` threads stay free for everything else.
        """
        self._app = app
        if isinstance(app, InboxApp):
            app.limit_long_polls(long_poll_slots)
        self._server = create_server(
            app,
            host=host,
            port=port,
            threads=threads + long_poll_slots,
            ident="inbox",
            # Listen backlog large enough for bursts of concurrent webhooks.
            backlog=1024,
            connection_limit=1000,
            clear_untrusted_proxy_headers=True,
            # Refuse oversized bodies from the request head (413) instead of buffering up to
            # waitress's default of 1 GB before the app can check its own limits.
            max_request_body_size=MAX_WEBHOOK_BYTES,
        )
        self.host = host
        self.port: int = self._server.effective_port
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
        # No new connection while the rest winds down (the serving loop reads this flag).
        self._server.accepting = False
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
