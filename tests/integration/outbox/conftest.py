"""Helpers for the outbox suite: settings, a settable clock, bulk enqueue, a Graph stand-in."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from backend.database import Database
from backend.database.models import OutboxMessage
from backend.domain.messages import TemplateRequest
from backend.outbox.enqueue import MessageRequest, enqueue
from backend.settings import Settings, load_settings
from backend.templates import load_templates

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # noon in London, 04:00 in Los Angeles


class FakeClock:
    """A clock tests move by hand; `sleep_until` jumps to the moment instead of waiting."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        with self._lock:
            self.now += timedelta(seconds=seconds)

    def set(self, moment: datetime) -> None:
        """Move time to a moment (never back)."""
        with self._lock:
            self.now = max(self.now, moment)

    async def sleep_until(self, moment: datetime) -> None:
        """Let started requests run first, then jump to the moment."""
        await asyncio.sleep(0)
        self.set(moment)


def make_settings(database_url: str, data_dir: Path, **overrides: Any) -> Settings:
    """Settings for a test: a Graph URL, credentials, and any overrides (not range-checked)."""
    settings = load_settings(
        environ={
            "INBOX_DATA_DIR": str(data_dir),
            "INBOX_DATABASE_URL": database_url,
            "WHATSAPP_TOKEN": "test-token",
            "WHATSAPP_PHONE_NUMBER_ID": "106540352242922",
            "WHATSAPP_GRAPH_URL": "http://graph.test/v23.0",
        }
    )
    return replace(settings, **overrides)


@pytest.fixture
def settings_for(database_url: str, tmp_path: Path) -> Callable[..., Settings]:
    """Build settings for this test's database."""

    def build(**overrides: Any) -> Settings:
        return make_settings(database_url, tmp_path, **overrides)

    return build


def number(index: int) -> str:
    """A valid, distinct US number for customer `index` (0-9999)."""
    return f"+1650555{index:04d}"


def template_request(key: str, to: str, purpose: str = "order_shipped", **fields: Any) -> MessageRequest:
    """A template message request."""
    return MessageRequest(
        dedupe_key=key,
        to=to,
        purpose=purpose,
        template=TemplateRequest("order_shipped", "en", ("1",)),
        **fields,
    )


def text_request(key: str, to: str, purpose: str = "support", **fields: Any) -> MessageRequest:
    """A free-text message request."""
    return MessageRequest(dedupe_key=key, to=to, purpose=purpose, text="hello", **fields)


def enqueue_all(
    database: Database, settings: Settings, requests: Iterable[MessageRequest], now: datetime
) -> None:
    """Enqueue requests in one transaction."""
    templates = load_templates()
    with database.transaction() as session:
        for request in requests:
            enqueue(session, request, templates=templates, settings=settings, now=now)


def rows(database: Database) -> dict[str, OutboxMessage]:
    """Every outbox row by dedupe key."""
    with database.reader() as session:
        return {row.dedupe_key: row for row in session.scalars(select(OutboxMessage))}


def count_in_state(database: Database, *states: str) -> int:
    """How many rows are in any of the states."""
    with database.reader() as session:
        return int(
            session.scalar(
                select(func.count()).select_from(OutboxMessage).where(OutboxMessage.state.in_(states))
            )
            or 0
        )


class RecordingGraph:
    """An httpx handler that records every send (thread-safe) and answers as told."""

    def __init__(self, answer: Callable[[dict[str, Any]], httpx.Response] | None = None) -> None:
        self.keys: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []
        self.times: list[tuple[str, str, datetime | None]] = []
        self.clock: Callable[[], datetime] | None = None
        self._answer = answer
        self._lock = threading.Lock()
        self._sequence = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        with self._lock:
            self._sequence += 1
            sequence = self._sequence
            self.keys[body["biz_opaque_callback_data"]] += 1
            self.bodies.append(body)
            self.times.append(
                (body["biz_opaque_callback_data"], body["to"], self.clock() if self.clock else None)
            )
        if self._answer is not None:
            return self._answer(body)
        return httpx.Response(200, json={"messages": [{"id": f"wamid.T{sequence:08d}"}]})

    def transport(self) -> httpx.MockTransport:
        """A transport that sends here."""
        return httpx.MockTransport(self)


def graph_error(code: int, status: int = 400, details: str = "details from Meta") -> httpx.Response:
    """A Graph error answer."""
    return httpx.Response(
        status,
        json={
            "error": {
                "message": f"(#{code}) error",
                "type": "OAuthException",
                "code": code,
                "error_data": {"messaging_product": "whatsapp", "details": details},
                "fbtrace_id": "Afake",
            }
        },
    )


@pytest.fixture
def fake_graph() -> Iterator[Any]:
    """The fast fake Graph endpoint on a thread (answers 200 at once)."""
    from bench.fake_graph import FakeGraph

    graph = FakeGraph().start()
    yield graph
    graph.stop()
