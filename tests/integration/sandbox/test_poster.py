"""The lean webhook client reads every answer framing and reuses connections only when it may."""

from __future__ import annotations

import asyncio

import pytest

from backend.sandbox.poster import PostError, RawPoster, Target

pytestmark = pytest.mark.timeout(20)

ANSWERS = {
    "length": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    "chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
    "close": b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
    "http10": b"HTTP/1.0 404 Not Found\r\n\r\nnot here",
}


async def _serve(answer: bytes, connections: list[int]) -> asyncio.Server:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(
                    next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))[
                        15:
                    ]
                )
                await reader.readexactly(length)
                writer.write(answer)
                await writer.drain()
                if b"Connection: close" in answer or answer.startswith(b"HTTP/1.0"):
                    break
        except asyncio.IncompleteReadError:
            pass
        writer.close()
        await writer.wait_closed()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


@pytest.mark.parametrize(
    ("name", "status", "connections"),
    [("length", 200, 1), ("chunked", 200, 1), ("close", 503, 3), ("http10", 404, 3)],
)
def test_answers_are_read_and_connections_reused_only_with_keep_alive(
    name: str, status: int, connections: int
) -> None:
    async def scenario() -> tuple[list[int], list[int]]:
        opened: list[int] = []
        server = await _serve(ANSWERS[name], opened)
        port = server.sockets[0].getsockname()[1]
        target = Target.of(f"http://127.0.0.1:{port}/webhooks/whatsapp?x=1")
        assert target is not None and target.path == "/webhooks/whatsapp?x=1"
        poster = RawPoster(target, timeout=5)
        statuses = [await poster.post(b"{}", {"Content-Type": "application/json"}) for _ in range(3)]
        await poster.close()
        server.close()
        await server.wait_closed()
        await asyncio.sleep(0.05)  # let both ends finish closing before the loop goes away
        return statuses, opened

    statuses, opened = asyncio.run(scenario())
    assert statuses == [status] * 3
    assert len(opened) == connections


def test_a_refused_connection_is_a_post_error() -> None:
    async def scenario() -> None:
        target = Target.of("http://127.0.0.1:9/")
        assert target is not None
        with pytest.raises(PostError):
            await RawPoster(target, timeout=2).post(b"{}", {})

    asyncio.run(scenario())


def test_only_plain_http_urls_are_taken() -> None:
    assert Target.of("https://example.invalid/hook") is None
    assert Target.of("http://localhost:8080/hook") == Target("localhost", 8080, "/hook", "localhost:8080")
