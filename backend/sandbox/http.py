"""A lean asyncio HTTP/1.1 server (keep-alive, pipelining, Content-Length and chunked bodies)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final, cast
from urllib.parse import parse_qsl

log = logging.getLogger(__name__)

MAX_HEAD_BYTES: Final = 64 * 1024
# Media uploads reach 100 MB, as Meta allows for a document.
MAX_BODY_BYTES: Final = 110 * 1024 * 1024

REASONS: Final = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    411: "Length Required",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


@dataclass(slots=True)
class Request:
    """One parsed HTTP request."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes
    peer_host: str

    @property
    def path(self) -> str:
        """The target without its query string."""
        return self.target.split("?", 1)[0]

    @property
    def query(self) -> dict[str, str]:
        """The query string as a dict (percent-decoded; the last value of a repeated name wins)."""
        if "?" not in self.target:
            return {}
        return dict(parse_qsl(self.target.split("?", 1)[1], keep_blank_values=True))


@dataclass(slots=True)
class Response:
    """An HTTP response; `drop` closes the connection without answering."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json; charset=UTF-8"
    headers: list[tuple[str, str]] = field(default_factory=list)
    drop: bool = False

    def encode(self, keep_alive: bool) -> bytes:
        """The bytes on the wire."""
        head = [
            f"HTTP/1.1 {self.status} {REASONS.get(self.status, 'Unknown')}",
            f"Content-Type: {self.content_type}",
            f"Content-Length: {len(self.body)}",
        ]
        head.extend(f"{name}: {value}" for name, value in self.headers)
        if not keep_alive:
            head.append("Connection: close")
        return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + self.body


# A handler answers at once (a Response) or later (an awaitable of one), so the fast path
# costs no task creation.
Handler = Callable[[Request], "Response | Awaitable[Response]"]


class _BadRequestError(Exception):
    """The bytes on the connection are not HTTP we can parse."""


class HttpProtocol(asyncio.Protocol):
    """One connection: parses requests in order and writes their answers in the same order."""

    def __init__(self, handler: Handler, connections: set[HttpProtocol]) -> None:
        self._handler = handler
        self._connections = connections
        self._buffer = bytearray()
        self._transport: asyncio.Transport | None = None
        self._peer_host = ""
        self._busy: asyncio.Task[None] | None = None
        self._closing = False
        self._paused_reading = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Remember the transport and the peer."""
        # uvloop's transports are not asyncio.Transport subclasses but have the same methods.
        self._transport = cast(asyncio.Transport, transport)
        peer = self._transport.get_extra_info("peername")
        self._peer_host = str(peer[0]) if peer else ""
        self._connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection; a pending slow answer is abandoned."""
        self._connections.discard(self)
        self._closing = True
        if self._busy is not None and not self._busy.done():
            self._busy.cancel()
        self._transport = None

    def data_received(self, data: bytes) -> None:
        """Buffer bytes and answer every complete request unless an earlier one is pending."""
        self._buffer.extend(data)
        if self._busy is None:
            self._process()

    def close(self) -> None:
        """Close the connection now."""
        if self._transport is not None:
            self._transport.abort()

    def _process(self) -> None:
        while not self._closing and self._transport is not None:
            try:
                parsed = self._parse_one()
            except _BadRequestError as error:
                self._write(Response(400, str(error).encode(), "text/plain"), keep_alive=False)
                return
            if parsed is None:
                if len(self._buffer) > MAX_HEAD_BYTES + MAX_BODY_BYTES:
                    self.close()
                return
            request, keep_alive = parsed
            try:
                outcome = self._handler(request)
            except Exception:
                log.exception("sandbox handler failed")
                outcome = Response(500, b'{"error":{"message":"internal error"}}')
            if isinstance(outcome, Response):
                self._write(outcome, keep_alive)
                continue
            self._busy = asyncio.ensure_future(self._finish(outcome, keep_alive))
            return

    async def _finish(self, pending: Awaitable[Response], keep_alive: bool) -> None:
        try:
            response = await pending
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("sandbox handler failed")
            response = Response(500, b'{"error":{"message":"internal error"}}')
        self._busy = None
        self._write(response, keep_alive)
        if self._buffer:
            self._process()

    def _write(self, response: Response, keep_alive: bool) -> None:
        if self._transport is None:
            return
        if response.drop:
            self._closing = True
            self._transport.abort()
            return
        self._transport.write(response.encode(keep_alive))
        if not keep_alive:
            self._closing = True
            self._transport.close()

    def _parse_one(self) -> tuple[Request, bool] | None:
        buffer = self._buffer
        end = buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(buffer) > MAX_HEAD_BYTES:
                raise _BadRequestError("request head too large")
            return None
        lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
        try:
            method, target, version = lines[0].split(" ", 2)
        except ValueError:
            raise _BadRequestError("malformed request line") from None
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        start = end + 4
        if "chunked" in headers.get("transfer-encoding", "").lower():
            decoded = _decode_chunked(buffer, start)
            if decoded is None:
                return None
            body, consumed = decoded
        else:
            try:
                length = int(headers.get("content-length", "0"))
            except ValueError:
                raise _BadRequestError("bad Content-Length") from None
            if length < 0 or length > MAX_BODY_BYTES:
                raise _BadRequestError("bad Content-Length")
            if len(buffer) < start + length:
                return None
            body = bytes(buffer[start : start + length])
            consumed = start + length
        del buffer[:consumed]
        connection = headers.get("connection", "").lower()
        keep_alive = connection != "close" if version == "HTTP/1.1" else connection == "keep-alive"
        return Request(method, target, headers, body, self._peer_host), keep_alive


def _decode_chunked(buffer: bytearray, start: int) -> tuple[bytes, int] | None:
    """The body of a chunked message starting at `start` and the bytes it took, or None if incomplete."""
    body = bytearray()
    position = start
    while True:
        line_end = buffer.find(b"\r\n", position)
        if line_end < 0:
            return None
        try:
            size = int(bytes(buffer[position:line_end]).split(b";", 1)[0], 16)
        except ValueError:
            raise _BadRequestError("bad chunk size") from None
        position = line_end + 2
        if size == 0:
            trailer_end = buffer.find(b"\r\n\r\n", position - 2)
            if trailer_end < 0:
                return None
            return bytes(body), trailer_end + 4
        if len(buffer) < position + size + 2:
            return None
        body.extend(buffer[position : position + size])
        if len(body) > MAX_BODY_BYTES:
            raise _BadRequestError("body too large")
        position += size + 2


class HttpServer:
    """Serves one handler on an asyncio loop; start and stop from inside that loop."""

    def __init__(self, handler: Handler) -> None:
        self._handler = handler
        self._server: asyncio.Server | None = None
        self._connections: set[HttpProtocol] = set()
        self.port = 0

    async def start(self, host: str, port: int) -> None:
        """Listen on host:port (0 picks a free port)."""
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: HttpProtocol(self._handler, self._connections),
            host,
            port,
            backlog=2048,
            reuse_address=True,
        )
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        """Stop listening and close every open connection."""
        if self._server is not None:
            self._server.close()
        for connection in list(self._connections):
            connection.close()
        if self._server is not None:
            await self._server.wait_closed()
