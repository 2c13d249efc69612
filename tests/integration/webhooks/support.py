"""Builders of signed webhook bodies and a ready-made app for webhook and inbox tests."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from app.composition import build_parts
from backend.database import Database
from backend.domain.webhook_signature import sign
from backend.settings import Settings
from backend.web import create_app

APP_SECRET = "test_app_secret"
VERIFY_TOKEN = "verify-me"
BUSINESS_NUMBER = "15550783881"
CUSTOMER = "16505551234"
CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance" / "pywa"
NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def make_settings(tmp_path: Path, database_url: str, **overrides: Any) -> Settings:
    """Settings with a known app secret and verify token."""
    return Settings(
        data_dir=tmp_path,
        database_url=database_url,
        whatsapp_app_secret=APP_SECRET,
        whatsapp_verify_token=VERIFY_TOKEN,
        **overrides,
    )


def make_app(database: Database, settings: Settings) -> Flask:
    """The product's Flask app on its own parts."""
    return create_app(build_parts(settings, database))


def encode(document: dict[str, Any]) -> bytes:
    """Serialise as Meta does: ASCII-escaped compact JSON."""
    return json.dumps(document, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def post_signed(client: FlaskClient, body: bytes, secret: str = APP_SECRET) -> TestResponse:
    """POST a body signed with the app secret."""
    return client.post(
        "/webhooks/whatsapp",
        data=body,
        headers={"X-Hub-Signature-256": sign(body, secret), "Content-Type": "application/json"},
    )


def envelope(value: dict[str, Any]) -> dict[str, Any]:
    """A whole webhook body around one change value of field `messages`."""
    value = {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": BUSINESS_NUMBER, "phone_number_id": "106540352242922"},
        **value,
    }
    return {
        "object": "whatsapp_business_account",
        "entry": [{"id": "102290129340398", "changes": [{"value": value, "field": "messages"}]}],
    }


def unix(moment: datetime) -> str:
    """Meta's timestamp: unix seconds as a string."""
    return str(int(moment.timestamp()))


def text_message(
    wamid: str,
    *,
    sender: str = CUSTOMER,
    body: str = "hello",
    sent_at: datetime = NOW,
    context_id: str | None = None,
    name: str = "Sheena Nelson",
) -> dict[str, Any]:
    """A value holding one inbound text message."""
    message: dict[str, Any] = {
        "from": sender,
        "id": wamid,
        "timestamp": unix(sent_at),
        "type": "text",
        "text": {"body": body},
    }
    if context_id is not None:
        message["context"] = {"from": BUSINESS_NUMBER, "id": context_id}
    return {"contacts": [{"profile": {"name": name}, "wa_id": sender}], "messages": [message]}


def inbound(message: dict[str, Any], *, sender: str = CUSTOMER) -> dict[str, Any]:
    """A value holding one inbound message of any type."""
    return {"contacts": [{"profile": {"name": "Sheena Nelson"}, "wa_id": sender}], "messages": [message]}


def status(
    wamid: str,
    state: str,
    *,
    at: datetime = NOW,
    recipient: str = CUSTOMER,
    callback_data: str | None = None,
    errors: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One status object."""
    found: dict[str, Any] = {"id": wamid, "status": state, "timestamp": unix(at), "recipient_id": recipient}
    if callback_data is not None:
        found["biz_opaque_callback_data"] = callback_data
    if errors is not None:
        found["errors"] = errors
    return found


def statuses(*items: dict[str, Any]) -> dict[str, Any]:
    """A value holding statuses."""
    return {"statuses": list(items)}


def add_outbox_row(
    database: Database,
    *,
    key: str,
    wamid: str | None,
    state: str = "accepted",
    to: str = "+" + CUSTOMER,
    origin: str = "api",
    at: datetime = NOW,
    text: str = "hi",
) -> int:
    """Store an outbox row as the sender would have left it, created (and accepted, with a wamid) at `at`."""
    from backend.database.models import OutboxMessage
    from backend.inbox.contacts import contact_for_number, conversation_for

    with database.transaction() as session:
        contact = contact_for_number(session, to, at)
        conversation = conversation_for(session, contact, at)
        row = OutboxMessage(
            dedupe_key=key,
            to_number=to,
            purpose="test",
            origin=origin,
            kind="text",
            payload={"text": text},
            state=state,
            wamid=wamid,
            not_before=at,
            conversation_id=conversation.id,
            created_at=at,
            updated_at=at,
            accepted_at=at if wamid is not None else None,
        )
        session.add(row)
        session.flush()
        return row.id


def deliver(client: FlaskClient, processor: Any, *values: dict[str, Any]) -> None:
    """POST each value as its own signed body (200 expected), then process everything pending."""
    for value in values:
        response = post_signed(client, encode(envelope(value)))
        assert response.status_code == 200, response.get_data()
    result = processor.drain()
    assert result.failed_deliveries == 0
