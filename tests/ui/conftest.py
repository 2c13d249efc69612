"""Fixtures for the desktop client: a real sandbox and backend in-process, and a client signed in to them."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from app.commands.demo import DemoStack, start_stack
from backend.settings import load_settings
from ui.api.client import ApiClient
from ui.api.paths import api_path
from ui.garbage import GuiThreadGarbageCollector
from ui.runner import BackgroundRunner
from ui.views.main_window import MainWindow


@pytest.fixture(autouse=True)
def gui_thread_garbage_collection(qapp: QApplication) -> Iterator[None]:
    """Collect garbage on the GUI thread only, as the client does: backend threads share this process."""
    collector = GuiThreadGarbageCollector(qapp)
    yield
    collector.stop()
    collector.deleteLater()


@pytest.fixture
def stack(database_url: str, tmp_path: Path) -> Iterator[DemoStack]:
    """Sandbox + backend with workers, on free ports, with supervisor `dana` (no simulated customers)."""
    settings = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path), "INBOX_DATABASE_URL": database_url})
    running = start_stack(settings, customers=0, status_delay=0.05)
    yield running
    running.stop()


@pytest.fixture
def api(stack: DemoStack) -> Iterator[ApiClient]:
    """The client's API object, signed in as the supervisor."""
    client = ApiClient(stack.url, stack.token)
    yield client
    client.close()


@pytest.fixture
def runner(qtbot: Any) -> Iterator[BackgroundRunner]:
    """The background runner the client uses."""
    background = BackgroundRunner()
    yield background
    # Its calls end before the API client they use is closed (a long poll lasts a second here).
    background.shutdown(wait_seconds=10.0)


@pytest.fixture
def window(qtbot: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner) -> Iterator[MainWindow]:
    """The main window, started, with a short long-poll so tests end quickly."""
    main = MainWindow(api, runner, user_name=stack.user_name, wait_seconds=1.0)
    qtbot.addWidget(main)
    main.show()
    main.start()
    yield main
    main.stop()


def wait_for(condition: Callable[[], Any], timeout: float = 15.0, interval: float = 0.05) -> Any:
    """Poll a condition outside Qt (backend state) until it is truthy."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not met in time")


def send_text(stack: DemoStack, to: str, text: str, *, purpose: str = "support") -> str:
    """Enqueue a text message through the API; returns its key."""
    key = f"test-{uuid.uuid4()}"
    with stack.api() as client:
        response = client.post(
            "/v1/messages",
            json={"to": to, "purpose": purpose, "text": text, "trigger_ref": "order-1001"},
            headers={"Idempotency-Key": key},
        )
    assert response.status_code == 202, response.text
    return key


def message(stack: DemoStack, key: str) -> dict[str, Any]:
    """The message resource for a key."""
    with stack.api() as client:
        response = client.get(api_path("v1", "messages", key))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def wait_for_state(stack: DemoStack, key: str, states: set[str], timeout: float = 15.0) -> dict[str, Any]:
    """Wait until a message reaches one of the states."""

    def reached() -> dict[str, Any] | None:
        body = message(stack, key)
        return body if body["state"] in states else None

    return dict(wait_for(reached, timeout))


def conversation_id_for(stack: DemoStack, number: str) -> int:
    """The conversation of a customer number, once the backend has one."""

    def find() -> int | None:
        with stack.api() as client:
            response = client.get("/v1/conversations", params={"q": number.lstrip("+")})
        for conversation in response.json().get("conversations", []):
            if conversation["contact"]["number"] == number:
                return int(conversation["id"])
        return None

    return int(wait_for(find))


def customer_writes(stack: DemoStack, number: str, text: str, context_id: str | None = None) -> str:
    """The customer sends a message (through the sandbox, as a signed webhook); returns its wamid."""
    wamid: str = stack.sandbox.inbound(number, text, context_id=context_id)
    return wamid


def http_client(stack: DemoStack) -> httpx.Client:
    """A plain HTTP client signed in as the supervisor."""
    return stack.api()


class TcpRelay:
    """Forwards a local port to the backend; cutting it drops every connection, like a network loss."""

    def __init__(self, target_port: int) -> None:
        self._target_port = target_port
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self.port = 0

    @property
    def url(self) -> str:
        """The relay's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> TcpRelay:
        """Listen (on the same port as before, after a cut)."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def cut(self) -> None:
        """Close the listener and every relayed connection."""
        with self._lock:
            everything = [self._listener, *self._sockets] if self._listener else list(self._sockets)
            self._sockets = []
            self._listener = None
        for connection in everything:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _address = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self._target_port))
            with self._lock:
                self._sockets += [client, upstream]
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                target.sendall(chunk)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                target.shutdown(socket.SHUT_WR)


@pytest.fixture(autouse=True)
def client_language(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The client's texts as `inbox ui` shows them in English (plural forms come from a catalogue too)."""
    from ui.app import apply_preferences, language_switch

    if language_switch().language != "en":
        apply_preferences(None, language="en", theme="light", cache_folder=tmp_path_factory.getbasetemp())
