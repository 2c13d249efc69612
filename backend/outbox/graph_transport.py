"""A lean HTTP/1.1 keep-alive transport for the Graph send calls, behind httpx's client API.

httpx's default pool spends most of its time on bookkeeping once hundreds of requests are in flight
(measured here: about ten times slower than the socket work). The sender makes one kind of call to
one host, so this transport keeps a simple pool of keep-alive connections per origin and maps every
failure to the httpx exception that says whether the request left: connect errors and timeouts
(never sent, safe to retry) versus read timeouts and dropped connections after writing (outcome
unknown). Given a write interval, it also spaces the moments requests are written, whatever delayed
them on the way (a new connection, a busy loop), so they leave at the pace they were approved at.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections import deque
from dataclasses import dataclass, field

import certifi
import httpx

MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 8 * 1024 * 1024
KEEPALIVE_EXPIRY_SECONDS = 5.0
# Writes may run this far ahead of their spacing: sleeping is not finer than a millisecond or so, and
# without the slack every late wake-up would push all later writes back.
WRITE_TOLERANCE_SECONDS = 0.01


class WritePace:
    """Moments at which writes may go, `interval` apart with `tolerance` of slack (GCRA)."""

    def __init__(self, interval: float, tolerance: float = WRITE_TOLERANCE_SECONDS) -> None:
        self.interval = interval
        self.tolerance = tolerance
        self._next = float("-inf")

    def reserve(self, now: float) -> float:
        """Take the next place; the moment (on the clock of `now`) before which the write must wait."""
        # The place is taken at once, so writers waiting together are spread rather than woken together.
        slot = max(self._next, now)
        self._next = slot + self.interval
        return slot - self.tolerance


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    idle_since: float = field(default_factory=time.monotonic)

    def usable(self) -> bool:
        """Still open and not idle so long that the server may have dropped it."""
        return (
            not self.reader.at_eof()
            and not self.writer.is_closing()
            and time.monotonic() - self.idle_since < KEEPALIVE_EXPIRY_SECONDS
        )

    def close(self) -> None:
        """Close without waiting."""
        self.writer.close()


Origin = tuple[str, str, int]


class KeepAliveTransport(httpx.AsyncBaseTransport):
    """Keep-alive HTTP/1.1 (and HTTPS) for many concurrent requests to a few origins."""

    def __init__(
        self,
        *,
        max_connections: int = 100,
        ssl_context: ssl.SSLContext | None = None,
        write_interval: float | None = None,
    ) -> None:
        self._slots = asyncio.Semaphore(max_connections)
        self._idle: dict[Origin, deque[_Connection]] = {}
        self._ssl_context = ssl_context
        self._pace = WritePace(write_interval) if write_interval else None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send one request on a pooled connection and read the whole answer."""
        timeouts = request.extensions.get("timeout", {})
        connect_timeout = timeouts.get("connect")
        read_timeout = timeouts.get("read")
        write_timeout = timeouts.get("write")
        pool_timeout = timeouts.get("pool")
        origin: Origin = (
            request.url.scheme,
            request.url.host,
            request.url.port or _default_port(request.url.scheme),
        )
        # asyncio.timeout rather than wait_for: wait_for starts a task per call, which at thousands of
        # calls a second costs more than the socket work.
        if self._slots.locked():
            try:
                async with asyncio.timeout(pool_timeout):
                    await self._slots.acquire()
            except TimeoutError:
                raise httpx.PoolTimeout("no free connection slot", request=request) from None
        else:
            await self._slots.acquire()
        try:
            connection = await self._connection(origin, connect_timeout, request)
            try:
                await self._wait_for_write_turn()
                response = await self._exchange(connection, request, read_timeout, write_timeout)
            except BaseException:
                connection.close()
                raise
            if response.headers.get("connection", "").lower() == "close":
                connection.close()
            else:
                connection.idle_since = time.monotonic()
                self._idle.setdefault(origin, deque()).append(connection)
            return response
        finally:
            self._slots.release()

    async def aclose(self) -> None:
        """Close every idle connection."""
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()

    async def _wait_for_write_turn(self) -> None:
        """Wait for this request's place in the write spacing, if there is one."""
        if self._pace is None:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        delay = self._pace.reserve(now) - now
        if delay > 0:
            await asyncio.sleep(delay)

    async def _connection(self, origin: Origin, timeout: float | None, request: httpx.Request) -> _Connection:
        idle = self._idle.get(origin)
        while idle:
            connection = idle.pop()
            if connection.usable():
                return connection
            connection.close()
        scheme, host, port = origin
        context: ssl.SSLContext | None = None
        if scheme == "https":
            context = self._ssl_context or ssl.create_default_context(cafile=certifi.where())
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=context, limit=MAX_HEADER_BYTES
                )
        except TimeoutError:
            raise httpx.ConnectTimeout(f"connecting to {host}:{port} timed out", request=request) from None
        except OSError as error:
            raise httpx.ConnectError(f"cannot connect to {host}:{port}: {error}", request=request) from None
        return _Connection(reader, writer)

    async def _exchange(
        self,
        connection: _Connection,
        request: httpx.Request,
        read_timeout: float | None,
        write_timeout: float | None,
    ) -> httpx.Response:
        body = request.content
        head = [f"{request.method} {request.url.raw_path.decode('ascii')} HTTP/1.1".encode()]
        head.extend(name + b": " + value for name, value in request.headers.raw)
        connection.writer.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        try:
            if connection.writer.transport.get_write_buffer_size():
                async with asyncio.timeout(write_timeout):
                    await connection.writer.drain()
        except TimeoutError:
            raise httpx.WriteTimeout("writing the request timed out", request=request) from None
        except OSError as error:
            raise httpx.WriteError(f"writing the request failed: {error}", request=request) from None
        try:
            async with asyncio.timeout(read_timeout):
                return await self._read_response(connection.reader, request)
        except TimeoutError:
            raise httpx.ReadTimeout("no answer in time", request=request) from None
        except asyncio.IncompleteReadError:
            raise httpx.RemoteProtocolError(
                "the server closed the connection before answering", request=request
            ) from None
        except (asyncio.LimitOverrunError, ValueError) as error:
            raise httpx.RemoteProtocolError(f"malformed answer: {error}", request=request) from None
        except OSError as error:
            raise httpx.ReadError(f"reading the answer failed: {error}", request=request) from None

    async def _read_response(self, reader: asyncio.StreamReader, request: httpx.Request) -> httpx.Response:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head[:-4].split(b"\r\n")
        version, status_text = lines[0].split(b" ", 2)[:2]
        status = int(status_text)
        headers = []
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers.append((name.strip(), value.strip()))
        lookup = {name.lower(): value for name, value in headers}
        if status in (204, 304) or 100 <= status < 200:
            content = b""
        elif b"chunked" in lookup.get(b"transfer-encoding", b"").lower():
            content = await _read_chunked(reader)
        elif b"content-length" in lookup:
            length = int(lookup[b"content-length"])
            if length > MAX_BODY_BYTES:
                raise ValueError("answer too large")
            content = await reader.readexactly(length)
        else:
            content = await reader.read(MAX_BODY_BYTES)
            headers.append((b"connection", b"close"))
        if version == b"HTTP/1.0":
            headers.append((b"connection", b"close"))
        return httpx.Response(status, headers=headers, content=content, request=request)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";")[0].strip(), 16)
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":
                pass
            return b"".join(parts)
        total += size
        if total > MAX_BODY_BYTES:
            raise ValueError("answer too large")
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80
