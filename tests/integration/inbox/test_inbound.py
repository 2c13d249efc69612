"""Inbound messages: stored once, threaded by context.id, choices by id, reactions attached, media kept."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select

from backend.database import Database
from backend.database.models import Contact, InboundMessage, OutboxMessage
from backend.webhooks.processor import WebhookProcessor
from tests.conftest import journal_entries
from tests.integration.webhooks.support import (
    BUSINESS_NUMBER,
    CUSTOMER,
    NOW,
    add_outbox_row,
    deliver,
    inbound,
    text_message,
    unix,
)


def _inbound(database: Database, wamid: str) -> InboundMessage:
    with database.reader() as session:
        return session.scalars(select(InboundMessage).where(InboundMessage.wamid == wamid)).one()


def _journal(database: Database, event_type: str) -> list[dict[str, Any]]:
    return [entry.data for entry in journal_entries(database, event_type) if entry.type == event_type]


def test_a_reply_is_threaded_by_context_id_to_the_message_it_answers(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    row_id = add_outbox_row(database, key="appointment-7:reminder", wamid="wamid.OUT7")
    deliver(client, processor, text_message("wamid.IN1", body="See you then", context_id="wamid.OUT7"))
    reply = _inbound(database, "wamid.IN1")
    with database.reader() as session:
        sent = session.get_one(OutboxMessage, row_id)
    assert (reply.placement, reply.reply_to_message_id) == ("reply", row_id)
    assert reply.conversation_id == sent.conversation_id
    assert (reply.text, reply.context_id, reply.sent_at) == ("See you then", "wamid.OUT7", NOW)
    assert _journal(database, "inbound.received") == [
        {
            "wamid": "wamid.IN1",
            "conversation_id": sent.conversation_id,
            "attributed": True,
            "placement": "reply",
            "reply_to_key": "appointment-7:reminder",
            "type": "text",
        }
    ]


@pytest.mark.parametrize("context_id", [None, "wamid.NOT-OURS"])
def test_no_context_or_an_unknown_context_after_a_business_message_goes_to_the_work_queue(
    database: Database, client: FlaskClient, processor: WebhookProcessor, context_id: str | None
) -> None:
    add_outbox_row(database, key="k", wamid="wamid.OUT1", at=NOW - timedelta(hours=1))
    deliver(client, processor, text_message("wamid.IN1", body="Yes", context_id=context_id))
    message = _inbound(database, "wamid.IN1")
    assert (message.placement, message.reply_to_message_id) == ("work_queue", None)
    assert [
        (entry["attributed"], entry["placement"]) for entry in _journal(database, "inbound.received")
    ] == [(False, "work_queue")]


def test_choices_are_stored_by_their_ids_never_matched_by_text(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    add_outbox_row(database, key="k", wamid="wamid.OUT1")
    context = {"from": BUSINESS_NUMBER, "id": "wamid.OUT1"}
    base = {"from": CUSTOMER, "timestamp": unix(NOW)}
    deliver(
        client,
        processor,
        inbound(
            {
                **base,
                "id": "wamid.B",
                "type": "button",
                "context": context,
                "button": {"payload": "CONFIRM-7", "text": "Confirm"},
            }
        ),
        inbound(
            {
                **base,
                "id": "wamid.R",
                "type": "interactive",
                "context": context,
                "interactive": {
                    "type": "button_reply",
                    "button_reply": {"id": "cancel-7", "title": "Cancel"},
                },
            }
        ),
        inbound(
            {
                **base,
                "id": "wamid.L",
                "type": "interactive",
                "context": context,
                "interactive": {
                    "type": "list_reply",
                    "list_reply": {"id": "slot-3", "title": "Friday 10:00"},
                },
            }
        ),
        # The same words typed after the buttons were answered: chat, never matched to a button by text.
        text_message("wamid.T", body="Confirm"),
    )
    chosen = {w: _inbound(database, w) for w in ("wamid.B", "wamid.R", "wamid.L", "wamid.T")}
    assert [(m.choice_kind, m.choice_id, m.choice_title) for m in chosen.values()] == [
        ("button", "CONFIRM-7", "Confirm"),
        ("button_reply", "cancel-7", "Cancel"),
        ("list_reply", "slot-3", "Friday 10:00"),
        (None, None, None),
    ]
    assert [(m.placement, m.reply_to_message_id is None) for m in chosen.values()] == [
        ("reply", False),
        ("reply", False),
        ("reply", False),
        ("conversation", True),
    ]


def test_reactions_attach_to_their_message_and_media_keeps_id_type_and_caption(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    row_id = add_outbox_row(database, key="k", wamid="wamid.OUT1")
    base = {"from": CUSTOMER, "timestamp": unix(NOW)}
    deliver(
        client,
        processor,
        inbound(
            {
                **base,
                "id": "wamid.IMG",
                "type": "image",
                "image": {
                    "id": "1479537139650973",
                    "mime_type": "image/jpeg",
                    "sha256": "x",
                    "caption": "the box",
                },
            }
        ),
        inbound(
            {
                **base,
                "id": "wamid.R1",
                "type": "reaction",
                "reaction": {"message_id": "wamid.OUT1", "emoji": "👍"},
            }
        ),
        inbound(
            {
                **base,
                "id": "wamid.R2",
                "type": "reaction",
                "reaction": {"message_id": "wamid.IMG", "emoji": ""},
            }
        ),
    )
    image = _inbound(database, "wamid.IMG")
    assert (image.media_id, image.media_mime_type, image.caption, image.type) == (
        "1479537139650973",
        "image/jpeg",
        "the box",
        "image",
    )
    to_ours = _inbound(database, "wamid.R1")
    assert (to_ours.reaction_target, to_ours.reaction_emoji, to_ours.reply_to_message_id) == (
        "wamid.OUT1",
        "👍",
        row_id,
    )
    removed = _inbound(database, "wamid.R2")
    # A reaction to the customer's own message is part of the chat, nothing to place.
    assert (removed.reaction_target, removed.reaction_emoji, removed.placement) == (
        "wamid.IMG",
        None,
        "conversation",
    )


def test_a_user_known_only_by_business_scoped_id_is_a_contact(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    message = {
        "from_user_id": "US.13491208655302741918",
        "id": "wamid.BSUID",
        "timestamp": unix(NOW),
        "type": "text",
        "text": {"body": "hi, no number here"},
    }
    value = {
        "contacts": [{"profile": {"name": "Ana"}, "user_id": "US.13491208655302741918"}],
        "messages": [message],
    }
    deliver(client, processor, value)
    stored = _inbound(database, "wamid.BSUID")
    with database.reader() as session:
        contact = session.get_one(Contact, stored.contact_id)
    assert (contact.wa_id, contact.user_id, contact.number, contact.profile_name) == (
        None,
        "US.13491208655302741918",
        None,
        "Ana",
    )


def test_each_message_is_stored_once_even_when_delivered_again(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    value = text_message("wamid.ONCE")
    deliver(client, processor, value, value)
    deliver(client, processor, value)
    with database.reader() as session:
        assert len(session.scalars(select(InboundMessage)).all()) == 1
    assert len(_journal(database, "inbound.received")) == 1


def test_the_window_follows_metas_timestamp_and_never_moves_back(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    later, earlier = NOW + timedelta(hours=2), NOW - timedelta(hours=5)
    deliver(
        client, processor, text_message("wamid.W1", sent_at=later), text_message("wamid.W2", sent_at=earlier)
    )
    with database.reader() as session:
        contact = session.scalars(select(Contact).where(Contact.wa_id == CUSTOMER)).one()
    assert contact.last_inbound_at == later
    assert contact.window_closes_at == later + timedelta(hours=24)
