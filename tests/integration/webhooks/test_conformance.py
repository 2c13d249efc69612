"""Every recorded body of the pywa corpus is accepted, stored, processed, and lands where it should."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import delete, func, select

from app.composition import build_parts
from backend import counters
from backend.database import Database
from backend.database.models import (
    Contact,
    Conversation,
    Counter,
    InboundMessage,
    JournalEntry,
    OutboxMessage,
    PendingJournalEntry,
    ProcessedEvent,
    SendDecision,
    StatusEvent,
    WebhookDelivery,
)
from backend.domain.states import state_after_status
from backend.settings import Settings
from backend.webhooks.processor import WebhookProcessor
from tests.integration.webhooks.support import CONFORMANCE, add_outbox_row, encode, post_signed

FILES = [pytest.param(path, id=path.stem) for path in sorted(CONFORMANCE.glob("*.json"))]
# Emptied between two bodies of a file, children first (one database per file keeps the suite fast).
TABLES = (
    JournalEntry,
    PendingJournalEntry,
    Counter,
    ProcessedEvent,
    StatusEvent,
    WebhookDelivery,
    InboundMessage,
    SendDecision,
    OutboxMessage,
    Conversation,
    Contact,
)


def _values(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        change["value"]
        for entry in document["entry"]
        for change in entry["changes"]
        if change.get("field") == "messages"
    ]


def _our_number(document: dict[str, Any]) -> str | None:
    """The business number a recorded body is about: configured as ours, so its events are applied."""
    numbers = {value.get("metadata", {}).get("phone_number_id") for value in _values(document)}
    assert len(numbers) <= 1, numbers
    return next(iter(numbers), None)


@pytest.mark.parametrize("path", FILES)
def test_every_recorded_body_lands_where_it_should(
    path: Path, database: Database, client: FlaskClient, settings: Settings
) -> None:
    bodies = json.loads(path.read_text(encoding="utf-8"))
    assert bodies
    for name, document in bodies.items():
        with database.transaction() as session:
            for table in TABLES:
                session.execute(delete(table))
        ours = replace(settings, whatsapp_phone_number_id=_our_number(document))
        try:
            _check_body(document, database, client, WebhookProcessor(build_parts(ours, database)))
        except AssertionError as error:
            raise AssertionError(f"{path.stem}/{name}: {error}") from error


def _check_body(
    document: dict[str, Any], database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    values = _values(document)
    messages = [message for value in values for message in value.get("messages", [])]
    statuses = [status for value in values for status in value.get("statuses", [])]
    # Our own earlier messages: the ones replied to or reacted to (sent to the customer who answers),
    # and the ones the statuses are about.
    answered = {m["context"]["id"]: m["from"] for m in messages if "id" in m.get("context", {})}
    answered |= {m["reaction"]["message_id"]: m["from"] for m in messages if m.get("type") == "reaction"}
    targets = set(answered) | {s["id"] for s in statuses if s["id"] != "<WHATSAPP_MESSAGE_ID>"}
    rows = {
        wamid: add_outbox_row(database, key=f"key-{index}", wamid=wamid, **_sent_to(answered.get(wamid)))
        for index, wamid in enumerate(sorted(targets))
    }

    response = post_signed(client, encode(document))
    assert response.status_code == 200
    result = processor.drain()
    assert result.failed_deliveries == 0

    with database.reader() as session:
        delivery = session.scalars(select(WebhookDelivery)).one()
        assert delivery.processed_at is not None
        assert delivery.parse_error is None
        assert counters.read(session, counters.WEBHOOK_PARSE_FAILURES) == 0
        assert counters.read(session, counters.DUPLICATE_WEBHOOKS) == 0
        stored = {row.wamid: row for row in session.scalars(select(InboundMessage))}
        assert len(stored) == len({m["id"] for m in messages})
        for message in messages:
            _check_message(message, stored[message["id"]], rows, session)
        # Value-level errors stay with the messages of their change.
        for value in values:
            for message in value.get("messages", []):
                for error in value.get("errors", []):
                    assert error in (stored[message["id"]].errors or [])
        state = "accepted"
        for item in statuses:
            state = state_after_status(state, item["status"])
            evidence = session.scalars(select(StatusEvent).where(StatusEvent.wamid == item["id"])).one()
            assert evidence.status == item["status"]
            if item["id"] in rows:
                row = session.get_one(OutboxMessage, rows[item["id"]])
                assert evidence.message_id == row.id
                assert row.state == state
                if item.get("errors"):
                    assert row.last_error_code == item["errors"][0]["code"]
            else:
                assert evidence.message_id is None
                assert counters.read(session, counters.UNMATCHED_STATUSES) == 1
        if not messages and not statuses:
            assert session.scalar(select(func.count()).select_from(StatusEvent)) == 0
        assert counters.read(session, counters.FOREIGN_NUMBER_EVENTS) == 0
        assert counters.read(session, counters.CROSS_CONTACT_QUOTES) == 0


def _sent_to(wa_id: str | None) -> dict[str, str]:
    return {"to": f"+{wa_id}"} if wa_id is not None else {}


def _check_message(message: dict[str, Any], row: InboundMessage, rows: dict[str, int], session: Any) -> None:
    assert row.type == message["type"]
    contact = session.get_one(Contact, row.contact_id)
    assert contact.wa_id == message["from"]
    kind = message["type"]
    content = message.get(kind, {})
    target = message.get("context", {}).get("id") or (
        content.get("message_id") if kind == "reaction" else None
    )
    if target is not None:
        assert row.reply_to_message_id == rows[target]
        assert row.placement == "reply"
    else:
        # Our rows are created after every recorded message: none of them is a business message before it.
        assert row.reply_to_message_id is None
        assert row.placement == "conversation"
    if kind == "text":
        assert row.text == content["body"]
    if kind == "button":
        assert (row.choice_kind, row.choice_id, row.choice_title) == (
            "button",
            content["payload"],
            content["text"],
        )
    if kind == "interactive" and content.get("type") in {"button_reply", "list_reply"}:
        reply = content[content["type"]]
        assert (row.choice_kind, row.choice_id, row.choice_title) == (
            content["type"],
            reply["id"],
            reply["title"],
        )
    if kind == "reaction":
        assert row.reaction_target == content["message_id"]
        assert row.reaction_emoji == (content.get("emoji") or None)
    if kind in {"image", "video", "audio", "document", "sticker"}:
        assert row.media_id == content["id"]
        assert row.media_mime_type == content["mime_type"]
        assert row.caption == content.get("caption")
    if message.get("errors"):
        assert row.errors is not None
        assert row.errors[0]["code"] == message["errors"][0]["code"]
