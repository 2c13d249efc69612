"""Sandbox test helpers: a webhook sink that records raw deliveries, and fast sandboxes."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from backend.sandbox.server import Sandbox, SandboxConfig

APP_SECRET = "test_app_secret"
TOKEN = "test-token"
PHONE_NUMBER_ID = "106540352242922"
CUSTOMER = "+16505551234"


@dataclass
class Delivery:
    """One POST the sink received."""

    headers: dict[str, str]
    body: bytes

    @property
    def payload(self) -> dict[str, Any]:
        """The parsed body."""
        return dict(json.loads(self.body))

    @property
    def statuses(self) -> list[dict[str, Any]]:
        """Every status in the delivery."""
        found: list[dict[str, Any]] = []
        for entry in self.payload["entry"]:
            for change in entry["changes"]:
                found.extend(change["value"].get("statuses", []))
        return found

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Every inbound message in the delivery."""
        found: list[dict[str, Any]] = []
        for entry in self.payload["entry"]:
            for change in entry["changes"]:
                found.extend(change["value"].get("messages", []))
        return found


@dataclass
class WebhookSink:
    """Records every webhook POST; answers with the queued status codes, then 200."""

    deliveries: list[Delivery] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def statuses(self) -> list[dict[str, Any]]:
        """All statuses received so far, in arrival order."""
        with self.lock:
            return [status for delivery in self.deliveries for status in delivery.statuses]

    def messages(self) -> list[dict[str, Any]]:
        """All inbound messages received so far, in arrival order."""
        with self.lock:
            return [message for delivery in self.deliveries for message in delivery.messages]

    def wait_for(self, predicate: Callable[[WebhookSink], bool], timeout: float = 5.0) -> None:
        """Wait until `predicate(self)` holds, or fail."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self):
                return
            time.sleep(0.01)
        raise AssertionError(f"webhooks never matched; got {self.statuses()} {self.messages()}")


@pytest.fixture
def sink() -> Iterator[WebhookSink]:
    """A running webhook receiver on a free loopback port."""
    recorder = WebhookSink()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            with recorder.lock:
                status = recorder.answers.pop(0) if recorder.answers else 200
                if status == 200:
                    recorder.deliveries.append(
                        Delivery({k.lower(): v for k, v in self.headers.items()}, body)
                    )
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    recorder.url = f"http://127.0.0.1:{server.server_address[1]}/webhooks/whatsapp"
    yield recorder
    server.shutdown()
    server.server_close()


class FakeClock:
    """A clock tests move by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        self.now += timedelta(seconds=seconds)


def fast_config(**overrides: Any) -> SandboxConfig:
    """A deterministic, quick sandbox configuration."""
    base = SandboxConfig(
        app_secret=APP_SECRET,
        token=TOKEN,
        phone_number_id=PHONE_NUMBER_ID,
        status_delay=0.0,
        skip_delivered_rate=0.0,
        webhook_retry_base_seconds=0.02,
        webhook_retry_max_seconds=0.1,
        read_timeout_hold_seconds=60.0,
        seed=7,
    )
    return replace(base, **overrides)


@pytest.fixture
def start_sandbox() -> Iterator[Callable[..., Sandbox]]:
    """Start sandboxes with `fast_config` overrides; all stopped at the end of the test."""
    started: list[Sandbox] = []

    def start(**overrides: Any) -> Sandbox:
        sandbox = Sandbox(fast_config(**overrides)).start()
        started.append(sandbox)
        return sandbox

    yield start
    for sandbox in started:
        sandbox.stop()


def graph_client(sandbox: Sandbox, **options: Any) -> httpx.Client:
    """An httpx client on the sandbox's Graph API with the right token."""
    return httpx.Client(
        base_url=f"{sandbox.graph_url}/{sandbox.config.phone_number_id}",
        headers={"Authorization": f"Bearer {sandbox.config.token}"},
        **options,
    )


def text_message(body: str = "hello", to: str = CUSTOMER, **extra: Any) -> dict[str, Any]:
    """A free-form text send body."""
    return {"messaging_product": "whatsapp", "to": to, "type": "text", "text": {"body": body}, **extra}


def template_message(order: str = "A-1", to: str = CUSTOMER, **extra: Any) -> dict[str, Any]:
    """An order_shipped template send body (from the shipped templates file)."""
    return {
        "messaging_product": "whatsapp",
        "to": to,
        "type": "template",
        "template": {
            "name": "order_shipped",
            "language": {"code": "en"},
            "components": [{"type": "body", "parameters": [{"type": "text", "text": order}]}],
        },
        **extra,
    }


def wait_for_stats(
    sandbox: Sandbox, predicate: Callable[[dict[str, Any]], bool], timeout: float = 5.0
) -> None:
    """Wait until the sandbox's stats match (it counts a delivery once it has read the 200)."""
    deadline = time.monotonic() + timeout
    while not predicate(sandbox.stats()):
        if time.monotonic() > deadline:
            raise AssertionError(f"stats never matched: {sandbox.stats()}")
        time.sleep(0.01)


def valid_signature(headers: dict[str, str], body: bytes) -> bool:
    """Whether X-Hub-Signature-256 matches the exact bytes with the test app secret."""
    expected = "sha256=" + hmac.new(APP_SECRET.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(headers.get("x-hub-signature-256", ""), expected)
