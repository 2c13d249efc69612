"""The ASGI face of the HTTP process: what the WSGI app is handed, and what never reaches it."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import httpx
import pytest

from app.asgi_front import InboxAsgi
from app.http_server import HttpServer

Seen = list[dict[str, Any]]


def recording_app(seen: Seen) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """A WSGI app that keeps what it was given and answers it back."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        body = environ["wsgi.input"].read()
        seen.append(
            {
                "path": environ["PATH_INFO"],
                "raw": environ.get("RAW_URI"),
                "terminated": environ.get("wsgi.input_terminated"),
                "body": body,
            }
        )
        answer = json.dumps({"length": len(body)}).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(answer)))])
        return [answer]

    return app


def serve(front: InboxAsgi, method: str, path: str, **options: Any) -> httpx.Response:
    """One request through the front, as an ASGI server would pass it."""

    async def one() -> httpx.Response:
        transport = httpx.ASGITransport(app=front)
        async with httpx.AsyncClient(transport=transport, base_url="http://inbox.test") as client:
            return await client.request(method, path, **options)

    return asyncio.run(one())


@pytest.fixture
def recorded() -> Iterator[tuple[InboxAsgi, Seen]]:
    """The front, without a webhook receiver, over a recording app; and what that app was given."""
    seen: Seen = []
    front = InboxAsgi(recording_app(seen), threads=2, receiver=None)
    yield front, seen
    front.close()


def test_the_app_gets_the_raw_target_and_a_body_that_ends_where_the_request_does(
    recorded: tuple[InboxAsgi, Seen],
) -> None:
    front, seen = recorded
    response = serve(front, "POST", "/v1/messages/a%2Fcancel%25?x=1", content=b"hello")
    assert response.status_code == 200 and response.json() == {"length": 5}
    [request] = seen
    # The decoded path cannot tell the key "a/cancel%" from the key "a" and its cancel route.
    assert request["path"] == "/v1/messages/a/cancel%"
    assert request["raw"] == "/v1/messages/a%2Fcancel%25?x=1"
    assert request["terminated"] is True
    assert request["body"] == b"hello"


def test_a_body_announced_over_the_limit_is_refused_before_the_app_runs(
    recorded: tuple[InboxAsgi, Seen],
) -> None:
    front, seen = recorded
    too_large = serve(front, "POST", "/v1/messages", content=b"x" * (3 * 1024 * 1024 + 1))
    within = serve(front, "POST", "/v1/messages", content=b"x" * 1024)
    assert too_large.status_code == 413
    assert too_large.json()["error"]["code"] == "payload_too_large"
    assert too_large.headers["connection"] == "close"
    assert within.status_code == 200
    assert [request["body"] for request in seen] == [b"x" * 1024]


def test_without_a_receiver_the_webhook_path_is_the_apps(recorded: tuple[InboxAsgi, Seen]) -> None:
    front, seen = recorded
    response = serve(front, "POST", "/webhooks/whatsapp", content=b"{}")
    assert response.status_code == 200
    assert [request["path"] for request in seen] == ["/webhooks/whatsapp"]


def test_an_app_reading_exactly_the_announced_length_keeps_the_connection_alive() -> None:
    def exact_reader(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        body = environ["wsgi.input"].read(int(environ["CONTENT_LENGTH"]))
        start_response("200 OK", [("Content-Length", str(len(body)))])
        return [body]

    server = HttpServer(exact_reader, "127.0.0.1", 0, threads=2).start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as connection:
            for round_number in range(3):
                body = b"round %d" % round_number
                connection.sendall(
                    b"POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n%s"
                    % (len(body), body)
                )
                answer = b""
                while not answer.endswith(body):
                    chunk = connection.recv(4096)
                    assert chunk, f"closed after {round_number} answers"
                    answer += chunk
                # The server may mark the body's end in a message the app never asks for: still read.
                assert b"connection: close" not in answer.lower()
    finally:
        server.stop()


def test_connections_are_accepted_with_tcp_nodelay_on_its_own_socket_and_a_handed_one() -> None:
    # Without it an answer written in two parts waits for the client's delayed acknowledgement.
    handed = socket.create_server(("127.0.0.1", 0))
    servers = [
        HttpServer(recording_app([]), "127.0.0.1", 0, threads=1),
        HttpServer(recording_app([]), listener=handed),
    ]
    try:
        for server in servers:
            server.start()
            assert server._listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        for server in servers:
            server.stop()
        handed.close()
