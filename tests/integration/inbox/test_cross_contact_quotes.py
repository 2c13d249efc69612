"""A quote or reaction is honoured only when it names a message of the same contact; others are counted."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select

from backend import counters
from backend.database import Database
from backend.database.models import Contact, InboundMessage, OutboxMessage
from backend.inbox.attribution import AttributionError, attribute_inbound
from backend.webhooks.processor import WebhookProcessor
from tests.conftest import journal_entries
from tests.integration.webhooks.support import (
    CUSTOMER,
    NOW,
    add_outbox_row,
    deliver,
    inbound,
    status,
    statuses,
    text_message,
    unix,
)

OTHER_CUSTOMER = "447911123456"


def _inbound(database: Database, wamid: str) -> InboundMessage:
    with database.reader() as session:
        return session.scalars(select(InboundMessage).where(InboundMessage.wamid == wamid)).one()


def _conversation_of(database: Database, row_id: int) -> int | None:
    with database.reader() as session:
        return session.get_one(OutboxMessage, row_id).conversation_id


def _cross_contact_quotes(database: Database) -> int:
    with database.reader() as session:
        return counters.read(session, counters.CROSS_CONTACT_QUOTES)


def _reaction(wamid: str, target: str, *, sender: str = CUSTOMER) -> dict[str, Any]:
    message = {
        "from": sender,
        "id": wamid,
        "timestamp": unix(NOW),
        "type": "reaction",
        "reaction": {"message_id": target, "emoji": "👍"},
    }
    return inbound(message, sender=sender)


def test_a_reply_quoting_a_message_sent_to_another_contact_is_filed_as_unquoted_and_counted(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    theirs = add_outbox_row(database, key="order-1:shipped", wamid="wamid.THEIRS", to="+" + OTHER_CUSTOMER)
    deliver(
        client,
        processor,
        text_message("wamid.PLAIN", body="no quote"),
        text_message("wamid.CROSS", body="Cancel it", context_id="wamid.THEIRS"),
    )
    plain, crossed = _inbound(database, "wamid.PLAIN"), _inbound(database, "wamid.CROSS")
    # Placed exactly as the message quoting nothing: the sender's own thread, chat (we never wrote to them).
    assert (plain.placement, plain.reply_to_message_id) == ("conversation", None)
    assert (crossed.placement, crossed.reply_to_message_id) == ("conversation", None)
    assert crossed.conversation_id == plain.conversation_id != _conversation_of(database, theirs)
    assert crossed.context_id == "wamid.THEIRS"
    with database.reader() as session:
        sender = session.get_one(Contact, crossed.contact_id)
    journaled = [entry.data for entry in journal_entries(database, "inbound.received")]
    assert sender.wa_id == CUSTOMER
    assert [(entry["placement"], entry["reply_to_key"]) for entry in journaled] == [
        ("conversation", None)
    ] * 2
    assert _cross_contact_quotes(database) == 1


def test_the_same_quote_from_the_contact_who_received_the_message_is_honoured(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    theirs = add_outbox_row(database, key="order-1:shipped", wamid="wamid.THEIRS", to="+" + OTHER_CUSTOMER)
    deliver(client, processor, text_message("wamid.OWN", context_id="wamid.THEIRS", sender=OTHER_CUSTOMER))
    reply = _inbound(database, "wamid.OWN")
    assert (reply.placement, reply.reply_to_message_id) == ("reply", theirs)
    assert reply.conversation_id == _conversation_of(database, theirs)
    assert _cross_contact_quotes(database) == 0


def test_a_reaction_to_another_contacts_message_attaches_to_nothing(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    theirs = add_outbox_row(database, key="order-1:shipped", wamid="wamid.THEIRS", to="+" + OTHER_CUSTOMER)
    deliver(
        client,
        processor,
        text_message("wamid.THEIR-TEXT", sender=OTHER_CUSTOMER),
        text_message("wamid.MY-TEXT"),
        _reaction("wamid.R-OUT", "wamid.THEIRS"),
        _reaction("wamid.R-IN", "wamid.THEIR-TEXT"),
        _reaction("wamid.R-MINE", "wamid.MY-TEXT"),
    )
    mine = _inbound(database, "wamid.MY-TEXT")
    to_our_message, to_their_text = _inbound(database, "wamid.R-OUT"), _inbound(database, "wamid.R-IN")
    own = _inbound(database, "wamid.R-MINE")
    # Each stays in the sender's thread as chat; only the reactions naming someone else's are counted.
    for reaction in (to_our_message, to_their_text, own):
        assert (reaction.placement, reaction.reply_to_message_id) == ("conversation", None)
        assert reaction.conversation_id == mine.conversation_id
    assert to_our_message.conversation_id != _conversation_of(database, theirs)
    assert _cross_contact_quotes(database) == 2


def test_a_reaction_to_another_contacts_message_in_the_same_body_attaches_to_nothing(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    theirs = text_message("wamid.THEIR-TEXT", sender=OTHER_CUSTOMER)
    reaction = _reaction("wamid.R-IN", "wamid.THEIR-TEXT")
    both = {
        "contacts": theirs["contacts"] + reaction["contacts"],
        "messages": theirs["messages"] + reaction["messages"],
    }
    deliver(client, processor, both)
    assert _inbound(database, "wamid.R-IN").placement == "conversation"
    assert _cross_contact_quotes(database) == 1


def test_a_quote_is_honoured_when_meta_reported_the_sender_as_the_recipient(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    # Some accounts' wa_id differs from the number the business dialled (here Brazil's extra mobile 9):
    # the status webhook names the account that received the message, and that account may quote it.
    row_id = add_outbox_row(database, key="k", wamid="wamid.OUT", to="+5511987654321")
    deliver(client, processor, statuses(status("wamid.OUT", "delivered", recipient="551187654321")))
    deliver(client, processor, text_message("wamid.IN", context_id="wamid.OUT", sender="551187654321"))
    reply = _inbound(database, "wamid.IN")
    assert (reply.placement, reply.reply_to_message_id) == ("reply", row_id)
    assert _cross_contact_quotes(database) == 0


def test_a_quote_is_honoured_when_the_sender_has_the_number_we_sent_to(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    # A wa_id written with a leading zero is another contact row, yet the same E.164 number.
    row_id = add_outbox_row(database, key="k", wamid="wamid.OUT")
    deliver(client, processor, text_message("wamid.IN", context_id="wamid.OUT", sender="0" + CUSTOMER))
    reply = _inbound(database, "wamid.IN")
    with database.reader() as session:
        assert session.get_one(Contact, reply.contact_id).wa_id == "0" + CUSTOMER
    assert (reply.placement, reply.reply_to_message_id) == ("reply", row_id)
    assert _cross_contact_quotes(database) == 0


def test_an_agent_cannot_link_a_cross_contact_reply_to_the_message_it_quoted(
    database: Database, client: FlaskClient, processor: WebhookProcessor, agent: int
) -> None:
    add_outbox_row(database, key="theirs", wamid="wamid.THEIRS", to="+" + OTHER_CUSTOMER)
    own = add_outbox_row(database, key="mine", wamid="wamid.MINE")
    deliver(client, processor, text_message("wamid.CROSS", context_id="wamid.THEIRS"))
    # Filed as if it quoted nothing, after a business message of its own sender's: a work item.
    assert _inbound(database, "wamid.CROSS").placement == "work_queue"
    with pytest.raises(AttributionError) as raised, database.transaction() as session:
        attribute_inbound(
            session, "wamid.CROSS", message_key="theirs", new_topic=False, user_id=agent, now=NOW
        )
    assert raised.value.code == "invalid_attribution"
    with database.transaction() as session:
        linked = attribute_inbound(
            session, "wamid.CROSS", message_key="mine", new_topic=False, user_id=agent, now=NOW
        )
        assert (linked.placement, linked.reply_to_message_id) == ("linked", own)


def test_an_agent_may_link_a_reply_to_a_message_meta_reported_delivered_to_its_sender(
    database: Database, client: FlaskClient, processor: WebhookProcessor, agent: int
) -> None:
    row_id = add_outbox_row(database, key="k", wamid="wamid.OUT", to="+5511987654321")
    deliver(client, processor, statuses(status("wamid.OUT", "delivered", recipient="551187654321")))
    deliver(client, processor, text_message("wamid.IN", sender="551187654321"))
    # The account Meta named is a contact of its own, with its own thread, where we never wrote.
    unlinked = _inbound(database, "wamid.IN")
    assert unlinked.placement == "conversation"
    assert unlinked.conversation_id != _conversation_of(database, row_id)
    with database.transaction() as session:
        linked = attribute_inbound(
            session, "wamid.IN", message_key="k", new_topic=False, user_id=agent, now=NOW
        )
        assert (linked.placement, linked.reply_to_message_id) == ("linked", row_id)
    # Linked, it moves to the thread of the message it answers.
    assert _inbound(database, "wamid.IN").conversation_id == _conversation_of(database, row_id)
    moved = journal_entries(database, "inbound.attributed")
    assert [(entry.data["wamid"], entry.data["conversation_id"]) for entry in moved] == [
        ("wamid.IN", _conversation_of(database, row_id))
    ]
