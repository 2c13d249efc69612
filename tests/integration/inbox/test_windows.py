"""Window timers: closing 1 h before, closed at the end, once per window opening; and the away message."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from flask.testing import FlaskClient
from sqlalchemy import select

from app.composition import build_parts
from backend.database import Database
from backend.database.models import OutboxMessage
from backend.inbox.windows import WindowTimers
from backend.parts import BackendParts
from backend.settings import Settings
from backend.webhooks.processor import WebhookProcessor
from tests.conftest import journal_entries
from tests.integration.webhooks.support import NOW, deliver, text_message


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def _window_events(database: Database) -> list[tuple[str, dict[str, Any]]]:
    return [(entry.type, entry.data) for entry in journal_entries(database, "window.")]


def test_closing_and_closed_are_journaled_once_per_window_opening(
    database: Database, client: FlaskClient, processor: WebhookProcessor, parts: BackendParts
) -> None:
    deliver(client, processor, text_message("wamid.W1", sent_at=NOW))
    clock = Clock(NOW + timedelta(hours=22))
    timers = WindowTimers(replace(parts, clock=clock))
    assert timers.run_once().closing == 0
    clock.now = NOW + timedelta(hours=23, minutes=1)
    assert timers.run_once().closing == 1
    assert timers.run_once().closing == 0
    clock.now = NOW + timedelta(hours=24)
    assert timers.run_once().closed == 1
    assert timers.run_once().closed == 0
    events = _window_events(database)
    conversation_id = events[0][1]["conversation_id"]
    assert events == [
        (
            "window.closing",
            {
                "conversation_id": conversation_id,
                "closes_at": "2026-11-30T09:00:00Z",
                "assignee": None,
                "unanswered": True,
            },
        ),
        ("window.closed", {"conversation_id": conversation_id}),
    ]
    # A new message opens a new window: its warnings come again, once.
    deliver(client, processor, text_message("wamid.W2", sent_at=NOW + timedelta(hours=30)))
    clock.now = NOW + timedelta(hours=53, minutes=30)
    timers.run_once()
    clock.now = NOW + timedelta(hours=55)
    timers.run_once()
    timers.run_once()
    assert [event_type for event_type, _ in _window_events(database)] == [
        "window.closing",
        "window.closed",
        "window.closing",
        "window.closed",
    ]


def test_a_message_that_extends_the_window_moves_the_warning(
    database: Database, client: FlaskClient, processor: WebhookProcessor, parts: BackendParts
) -> None:
    deliver(client, processor, text_message("wamid.E1", sent_at=NOW))
    clock = Clock(NOW + timedelta(hours=23, minutes=30))
    timers = WindowTimers(replace(parts, clock=clock))
    assert timers.run_once().closing == 1
    deliver(client, processor, text_message("wamid.E2", sent_at=NOW + timedelta(hours=23, minutes=40)))
    clock.now = NOW + timedelta(hours=24, minutes=5)
    assert (timers.run_once().closed, timers.run_once().closing) == (0, 0)
    clock.now = NOW + timedelta(hours=46, minutes=45)
    assert timers.run_once().closing == 1


def _away_messages(database: Database) -> list[OutboxMessage]:
    with database.reader() as session:
        return list(session.scalars(select(OutboxMessage).where(OutboxMessage.purpose == "auto_reply")))


def test_the_away_message_is_off_by_default(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    deliver(client, processor, text_message("wamid.NIGHT", sent_at=NOW.replace(hour=23)))
    assert _away_messages(database) == []


def test_the_away_message_goes_once_per_window_opening_outside_business_hours(
    database: Database, client: FlaskClient, settings: Settings
) -> None:
    processor = WebhookProcessor(build_parts(replace(settings, auto_reply_enabled=True), database))
    night = NOW.replace(hour=23)
    deliver(client, processor, text_message("wamid.N1", sent_at=night))
    deliver(
        client, processor, text_message("wamid.N1", sent_at=night), text_message("wamid.N2", sent_at=night)
    )
    [away] = _away_messages(database)
    assert (away.dedupe_key, away.reply_to, away.to_number) == (
        "auto-reply:wamid.N1",
        "wamid.N1",
        "+16505551234",
    )
    assert away.payload == {"text": settings.auto_reply_text}
    # Inside business hours, a new window gets no away message.
    deliver(client, processor, text_message("wamid.DAY", sent_at=NOW + timedelta(days=2)))
    assert len(_away_messages(database)) == 1
    # Outside hours, a new window gets its own.
    deliver(client, processor, text_message("wamid.N3", sent_at=night + timedelta(days=4)))
    assert sorted(m.dedupe_key for m in _away_messages(database)) == [
        "auto-reply:wamid.N1",
        "auto-reply:wamid.N3",
    ]
