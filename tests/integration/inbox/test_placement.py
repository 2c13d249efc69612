"""Where a customer's message lands: under the message it quotes, in the work queue, or in the chat."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from flask.testing import FlaskClient
from sqlalchemy import event, select

from app.composition import build_parts
from backend.database import Database
from backend.database.models import ConversationNote, InboundMessage
from backend.inbox.attribution import attribute_inbound
from backend.inbox.threads import thread, work_queue
from backend.settings import Settings
from backend.web import create_app
from backend.webhooks.processor import WebhookProcessor
from tests.conftest import journal_entries
from tests.integration.webhooks.support import (
    CUSTOMER,
    NOW,
    add_outbox_row,
    deliver,
    inbound,
    text_message,
    unix,
)

REMINDER_AT = NOW - timedelta(hours=2)
OTHER_CUSTOMER = "447911123456"


def _placement(database: Database, wamid: str) -> str:
    with database.reader() as session:
        return session.scalars(select(InboundMessage.placement).where(InboundMessage.wamid == wamid)).one()


def _work_items(database: Database) -> dict[str, list[str]]:
    """Each work item's wamid with the keys of its candidates, newest first."""
    with database.reader() as session:
        page = work_queue(session, limit=100, offset=0)
    return {item["wamid"]: [candidate["key"] for candidate in item["candidates"]] for item in page.items}


def _reminder(database: Database, key: str, at: datetime, **extra: Any) -> int:
    return add_outbox_row(database, key=key, wamid=f"wamid.{key}", at=at, **extra)


def _agent_reply(database: Database, key: str, at: datetime) -> int:
    return add_outbox_row(database, key=key, wamid=f"wamid.{key}", at=at, origin="agent")


def test_a_first_contact_is_conversation(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    # A reminder to someone else says nothing about this customer.
    _reminder(database, "theirs", REMINDER_AT, to="+" + OTHER_CUSTOMER)
    deliver(client, processor, text_message("wamid.HELLO", body="Hello, is the shop open today?"))
    assert _placement(database, "wamid.HELLO") == "conversation"
    assert _work_items(database) == {}
    journaled = [entry.data for entry in journal_entries(database, "inbound.received")]
    assert [(entry["placement"], entry["attributed"]) for entry in journaled] == [("conversation", True)]


def test_plain_chat_after_an_agent_reply_is_conversation(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    deliver(client, processor, text_message("wamid.ASK", body="Where is my order?", sent_at=REMINDER_AT))
    _agent_reply(database, "reply-1", REMINDER_AT + timedelta(minutes=1))
    deliver(client, processor, text_message("wamid.ANSWER", body="It is 4471"))
    assert [_placement(database, wamid) for wamid in ("wamid.ASK", "wamid.ANSWER")] == [
        "conversation",
        "conversation",
    ]


def test_an_unquoted_reply_after_a_business_message_is_a_work_item_with_that_candidate(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    _reminder(database, "appointment-7", REMINDER_AT, text="Your appointment is tomorrow at 10:00")
    deliver(client, processor, text_message("wamid.YES", body="yes"))
    assert _placement(database, "wamid.YES") == "work_queue"
    with database.reader() as session:
        [item] = work_queue(session, limit=10, offset=0).items
    assert (item["wamid"], item["placement"]) == ("wamid.YES", "work_queue")
    assert item["candidates"] == [
        {
            "key": "appointment-7",
            "wamid": "wamid.appointment-7",
            "purpose": "test",
            "body": "Your appointment is tomorrow at 10:00",
            "sent_at": "2026-11-29T07:00:00Z",
        }
    ]
    journaled = [entry.data for entry in journal_entries(database, "inbound.received")]
    assert [(entry["placement"], entry["attributed"]) for entry in journaled] == [("work_queue", False)]


def test_yes_to_two_reminders_lists_both_candidates_newest_first(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    _reminder(database, "dentist", REMINDER_AT)
    _reminder(database, "haircut", REMINDER_AT + timedelta(minutes=30))
    deliver(client, processor, text_message("wamid.YES", body="yes"))
    assert _work_items(database) == {"wamid.YES": ["haircut", "dentist"]}


def test_an_agent_reply_ends_the_business_messages_claim(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    _reminder(database, "dentist", REMINDER_AT)
    _agent_reply(database, "reply-1", REMINDER_AT + timedelta(minutes=10))
    deliver(client, processor, text_message("wamid.THANKS", body="thanks!"))
    assert _placement(database, "wamid.THANKS") == "conversation"


def test_a_business_message_after_the_agent_reply_claims_again(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    _reminder(database, "dentist", REMINDER_AT)
    _agent_reply(database, "reply-1", REMINDER_AT + timedelta(minutes=10))
    _reminder(database, "survey", REMINDER_AT + timedelta(minutes=20))
    deliver(client, processor, text_message("wamid.FIVE", body="5"))
    assert _work_items(database) == {"wamid.FIVE": ["survey"]}


def test_a_quoted_reply_is_a_reply(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    row_id = _reminder(database, "dentist", REMINDER_AT)
    _reminder(database, "haircut", REMINDER_AT + timedelta(minutes=30))
    deliver(client, processor, text_message("wamid.YES", body="yes", context_id="wamid.dentist"))
    with database.reader() as session:
        reply = session.scalars(select(InboundMessage).where(InboundMessage.wamid == "wamid.YES")).one()
    assert (reply.placement, reply.reply_to_message_id) == ("reply", row_id)
    assert _work_items(database) == {}


def test_a_business_message_sent_after_the_customers_message_does_not_count(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    _reminder(database, "dentist", NOW + timedelta(minutes=1))
    deliver(client, processor, text_message("wamid.HI", body="hi"))
    assert _placement(database, "wamid.HI") == "conversation"


def test_a_business_message_within_the_customers_second_counts(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    # Meta's timestamps are whole seconds: a reply stamped 09:00:00 may come after our 09:00:00.4.
    _reminder(database, "dentist", NOW + timedelta(milliseconds=400))
    deliver(client, processor, text_message("wamid.YES", body="yes"))
    assert _work_items(database) == {"wamid.YES": ["dentist"]}


class _StepClock:
    """Our clock, set by the test."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


def test_whole_second_stamps_are_told_apart_by_when_we_received_the_message(
    database: Database, settings: Settings
) -> None:
    clock = _StepClock(NOW + timedelta(milliseconds=200))
    parts = build_parts(settings, database, clock=clock)
    client, processor = create_app(parts).test_client(), WebhookProcessor(parts)
    deliver(client, processor, text_message("wamid.HELLO", body="Hello"))
    # Out within the second "Hello" is stamped with, yet after we had received it: it came after "Hello".
    _reminder(database, "table-booked", NOW + timedelta(milliseconds=500))
    clock.moment = NOW + timedelta(seconds=3, milliseconds=100)
    deliver(
        client,
        processor,
        text_message("wamid.EIGHT", body="Can we make it 8?", sent_at=NOW + timedelta(seconds=3)),
    )
    # Out within the second "Can we make it 8?" is stamped with, yet after we had received it: not what
    # that message answers, but a candidate for the next one.
    _reminder(database, "menu", NOW + timedelta(seconds=3, milliseconds=600))
    clock.moment = NOW + timedelta(seconds=3, milliseconds=800)
    deliver(client, processor, text_message("wamid.NINE", body="or 9", sent_at=NOW + timedelta(seconds=3)))
    assert _placement(database, "wamid.HELLO") == "conversation"
    assert _work_items(database) == {"wamid.EIGHT": ["table-booked"], "wamid.NINE": ["menu"]}


def test_a_business_message_before_the_customers_previous_message_does_not_count(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    _reminder(database, "dentist", REMINDER_AT)
    deliver(
        client, processor, text_message("wamid.FIRST", body="ok", sent_at=REMINDER_AT + timedelta(hours=1))
    )
    deliver(client, processor, text_message("wamid.SECOND", body="see you"))
    assert _placement(database, "wamid.FIRST") == "work_queue"
    assert _placement(database, "wamid.SECOND") == "conversation"
    assert _work_items(database) == {"wamid.FIRST": ["dentist"]}


def test_a_queued_or_failed_business_message_does_not_count(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    add_outbox_row(database, key="queued", wamid=None, state="queued", at=REMINDER_AT)
    add_outbox_row(database, key="unknown", wamid=None, state="unknown", at=REMINDER_AT)
    add_outbox_row(database, key="failed", wamid="wamid.failed", state="failed", at=REMINDER_AT)
    deliver(client, processor, text_message("wamid.HI", body="hi"))
    assert _placement(database, "wamid.HI") == "conversation"


def test_an_away_message_neither_claims_nor_ends_a_claim(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    _reminder(database, "dentist", REMINDER_AT)
    add_outbox_row(
        database, key="away", wamid="wamid.away", at=REMINDER_AT + timedelta(minutes=5), origin="auto"
    )
    deliver(client, processor, text_message("wamid.YES", body="yes"))
    assert _work_items(database) == {"wamid.YES": ["dentist"]}


def test_two_messages_of_one_customer_in_one_batch_in_either_order(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    _reminder(database, "dentist", REMINDER_AT)
    _reminder(database, "haircut", REMINDER_AT, to="+" + OTHER_CUSTOMER)
    first = text_message("wamid.YES", body="yes")
    second = text_message("wamid.DOG", body="can I bring my dog?", sent_at=NOW + timedelta(seconds=20))
    # The other customer's messages arrive latest first: their time, not their order, decides.
    later = text_message("wamid.B2", sender=OTHER_CUSTOMER, sent_at=NOW + timedelta(seconds=30))
    earlier = text_message("wamid.B1", sender=OTHER_CUSTOMER, sent_at=NOW + timedelta(seconds=10))
    batch = [first, second, later, earlier]
    body = {
        "contacts": [contact for value in batch for contact in value["contacts"]],
        "messages": [message for value in batch for message in value["messages"]],
    }
    deliver(client, processor, body)
    placements = {
        wamid: _placement(database, wamid) for wamid in ("wamid.YES", "wamid.DOG", "wamid.B1", "wamid.B2")
    }
    assert placements == {
        "wamid.YES": "work_queue",
        "wamid.DOG": "conversation",
        "wamid.B1": "work_queue",
        "wamid.B2": "conversation",
    }
    assert _work_items(database) == {"wamid.YES": ["dentist"], "wamid.B1": ["haircut"]}


def test_a_message_delivered_late_is_placed_by_its_own_time(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    _reminder(database, "dentist", REMINDER_AT)
    _reminder(database, "haircut", NOW - timedelta(minutes=2))
    deliver(client, processor, text_message("wamid.LATER", body="also, parking?"))
    assert _work_items(database) == {"wamid.LATER": ["haircut", "dentist"]}
    # Written between the reminders, delivered last: it answers the first; the other message keeps only
    # what came after it.
    deliver(client, processor, text_message("wamid.EARLIER", body="yes", sent_at=NOW - timedelta(minutes=5)))
    assert _work_items(database) == {"wamid.LATER": ["haircut"], "wamid.EARLIER": ["dentist"]}


def test_a_work_item_that_a_late_message_answers_becomes_conversation(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    _reminder(database, "dentist", REMINDER_AT)
    deliver(client, processor, text_message("wamid.LATER", body="also, parking?"))
    deliver(client, processor, text_message("wamid.EARLIER", body="yes", sent_at=NOW - timedelta(minutes=5)))
    assert _work_items(database) == {"wamid.EARLIER": ["dentist"]}
    assert _placement(database, "wamid.LATER") == "conversation"


def test_after_a_new_topic_the_next_message_is_conversation(
    database: Database, client: FlaskClient, processor: WebhookProcessor, agent: int
) -> None:
    _reminder(database, "dentist", REMINDER_AT)
    deliver(client, processor, text_message("wamid.Q", body="do you sell gift cards?", sent_at=NOW))
    assert _placement(database, "wamid.Q") == "work_queue"
    with database.transaction() as session:
        attribute_inbound(session, "wamid.Q", message_key=None, new_topic=True, user_id=agent, now=NOW)
    deliver(
        client, processor, text_message("wamid.MORE", body="for 50 euros", sent_at=NOW + timedelta(minutes=1))
    )
    assert (_placement(database, "wamid.Q"), _placement(database, "wamid.MORE")) == (
        "new_topic",
        "conversation",
    )
    assert _work_items(database) == {}


def test_a_reaction_to_the_customers_own_message_is_conversation_and_to_ours_a_reply(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    _reminder(database, "dentist", REMINDER_AT)
    base = {"from": CUSTOMER, "timestamp": unix(NOW)}
    deliver(
        client,
        processor,
        text_message("wamid.OOPS", body="sorry wrong chat", sent_at=NOW - timedelta(minutes=1)),
        inbound(
            {
                **base,
                "id": "wamid.R1",
                "type": "reaction",
                "reaction": {"message_id": "wamid.OOPS", "emoji": "🙈"},
            }
        ),
        inbound(
            {
                **base,
                "id": "wamid.R2",
                "type": "reaction",
                "reaction": {"message_id": "wamid.dentist", "emoji": "👍"},
            }
        ),
    )
    assert [_placement(database, wamid) for wamid in ("wamid.OOPS", "wamid.R1", "wamid.R2")] == [
        "work_queue",
        "conversation",
        "reply",
    ]


def test_the_thread_shows_each_placement_and_notes_in_time_order(
    database: Database, client: FlaskClient, processor: WebhookProcessor, agent: int
) -> None:
    reminder = _reminder(database, "dentist", REMINDER_AT)
    deliver(client, processor, text_message("wamid.YES", body="yes", context_id="wamid.dentist"))
    deliver(
        client, processor, text_message("wamid.HI", body="one more thing", sent_at=NOW + timedelta(minutes=1))
    )
    with database.transaction() as session:
        conversation_id = session.scalars(
            select(InboundMessage.conversation_id).where(InboundMessage.wamid == "wamid.HI")
        ).one()
        received_at = session.scalars(
            select(InboundMessage.received_at).where(InboundMessage.wamid == "wamid.HI")
        ).one()
        session.add(
            ConversationNote(
                conversation_id=conversation_id,
                author_id=agent,
                text="Called her back, all fine",
                mentions=[],
                created_at=received_at + timedelta(seconds=1),
            )
        )
    with database.reader() as session:
        items = thread(session, conversation_id, limit=10, offset=0).items
        second_page = thread(session, conversation_id, limit=1, offset=2)
    assert [item["direction"] for item in items] == ["outbound", "inbound", "note"]
    outbound, chat, note = items
    assert [(reply["wamid"], reply["placement"], reply["attributed"]) for reply in outbound["replies"]] == [
        ("wamid.YES", "reply", True)
    ]
    assert (chat["wamid"], chat["placement"], chat["attributed"]) == ("wamid.HI", "conversation", True)
    assert {key: note[key] for key in ("direction", "author", "text")} == {
        "direction": "note",
        "author": "ada",
        "text": "Called her back, all fine",
    }
    assert isinstance(note["id"], int) and note["created_at"].endswith("Z")
    assert [item["direction"] for item in second_page.items] == ["note"] and not second_page.has_more
    assert reminder


@contextmanager
def _counting_queries(database: Database) -> Iterator[list[str]]:
    statements: list[str] = []

    def count(_connection: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    event.listen(database.engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(database.engine, "before_cursor_execute", count)


def test_a_batch_and_a_work_queue_page_take_a_few_queries_whatever_their_size(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    customers = [f"1650555{index:04d}" for index in range(60)]
    for customer in customers:
        _reminder(database, f"dentist-{customer}", REMINDER_AT, to="+" + customer)
        _reminder(database, f"haircut-{customer}", REMINDER_AT + timedelta(minutes=1), to="+" + customer)
    values = [text_message(f"wamid.{customer}", sender=customer, body="yes") for customer in customers]
    body = {
        "contacts": [contact for value in values for contact in value["contacts"]],
        "messages": [message for value in values for message in value["messages"]],
    }
    with _counting_queries(database) as statements:
        deliver(client, processor, body)
    placing = [
        statement
        for statement in statements
        if "outbox_messages" in statement and "inbound_messages" in statement
    ]
    assert len(placing) == 1
    with _counting_queries(database) as statements, database.reader() as session:
        page = work_queue(session, limit=50, offset=0)
    assert len(page.items) == 50 and page.has_more
    assert all(len(item["candidates"]) == 2 for item in page.items)
    assert len(statements) <= 3
