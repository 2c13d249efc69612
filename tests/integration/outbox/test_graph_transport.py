"""The keep-alive transport: answers read right, and each failure says whether the request left."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from backend.outbox.graph_transport import KeepAliveTransport, WritePace

Responder = Callable[[bytes], bytes | None]  # request bytes -> raw answer, or None to hang up


class RawServer:
    """A one-thread TCP server answering each request with raw bytes from a responder."""

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.connections = 0
        self.requests = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._server: asyncio.Server | None = None
        self.port = 0

    def start(self) -> RawServer:
        self._thread.start()
        self._ready.wait(5)
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        self._server.close()
        self._loop.run_until_complete(self._server.wait_closed())
        self._loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = await reader.readexactly(length)
                self.requests += 1
                answer = self.responder(head + body)
                if answer is None:
                    return
                writer.write(answer)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            writer.close()


@pytest.fixture
def serve() -> Iterator[Callable[[Responder], RawServer]]:
    servers: list[RawServer] = []

    def start(responder: Responder) -> RawServer:
        server = RawServer(responder).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def _post(port: int, count: int = 1, *, read: float = 2.0) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        timeout = httpx.Timeout(connect=1.0, read=read, write=1.0, pool=1.0)
        async with httpx.AsyncClient(
            transport=KeepAliveTransport(max_connections=4), timeout=timeout
        ) as client:
            return [
                await client.post(f"http://127.0.0.1:{port}/v23.0/1/messages", json={"n": n})
                for n in range(count)
            ]

    return asyncio.run(run())


def test_write_places_are_spaced_at_the_interval_with_slack_for_late_timers() -> None:
    pace = WritePace(0.004, tolerance=0.01)
    # Writers that come together get places one interval apart, the first without waiting.
    assert [round(pace.reserve(100.0), 6) for _ in range(4)] == [99.99, 99.994, 99.998, 100.002]
    # A writer after a quiet spell goes at once, and starts the spacing again from there.
    assert pace.reserve(200.0) == pytest.approx(199.99)
    assert pace.reserve(200.0) == pytest.approx(199.994)
    # A writer that comes after its place goes at once, and the spacing goes on from it.
    assert pace.reserve(200.009) == pytest.approx(199.999)


def test_calls_held_up_together_are_written_at_the_interval(serve: Callable[[Responder], RawServer]) -> None:
    arrivals: list[float] = []

    def answer(_request: bytes) -> bytes:
        arrivals.append(time.monotonic())
        return b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"

    server = serve(answer)
    interval, count = 0.005, 20

    async def run() -> list[httpx.Response]:
        # Twenty calls at once, each on a new connection: as after a stall, or at a burst's start.
        transport = KeepAliveTransport(max_connections=count, write_interval=interval)
        async with httpx.AsyncClient(transport=transport) as client:
            url = f"http://127.0.0.1:{server.port}/v23.0/1/messages"
            return await asyncio.gather(*(client.post(url, json={"n": n}) for n in range(count)))

    responses = asyncio.run(run())
    assert [response.status_code for response in responses] == [200] * count
    # Only the slack (two writes' worth) may go early; the rest leave one interval apart or later.
    assert max(arrivals) - min(arrivals) >= (count - 1) * interval - 0.01 - 0.001


def test_answers_are_read_and_connections_reused(serve: Callable[[Responder], RawServer]) -> None:
    body = b'{"messages":[{"id":"wamid.1"}]}'
    server = serve(lambda request: b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    responses = _post(server.port, 5)
    assert [r.json()["messages"][0]["id"] for r in responses] == ["wamid.1"] * 5
    assert server.connections == 1
    assert server.requests == 5


def test_the_request_carries_method_path_headers_and_body(serve: Callable[[Responder], RawServer]) -> None:
    seen: list[bytes] = []

    def record(request: bytes) -> bytes:
        seen.append(request)
        return b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"

    _post(serve(record).port)
    head, _, body = seen[0].partition(b"\r\n\r\n")
    assert head.startswith(b"POST /v23.0/1/messages HTTP/1.1\r\n")
    assert b"\r\nhost: 127.0.0.1:" in head.lower()
    assert body == b'{"n":0}'


def test_chunked_answers_and_error_statuses(serve: Callable[[Responder], RawServer]) -> None:
    parts = [b'{"error', b'":{"code":13104', b"7}}"]
    chunks = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(part), part) for part in parts)
    chunked = (
        b"HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n"
        + chunks
        + b"0\r\nX-Trailer: 1\r\n\r\n"
    )
    response = _post(serve(lambda request: chunked).port)[0]
    assert response.status_code == 400
    assert response.json() == {"error": {"code": 131047}}


def test_connection_close_is_honoured(serve: Callable[[Responder], RawServer]) -> None:
    server = serve(lambda request: b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}")
    assert len(_post(server.port, 3)) == 3
    assert server.connections == 3


def test_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(httpx.ConnectError):
        _post(port)


def test_no_answer_in_time_is_a_read_timeout(serve: Callable[[Responder], RawServer]) -> None:
    server = serve(lambda request: b"")  # takes the request, never answers
    with pytest.raises(httpx.ReadTimeout):
        _post(server.port, read=0.3)


def test_hang_up_after_the_request_is_a_protocol_error(serve: Callable[[Responder], RawServer]) -> None:
    server = serve(lambda request: None)
    with pytest.raises(httpx.RemoteProtocolError):
        _post(server.port)


def test_a_configured_proxy_is_used_for_remote_graph_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    from backend.outbox.sender import _proxy_for

    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    assert (
        _proxy_for(httpx.URL("https://graph.facebook.com/v23.0/1/messages")) == "http://proxy.internal:3128"
    )
    assert _proxy_for(httpx.URL("http://127.0.0.1:8080/v23.0/1/messages")) is None
    monkeypatch.delenv("HTTPS_PROXY")
    assert _proxy_for(httpx.URL("https://graph.facebook.com/v23.0/1/messages")) is None
