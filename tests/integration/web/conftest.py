"""Fixtures for the HTTP API: an app on a fresh database, users with tokens, a settable clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from app.composition import build_parts
from backend.database import Database
from backend.database.models import Contact, Conversation, InboundMessage, OutboxMessage
from backend.inbox.contacts import contact_for_number, conversation_for
from backend.parts import BackendParts
from backend.settings import Settings, load_settings
from backend.users import create_user
from backend.web import create_app
from backend.webhooks.processor import WebhookProcessor
from tests.integration.webhooks.support import encode, envelope

START = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


class FakeClock:
    """A clock tests move by hand."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class Api:
    """An app, its parts, database, clock and the tokens of an agent and a supervisor."""

    app: Flask
    parts: BackendParts
    database: Database
    settings: Settings
    clock: FakeClock
    agent_token: str
    supervisor_token: str
    other_agent_token: str

    def client(self) -> FlaskClient:
        return self.app.test_client()

    def headers(self, token: str | None = None, **extra: str) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {token or self.agent_token}"}
        headers.update({name.replace("_", "-"): value for name, value in extra.items()})
        return headers

    def send(self, key: str | None, body: Any, token: str | None = None) -> Any:
        headers = self.headers(token)
        if key is not None:
            headers["Idempotency-Key"] = key
        return self.client().post("/v1/messages", json=body, headers=headers)


@pytest.fixture
def api(database: Database, tmp_path: Path) -> Api:
    settings = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)})
    clock = FakeClock()
    with database.transaction() as session:
        agent = create_user(session, "alice", "agent", START)
        supervisor = create_user(session, "sam", "supervisor", START)
        other = create_user(session, "bob", "agent", START)
    parts = build_parts(settings, database, clock=clock)
    app = create_app(parts)
    app.config["TESTING"] = True
    return Api(app, parts, database, settings, clock, agent, supervisor, other)


def add_inbound(
    database: Database,
    number: str,
    wamid: str,
    *,
    at: datetime,
    text: str = "hello",
    placement: str = "work_queue",
    reply_to_message_id: int | None = None,
    name: str | None = None,
    context_id: str | None = None,
    window_hours: float = 24,
) -> tuple[int, int]:
    """Store an inbound message as the webhook processor would; returns (conversation id, inbound id)."""
    with database.transaction() as session:
        contact = contact_for_number(session, number, at)
        conversation = conversation_for(session, contact, at)
        row = InboundMessage(
            wamid=wamid,
            contact_id=contact.id,
            conversation_id=conversation.id,
            type="text",
            text=text,
            context_id=context_id,
            placement=placement,
            reply_to_message_id=reply_to_message_id,
            raw={},
            sent_at=at,
            received_at=at,
        )
        session.add(row)
        stored_contact = session.get_one(Contact, contact.id)
        stored_contact.last_inbound_at = at
        stored_contact.window_closes_at = at + timedelta(hours=window_hours)
        if name:
            stored_contact.profile_name = name
        stored_conversation = session.get_one(Conversation, conversation.id)
        stored_conversation.last_message_at = at
        stored_conversation.unread_count += 1
        session.flush()
        return conversation.id, row.id


AddInbound = Callable[..., tuple[int, int]]


def add_outbox_row(api: Api, key: str, state: str = "unknown", **extra: Any) -> None:
    """Put an outbox row straight into a given state, ten minutes old, as if its history had happened."""
    now = api.clock.now
    values: dict[str, Any] = {
        "dedupe_key": key,
        "to_number": "+16505551234",
        "purpose": "order_shipped",
        "kind": "text",
        "payload": {"text": "x"},
        "state": state,
        "not_before": now - timedelta(minutes=10),
        "created_at": now - timedelta(minutes=10),
        "updated_at": now - timedelta(minutes=5),
    }
    values.update(extra)
    with api.database.transaction() as session:
        session.add(OutboxMessage(**values))


def deliver_webhook(api: Api, *values: dict[str, Any]) -> None:
    """Store each webhook value as the receiver would (its signature already checked), then process them."""
    for value in values:
        assert api.parts.delivery_store.store(encode(envelope(value)), None)
    result = WebhookProcessor(api.parts).drain()
    assert result.failed_deliveries == 0
