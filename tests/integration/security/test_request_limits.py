"""Request size limits hold at the server, before a body is read: every route, announced and chunked."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from app.composition import build_parts
from app.http_server import HttpServer
from backend.database import Database
from backend.settings import Settings
from backend.web import create_app
from backend.web.factory import MAX_WEBHOOK_BYTES

pytestmark = pytest.mark.timeout(60)

ANSWER_WITHIN_SECONDS = 3.0


@pytest.fixture
def app(database: Database, database_url: str, tmp_path: Path) -> Flask:
    """The product's Flask app."""
    settings = Settings(
        data_dir=tmp_path,
        database_url=database_url,
        whatsapp_app_secret="limits-secret",
        whatsapp_verify_token="limits-verify",
    )
    return create_app(build_parts(settings, database))


@pytest.fixture
def server(app: Flask) -> Iterator[HttpServer]:
    """The app behind the production server, as `inbox serve` runs it."""
    running = HttpServer(app, "127.0.0.1", 0).start()
    yield running
    running.stop()


def every_path(app: Flask) -> list[str]:
    """One concrete path per route of the app (ids 1, keys "k"), each a valid request target."""
    paths = set()
    for rule in app.url_map.iter_rules():
        # Every variable, with or without its converter (<int:id>, <path:filename>, <key>).
        path = re.sub(
            r"<(?:[a-z_]+:)?([a-z_]+)>", lambda match: "1" if "id" in match.group(1) else "k", rule.rule
        )
        paths.add(path)
    return sorted(paths)


def first_answer(port: int, head: bytes, body: bytes = b"") -> bytes:
    """Send a request head (and the start of a body), return the status line the server answers."""
    with socket.create_connection(("127.0.0.1", port), timeout=ANSWER_WITHIN_SECONDS) as connection:
        connection.sendall(head + body)
        try:
            return connection.recv(100).split(b"\r\n", 1)[0]
        except TimeoutError:
            return b"no answer"


def test_an_announced_huge_body_is_refused_at_once_on_every_route(app: Flask, server: HttpServer) -> None:
    paths = every_path(app)
    assert "/webhooks/whatsapp" in paths and "/v1/messages" in paths
    for path in paths:
        began = time.monotonic()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {500 * 1024 * 1024}\r\n\r\n"
        ).encode()
        status = first_answer(server.port, head, b"{" * 1024)
        # Refused from the head alone: the server does not wait for (or store) 500 MB first.
        assert status.startswith(b"HTTP/1.1 413"), (path, status)
        assert time.monotonic() - began < ANSWER_WITHIN_SECONDS


def test_a_chunked_body_past_the_limit_is_refused_without_reading_it_all(server: HttpServer) -> None:
    head = b"POST /webhooks/whatsapp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunk = b"x" * 65536
    sent = 0
    status = b"no answer"
    with socket.create_connection(("127.0.0.1", server.port), timeout=ANSWER_WITHIN_SECONDS) as connection:
        connection.sendall(head)
        try:
            while sent < 64 * 1024 * 1024:
                connection.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                sent += len(chunk)
            connection.sendall(b"0\r\n\r\n")
            status = connection.recv(100).split(b"\r\n", 1)[0]
        except OSError:
            # The server closed the connection; its answer may already be in the socket buffer.
            try:
                status = connection.recv(100).split(b"\r\n", 1)[0] or b"closed"
            except OSError:
                status = b"closed"
    assert status.startswith(b"HTTP/1.1 413") or status == b"closed", status
    # It stopped reading near the limit instead of taking all 64 MB.
    assert sent < 4 * MAX_WEBHOOK_BYTES + 8 * 1024 * 1024, sent


def _exchange(connection: socket.socket, request: bytes) -> bytes:
    """Send one request on an open connection and read its whole answer (head and sized body)."""
    connection.sendall(request)
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(65536)
        if not chunk:
            return received
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += connection.recv(65536)
    return head


def test_keep_alive_holds_even_after_a_body_the_app_refused_unread(server: HttpServer) -> None:
    healthz = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=ANSWER_WITHIN_SECONDS) as connection:
        for _ in range(3):
            head = _exchange(connection, healthz)
            assert head.startswith(b"HTTP/1.1 200") and b"connection: close" not in head.lower()
        # Under the server's 3 MB but over the API's 1 MB: the app refuses it from its length alone.
        body = b"{" + b" " * (1024 * 1024 + 1) + b"}"
        refused = (
            b"POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)
        )
        # The server reads the rest before answering: it is never taken for the next request, and the
        # connection is not reset under an answer still on its way.
        head = _exchange(connection, refused + body)
        assert head.startswith(b"HTTP/1.1 413"), head
        assert b"connection: close" not in head.lower()
        assert _exchange(connection, healthz).startswith(b"HTTP/1.1 200")


def test_a_long_body_refused_unread_closes_its_connection_after_the_answer(server: HttpServer) -> None:
    # The upload route takes 100 MB; without a token it is refused before a byte of the body is read.
    announced = 8 * 1024 * 1024
    head = (
        b"POST /v1/media HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\n"
        b"Content-Length: %d\r\n\r\n" % announced
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=ANSWER_WITHIN_SECONDS) as connection:
        answer = _exchange(connection, head)
        assert answer.startswith(b"HTTP/1.1 401"), answer
        # Reading 8 MB nobody wants is not worth keeping one connection: it ends after the answer.
        assert b"connection: close" in answer.lower()
