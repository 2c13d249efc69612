"""The /v1 API for the other desks of the office: TLS only, served by cheroot on the supervisor's socket.

Waitress, which serves loopback, has no TLS. Cheroot's builtin adapter wraps Python's own `ssl`
(OpenSSL), runs on Windows, and takes a socket bound by someone else through its `bind` step.
"""

from __future__ import annotations

import json
import logging
import socket
import ssl
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

from cheroot import errors
from cheroot.ssl.builtin import BuiltinSSLAdapter
from cheroot.wsgi import Server

from app.http_server import RESERVE_THREADS
from app.lan.certificate import LanCertificate
from backend.web.factory import MAX_UPLOAD_BODY_BYTES, InboxApp
from backend.web.long_polls import LONG_POLL_SLOTS

log = logging.getLogger(__name__)

# The only part of the product served on the office network; Meta's webhook path, /metrics and
# /healthz stay on loopback (behind the tunnel or proxy that reaches Meta).
API_PREFIX = "/v1"
# A connection that says nothing is dropped after this long; idle keep-alive connections too.
SOCKET_TIMEOUT_SECONDS = 10
STOP_TIMEOUT_SECONDS = 4

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

_NOT_SERVED = json.dumps(
    {
        "error": {
            "code": "not_found",
            "message": "Only the /v1 API is served on the office network; this path is not.",
        }
    }
).encode()


def api_only(app: WsgiApp) -> WsgiApp:
    """`app` for paths under /v1; every other path answers 404 without reaching it."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = str(environ.get("SCRIPT_NAME", "")) + str(environ.get("PATH_INFO", ""))
        if path == API_PREFIX or path.startswith(API_PREFIX + "/"):
            return app(environ, start_response)
        start_response(
            "404 Not Found",
            [("Content-Type", "application/json"), ("Content-Length", str(len(_NOT_SERVED)))],
        )
        return [_NOT_SERVED]

    return serve


def server_context(certificate: LanCertificate) -> ssl.SSLContext:
    """TLS 1.2 or newer with the kept certificate and key."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(str(certificate.certificate_path), str(certificate.key_path))
    return context


# Without cheroot's stubs mypy sees these as Any, which strict mode refuses to subclass.
class _HandshakeOnFirstRead(BuiltinSSLAdapter):  # type: ignore[misc, unused-ignore]
    """Cheroot's adapter, but the TLS handshake happens on the worker thread that first reads.

    Cheroot wraps each socket on its one accepting thread: a desk that connects and says nothing
    (or a scan of the port) would hold every other desk's connection back for the socket timeout.
    """

    def __init__(self, context: ssl.SSLContext) -> None:
        # The base class loads files it is given; the context made here already holds them.
        self.context = context
        self.certificate = self.private_key = self.certificate_chain = self.ciphers = None

    def wrap(self, sock: socket.socket) -> tuple[ssl.SSLSocket, dict[str, str]]:
        """The socket, to be handshaken by OpenSSL on its first read."""
        try:
            wrapped = self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        except OSError as error:
            # A connection gone before it was wrapped: cheroot drops it and goes on accepting.
            raise errors.FatalSSLAlert(*error.args) from error
        return wrapped, self.get_environ(wrapped)

    def get_environ(self, sock: ssl.SSLSocket) -> dict[str, str]:  # type: ignore[override]
        """What a request learns of its TLS connection (the cipher is not agreed yet when wrapped)."""
        return {"wsgi.url_scheme": "https", "HTTPS": "on"}


class LanServer:
    """Cheroot serving the product's /v1 API over TLS on a socket bound by the supervisor."""

    def __init__(
        self,
        app: InboxApp,
        listener: socket.socket,
        certificate: LanCertificate,
        *,
        threads: int = RESERVE_THREADS,
        long_poll_slots: int = LONG_POLL_SLOTS,
    ) -> None:
        """Serve `app`'s /v1 with `threads` threads for any request and `long_poll_slots` for long-polls."""
        self._app = app
        app.limit_long_polls(long_poll_slots)
        self.certificate = certificate

        class _PreboundServer(Server):  # type: ignore[misc, unused-ignore]
            """Cheroot has no parameter for a bound socket; its `bind` step is where it makes one."""

            def bind(self, family: Any, type: Any, proto: int = 0) -> None:
                """Use the supervisor's socket; answers are sent without waiting for delayed ACKs."""
                listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.socket = listener

            def error_log(self, msg: str = "", level: int = logging.INFO, traceback: bool = False) -> None:
                """Cheroot's complaints go to the log; a connection that never spoke TLS is one quiet line."""
                failure = sys.exc_info()[1]
                if isinstance(failure, ssl.SSLError | errors.FatalSSLAlert | errors.NoSSLError):
                    log.info("dropped a connection on the office network that did not speak TLS: %s", failure)
                    return
                log.log(level, "%s", msg, exc_info=traceback)

        self.host, self.port = str(listener.getsockname()[0]), int(listener.getsockname()[1])
        total = threads + long_poll_slots
        self._server = _PreboundServer(
            (self.host, self.port),
            api_only(app),
            numthreads=total,
            max=total,
            request_queue_size=1024,
            timeout=SOCKET_TIMEOUT_SECONDS,
            shutdown_timeout=STOP_TIMEOUT_SECONDS,
        )
        self._server.ssl_adapter = _HandshakeOnFirstRead(server_context(certificate))
        # Cheroot keeps at most 10 idle keep-alive connections by default; every desk keeps one or two.
        self._server.keep_alive_conn_limit = 1000
        # Large enough for a media upload (POST /v1/media); the app refuses other large bodies itself,
        # from their Content-Length, and reads no more than 3 MB of a chunked one.
        self._server.max_request_body_size = MAX_UPLOAD_BODY_BYTES
        self._thread = threading.Thread(target=self._run, name=f"lan:{self.port}", daemon=True)

    @property
    def url(self) -> str:
        """The base URL desks use."""
        return f"https://{self.host}:{self.port}"

    def start(self) -> LanServer:
        """Start serving; returns once the server accepts."""
        self._server.prepare()
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self._server.serve()
        except OSError:
            log.debug("the LAN listener on port %s stopped", self.port)

    def long_polls_waiting(self) -> int:
        """How many desks' long-polls wait for events now."""
        return self._app.long_polls_waiting()

    def stop(self, timeout: float = STOP_TIMEOUT_SECONDS) -> None:
        """Answer waiting long-polls, let requests in progress finish, then close every connection."""
        self._app.end_long_polls()
        self._server.shutdown_timeout = timeout
        self._server.stop()
        self._thread.join(timeout)
