"""The HTTP server on a socket bound by someone else (the supervisor), and closing that socket early."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import httpx

from app.http_server import HttpServer, bind_listener


def slow_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """Answers after half a second, so a request is still in progress when the listener closes."""
    if environ["PATH_INFO"] == "/slow":
        time.sleep(0.5)
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


def test_a_server_on_a_bound_socket_closes_it_at_once_and_still_answers_what_is_in_progress() -> None:
    listener = bind_listener("127.0.0.1", 0)
    port = listener.getsockname()[1]
    server = HttpServer(slow_app, listener=listener).start()
    assert server.url == f"http://127.0.0.1:{port}"
    answers: list[int] = []
    slow = threading.Thread(
        target=lambda: answers.append(httpx.get(f"{server.url}/slow", timeout=10).status_code)
    )
    try:
        assert httpx.get(f"{server.url}/", timeout=5).status_code == 200
        slow.start()
        time.sleep(0.2)  # the slow request is in the app
        began = time.monotonic()
        server.close_listener()
        assert time.monotonic() - began < 0.5
        # The port is free for another server (a new `inbox serve`) while the request finishes.
        with socket.create_server(("127.0.0.1", port)):
            pass
        slow.join(5)
        assert answers == [200]
    finally:
        server.stop(timeout=2)
        listener.close()
