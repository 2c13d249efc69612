"""End-to-end stack: the sandbox standing in for Meta, the backend (HTTP + workers) on a fresh database."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.composition import build_parts
from app.http_server import HttpServer
from app.service import Service, build_service
from backend.clock import utc_now
from backend.database import Database
from backend.sandbox.server import Sandbox, SandboxConfig
from backend.settings import PurposeRule, Settings
from backend.users import create_user

APP_SECRET = "e2e-app-secret"
GRAPH_TOKEN = "e2e-graph-token"
PHONE_NUMBER_ID = "100000000000001"


@dataclass
class Stack:
    """A running sandbox and backend wired to each other, and an API client for a supervisor."""

    sandbox: Sandbox
    service: Service
    server: HttpServer
    api: httpx.Client
    _counter: list[int] = field(default_factory=lambda: [0])

    def send(self, key: str, to: str, *, purpose: str = "order_update", **content: Any) -> dict[str, Any]:
        """POST /v1/messages under `key`; a template order_shipped unless `content` says otherwise."""
        body: dict[str, Any] = {"to": to, "purpose": purpose}
        body.update(content or {"template": {"name": "order_shipped", "language": "en", "parameters": [key]}})
        response = self.api.post("/v1/messages", json=body, headers={"Idempotency-Key": key})
        assert response.status_code == 202, response.text
        return dict(response.json())

    def message(self, key: str) -> dict[str, Any]:
        """GET /v1/messages/{key}."""
        response = self.api.get(f"/v1/messages/{key}")
        assert response.status_code == 200, response.text
        return dict(response.json())

    def wait_for_state(self, key: str, states: set[str], timeout: float = 15.0) -> dict[str, Any]:
        """Poll the backend until the message reaches one of `states`."""
        deadline = time.monotonic() + timeout
        message = self.message(key)
        while message["state"] not in states:
            if time.monotonic() > deadline:
                raise AssertionError(f"{key} stayed {message['state']}, wanted {states}: {message}")
            time.sleep(0.05)
            message = self.message(key)
        return message

    def ledger_for(self, key: str) -> list[dict[str, Any]]:
        """What customers received under our key (biz_opaque_callback_data)."""
        entries = self.sandbox.ledger()
        return [entry for entry in entries if entry["biz_opaque_callback_data"] == key]

    def events(self, kind: str) -> list[dict[str, Any]]:
        """Journal entries of one type (the live feed the desktop client reads)."""
        found: list[dict[str, Any]] = []
        after = 0
        while True:
            page = self.api.get("/v1/events", params={"after": after}).json()
            found.extend(event["data"] for event in page["events"] if event["type"] == kind)
            if not page["events"]:
                return found
            after = page["next"]

    def wait_for_event(
        self, kind: str, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15.0
    ) -> dict[str, Any]:
        """Wait until a journal entry of this type matches."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for data in self.events(kind):
                if predicate(data):
                    return data
            time.sleep(0.1)
        raise AssertionError(f"no {kind} event matched; saw {self.events(kind)}")


@pytest.fixture
def start_stack(database: Database, database_url: str, tmp_path: Path) -> Iterator[Callable[..., Stack]]:
    """Start sandbox + backend; arguments prefixed `sandbox_` go to the sandbox, others to Settings."""
    started: list[Stack] = []

    def start(**overrides: Any) -> Stack:
        sandbox_options = {
            k.removeprefix("sandbox_"): v for k, v in overrides.items() if k.startswith("sandbox_")
        }
        setting_options = {k: v for k, v in overrides.items() if not k.startswith("sandbox_")}
        sandbox = Sandbox(
            SandboxConfig(
                app_secret=APP_SECRET,
                token=GRAPH_TOKEN,
                phone_number_id=PHONE_NUMBER_ID,
                status_delay=0.05,
                skip_delivered_rate=0.0,
                webhook_retry_base_seconds=0.05,
                webhook_retry_max_seconds=0.5,
                seed=11,
                **sandbox_options,
            )
        ).start()
        settings = Settings(
            data_dir=tmp_path,
            database_url=database_url,
            graph_url=sandbox.graph_url,
            whatsapp_token=GRAPH_TOKEN,
            whatsapp_phone_number_id=PHONE_NUMBER_ID,
            whatsapp_app_secret=APP_SECRET,
            whatsapp_verify_token="e2e-verify",
            connect_timeout_seconds=1.0,
            read_timeout_seconds=1.0,
            send_lease_seconds=3.0,
            unknown_wait_seconds=1.0,
            # The backend's own pacing per customer; the sandbox still enforces Meta's pair limit.
            pair_interval_seconds=0.5,
            purposes={"reminder": PurposeRule(unknown_rule="resend")},
            **setting_options,
        )
        service = build_service(build_parts(settings, database))
        server = HttpServer(service.web_app, "127.0.0.1", 0).start()
        sandbox.set_webhook_url(f"{server.url}/webhooks/whatsapp")
        with database.transaction() as session:
            token = create_user(session, f"e2e-{len(started)}", "supervisor", utc_now())
        api = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=10)
        service.start_workers()
        stack = Stack(sandbox=sandbox, service=service, server=server, api=api)
        started.append(stack)
        return stack

    yield start
    for stack in started:
        stack.sandbox.stop()
        stack.api.close()
        stack.server.stop()
        stack.service.stop()
