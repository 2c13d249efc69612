"""Events about another business number are stored raw, counted and logged once, never applied."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import delete, select

from app.composition import build_parts
from backend import counters
from backend.database import Database
from backend.database.models import (
    InboundMessage,
    OutboxMessage,
    ProcessedEvent,
    StatusEvent,
    WebhookDelivery,
)
from backend.settings import Settings
from backend.users import create_user
from backend.webhooks.processor import WebhookProcessor, replay_since
from tests.integration.webhooks.support import (
    BUSINESS_NUMBER,
    NOW,
    add_outbox_row,
    encode,
    post_signed,
    status,
    text_message,
)

OURS = "106540352242922"
FOREIGN = "999888777666555"
ANOTHER_FOREIGN = "111222333444555"


def _change(phone_number_id: str | None, value: dict[str, Any]) -> dict[str, Any]:
    metadata = {"display_phone_number": BUSINESS_NUMBER}
    if phone_number_id is not None:
        metadata["phone_number_id"] = phone_number_id
    return {"field": "messages", "value": {"messaging_product": "whatsapp", "metadata": metadata, **value}}


def _body(*changes: dict[str, Any]) -> bytes:
    """One body, one entry per change (as when one app serves several business numbers)."""
    entries = [{"id": f"10229012934039{index}", "changes": [change]} for index, change in enumerate(changes)]
    return encode({"object": "whatsapp_business_account", "entry": entries})


def _both_numbers() -> bytes:
    """Ours: a message and a status. Foreign: two messages and a status naming our message."""
    foreign_messages = [
        *text_message("wamid.FOREIGN1", context_id="wamid.OUT")["messages"],
        *text_message("wamid.FOREIGN2")["messages"],
    ]
    return _body(
        _change(OURS, {**text_message("wamid.OURS"), "statuses": [status("wamid.OUT", "delivered")]}),
        _change(
            FOREIGN,
            {
                **text_message("wamid.FOREIGN1"),
                "messages": foreign_messages,
                "statuses": [status("wamid.OUT", "read")],
            },
        ),
    )


@pytest.fixture
def ours(settings: Settings) -> Settings:
    """Settings naming our business number."""
    return replace(settings, whatsapp_phone_number_id=OURS)


def _foreign_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.levelno == logging.WARNING and "not applied" in record.getMessage()
    ]


def _post(client: FlaskClient, body: bytes) -> None:
    assert post_signed(client, body).status_code == 200


def _foreign_number_events(database: Database) -> int:
    with database.reader() as session:
        return counters.read(session, counters.FOREIGN_NUMBER_EVENTS)


def test_a_body_about_two_numbers_applies_only_ours_and_keeps_the_whole_body(
    database: Database, client: FlaskClient, ours: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    row_id = add_outbox_row(database, key="k", wamid="wamid.OUT")
    body = _both_numbers()
    _post(client, body)
    result = WebhookProcessor(build_parts(ours, database)).drain()
    assert (result.applied, result.foreign_events, result.failed_deliveries) == (2, 3, 0)
    with database.reader() as session:
        assert session.scalars(select(InboundMessage.wamid)).all() == ["wamid.OURS"]
        # The foreign `read` does not move our row: only our number's `delivered` is applied.
        assert session.get_one(OutboxMessage, row_id).state == "delivered"
        assert session.scalars(select(StatusEvent.status)).all() == ["delivered"]
        assert sorted(session.scalars(select(ProcessedEvent.event_key))) == [
            "msg:wamid.OURS",
            "status:wamid.OUT:delivered:",
        ]
        delivery = session.scalars(select(WebhookDelivery)).one()
        assert bytes(delivery.body) == body
        assert (delivery.processed_at is not None, delivery.parse_error) == (True, None)
    assert _foreign_number_events(database) == 3
    assert _foreign_warnings(caplog) == [
        f"webhook events for phone_number_id {FOREIGN!r} are stored but not applied: ours is {OURS!r}"
    ]


def test_each_foreign_number_is_logged_once_however_many_events_it_sends(
    database: Database, client: FlaskClient, ours: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    processor = WebhookProcessor(build_parts(ours, database))
    for index in range(3):
        _post(client, _body(_change(FOREIGN, text_message(f"wamid.F{index}"))))
        processor.drain()
    _post(client, _body(_change(ANOTHER_FOREIGN, text_message("wamid.G"))))
    # A change naming no number at all is not ours either.
    _post(client, _body(_change(None, text_message("wamid.H"))))
    processor.drain()
    warnings = _foreign_warnings(caplog)
    assert len(warnings) == 3
    assert [FOREIGN in warnings[0], ANOTHER_FOREIGN in warnings[1], "None" in warnings[2]] == [True] * 3
    assert _foreign_number_events(database) == 5
    with database.reader() as session:
        assert session.scalars(select(InboundMessage)).all() == []


def test_replay_applies_only_our_number_and_counts_nothing_again(
    database: Database, client: FlaskClient, ours: Settings
) -> None:
    add_outbox_row(database, key="k", wamid="wamid.OUT")
    _post(client, _both_numbers())
    WebhookProcessor(build_parts(ours, database)).drain()
    with database.transaction() as session:
        session.execute(delete(InboundMessage))
        session.execute(delete(ProcessedEvent).where(ProcessedEvent.event_key == "msg:wamid.OURS"))
    result = replay_since(database, NOW - timedelta(days=3650), phone_number_id=OURS)
    assert (result.applied, result.foreign_events) == (1, 3)
    with database.reader() as session:
        assert session.scalars(select(InboundMessage.wamid)).all() == ["wamid.OURS"]
    assert _foreign_number_events(database) == 3
    # No key was taken for the foreign events: once that number is ours, a replay applies them.
    result = replay_since(database, NOW - timedelta(days=3650), phone_number_id=FOREIGN)
    assert result.applied == 3
    with database.reader() as session:
        assert sorted(session.scalars(select(InboundMessage.wamid))) == [
            "wamid.FOREIGN1",
            "wamid.FOREIGN2",
            "wamid.OURS",
        ]


def test_without_a_configured_number_every_event_is_applied(
    database: Database, client: FlaskClient, processor: WebhookProcessor, settings: Settings
) -> None:
    assert settings.whatsapp_phone_number_id is None
    add_outbox_row(database, key="k", wamid="wamid.OUT")
    _post(client, _both_numbers())
    result = processor.drain()
    assert (result.applied, result.foreign_events) == (5, 0)
    assert _foreign_number_events(database) == 0


def test_metrics_show_foreign_events_and_cross_contact_quotes(
    database: Database, client: FlaskClient, ours: Settings
) -> None:
    add_outbox_row(database, key="theirs", wamid="wamid.THEIRS", to="+447911123456")
    _post(
        client, _body(_change(FOREIGN, text_message("wamid.F1")), _change(FOREIGN, text_message("wamid.F2")))
    )
    _post(client, _body(_change(OURS, text_message("wamid.CROSS", context_id="wamid.THEIRS"))))
    WebhookProcessor(build_parts(ours, database)).drain()
    with database.transaction() as session:
        token = create_user(session, "metrics-reader", "agent", NOW)
    measures = client.get("/v1/metrics", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert (measures["foreign_number_events"], measures["cross_contact_quotes"]) == (2, 1)
    text = client.get("/metrics").get_data(as_text=True)
    assert "\nforeign_number_events 2\n" in text
    assert "\ncross_contact_quotes 1\n" in text
    assert "# TYPE foreign_number_events counter" in text
