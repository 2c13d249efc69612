"""A small keep-alive HTTP/1.1 POST client for plain-http webhook URLs: a tenth of httpx's cost per call."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from urllib.parse import urlsplit


class PostError(Exception):
    """The POST did not get an answer (connection refused, closed, timed out, or not HTTP)."""


@dataclass(frozen=True)
class Target:
    """Where a plain-http URL points."""

    host: str
    port: int
    path: str
    host_header: str

    @staticmethod
    def of(url: str) -> Target | None:
        """The target of an http:// URL, or None for anything this client does not speak."""
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            return None
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return Target(parts.hostname, parts.port or 80, path, parts.netloc)


_Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class RawPoster:
    """POSTs to one target over a pool of reused connections."""

    def __init__(self, target: Target, timeout: float) -> None:
        self.target = target
        self.timeout = timeout
        self._idle: list[_Connection] = []

    async def post(self, body: bytes, headers: dict[str, str]) -> int:
        """Send one POST and return the answer's status code, or raise PostError."""
        try:
            return await asyncio.wait_for(self._post(body, headers), self.timeout)
        except (
            OSError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            ValueError,
            TimeoutError,
        ) as error:
            raise PostError(f"{type(error).__name__}: {error}") from None

    async def _post(self, body: bytes, headers: dict[str, str]) -> int:
        target = self.target
        lines = [
            f"POST {target.path} HTTP/1.1",
            f"Host: {target.host_header}",
            f"Content-Length: {len(body)}",
        ]
        lines.extend(f"{name}: {value}" for name, value in headers.items())
        request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
        reused = bool(self._idle)
        reader, writer = self._idle.pop() if reused else await self._connect()
        try:
            writer.write(request)
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                if not reused:
                    raise
                # The server closed an idle connection: try once more on a fresh one.
                writer.close()
                reader, writer = await self._connect()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
            status_line, _, fields = head.partition(b"\r\n")
            status = int(status_line.split(b" ", 2)[1])
            keep = await self._skip_body(reader, fields, status_line)
        except BaseException:
            writer.close()
            raise
        if keep:
            self._idle.append((reader, writer))
        else:
            writer.close()
        return status

    async def _connect(self) -> _Connection:
        return await asyncio.open_connection(self.target.host, self.target.port)

    @staticmethod
    async def _skip_body(reader: asyncio.StreamReader, head: bytes, status_line: bytes) -> bool:
        """Read past the answer's body; whether the connection may be reused."""
        length: int | None = None
        chunked = False
        keep = status_line.startswith(b"HTTP/1.1")
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
            elif name == b"connection":
                keep = value.strip().lower() == b"keep-alive" or (keep and value.strip().lower() != b"close")
        if chunked:
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16)
                await reader.readexactly(size + 2)
                if size == 0:
                    return keep
        if length is None:
            # No length: the body runs to the end of the connection.
            await reader.read()
            return False
        if length:
            await reader.readexactly(length)
        return keep

    def abandon(self) -> None:
        """Close idle connections without waiting (the URL changed)."""
        while self._idle:
            self._idle.pop()[1].close()

    async def close(self) -> None:
        """Close every idle connection."""
        while self._idle:
            _reader, writer = self._idle.pop()
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
