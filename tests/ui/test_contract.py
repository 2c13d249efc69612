"""Every ApiClient method against the real backend, so the strict parser and the real shapes agree."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select, update

from app.commands.demo import DemoStack, start_stack
from backend.database.models import Contact, OutboxMessage, StatusEvent
from backend.settings import load_settings
from backend.users import create_user
from tests.ui.conftest import conversation_id_for, customer_writes, send_text, wait_for, wait_for_state
from ui.api.client import ApiClient, ApiError, ConversationChangedError
from ui.api.resources import (
    CONVERSATION_ASSIGNED,
    CONVERSATION_LABELS_CHANGED,
    CONVERSATION_STATUS_CHANGED,
    INBOUND_ATTRIBUTED,
    INBOUND_RECEIVED,
    MESSAGE_QUEUED,
    MESSAGE_STATE_CHANGED,
    NOTE_ADDED,
    PRESENCE_CHANGED,
    SUPERVISOR_DECISION,
    InboundMessage,
    Note,
    OutboundMessage,
    item_time,
)

pytestmark = pytest.mark.timeout(120)

CUSTOMER = "+16505551234"
HELD_CUSTOMER = "+447911123456"
# Keys holding every character a path treats specially, and one that imitates another key's route.
ODD_KEYS = ("order-1:shipped/resolve#", "a?b", "50%", "x&y+z w", "café", "..")
REAL_KEY = "order-1:shipped"
DECOY_KEY = "order-1:shipped/resolve#"


@pytest.fixture
def stack(database_url: str, tmp_path: Path) -> Iterator[DemoStack]:
    """The backend and sandbox, pacing sends to one customer closely: this test sends one many."""
    environ = {
        "INBOX_DATA_DIR": str(tmp_path),
        "INBOX_DATABASE_URL": database_url,
        "INBOX_PAIR_INTERVAL_SECONDS": "0.1",
    }
    running = start_stack(load_settings(environ=environ), customers=0, status_delay=0.05)
    yield running
    running.stop()


def _batch(stack: DemoStack, keys: tuple[str, ...], to: str) -> None:
    """Queue one text per key; a batch carries keys no header could."""
    messages = [{"key": key, "to": to, "purpose": "support", "text": f"Message {key}"} for key in keys]
    with stack.api() as client:
        response = client.post("/v1/messages/batch", json={"client_ref": keys[0], "messages": messages})
    assert response.status_code == 202, response.text


def _buttons(stack: DemoStack, to: str) -> str:
    """Send a question with two buttons; returns its key."""
    key = "question-1"
    with stack.api() as client:
        response = client.post(
            "/v1/messages",
            json={
                "to": to,
                "purpose": "feedback",
                "buttons": {
                    "body": "Keep it?",
                    "buttons": [{"id": "keep", "title": "Keep it"}, {"id": "no", "title": "No"}],
                },
            },
            headers={"Idempotency-Key": key},
        )
    assert response.status_code == 202, response.text
    return key


def test_every_client_method_reads_what_the_backend_sends(stack: DemoStack, api: ApiClient) -> None:
    assert api.health()
    me = api.identity()
    assert me.name == stack.user_name and me.is_supervisor

    customer_writes(stack, CUSTOMER, "Hi, is my order on its way?")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    customer_writes(stack, HELD_CUSTOMER, "Hello")
    held_conversation = conversation_id_for(stack, HELD_CUSTOMER)

    # Sends that need a decision: unknown (no answer), with a status seen, and held (window closed).
    stack.sandbox.set_faults(drop_rate=1.0)
    _batch(stack, (REAL_KEY, DECOY_KEY), CUSTOMER)
    for key in (REAL_KEY, DECOY_KEY):
        wait_for_state(stack, key, {"unknown"}, timeout=30)
    stack.sandbox.set_faults(reset=True)
    moment = datetime.now(UTC)
    with stack.database.transaction() as session:
        session.add(
            StatusEvent(
                wamid="wamid.seen",
                status="delivered",
                occurred_at=moment,
                callback_data=REAL_KEY,
                received_at=moment,
            )
        )
        session.execute(
            update(Contact)
            .where(Contact.number == HELD_CUSTOMER)
            .values(window_closes_at=moment - timedelta(hours=1))
        )
    held_key = send_text(stack, HELD_CUSTOMER, "Your parcel is at the depot.")
    wait_for_state(stack, held_key, {"held"})

    # A send Meta refused, and messages under keys with reserved characters.
    stack.sandbox.set_faults(message_failure_rate=1.0)
    failed_key = send_text(stack, CUSTOMER, "This one fails.")
    wait_for_state(stack, failed_key, {"failed"})
    stack.sandbox.set_faults(reset=True)
    odd_keys = tuple(key for key in ODD_KEYS if key != DECOY_KEY)
    _batch(stack, odd_keys, CUSTOMER)
    for key in odd_keys:
        assert api.message(key).key == key
    # Out before the replies below: paced one at a time, a send still queued could otherwise go out
    # after the offer and be the newest business message a reply may answer.
    for key in odd_keys:
        wait_for_state(stack, key, {"sent", "delivered", "read"})

    failed = api.message(failed_key)
    assert failed.state == "failed" and failed.error is not None
    assert (failed.error.reason, failed.error.code) == ("meta_error", 131026)

    queue = {item.key: item for item in api.supervisor_queue(limit=1000).items}
    assert {REAL_KEY, DECOY_KEY, held_key} <= set(queue)
    real = queue[REAL_KEY]
    assert real.reason == "unknown" and real.error is not None
    assert real.error.reason == "no_answer_after_send"
    assert [(evidence.wamid, evidence.status) for evidence in real.evidence] == [("wamid.seen", "delivered")]
    assert queue[held_key].reason == "held" and queue[held_key].conversation_id == held_conversation

    # A decision on the decoy lands on the decoy, never on the message whose route it imitates.
    cancelled = api.resolve(DECOY_KEY, "cancel")
    assert (cancelled.key, cancelled.state) == (DECOY_KEY, "cancelled")
    assert api.message(REAL_KEY).state == "unknown"
    assert api.resolve(REAL_KEY, "mark_sent").state == "sent"
    assert api.resolve(held_key, "cancel").state == "cancelled"
    with pytest.raises(ApiError) as not_found:
        api.message("no such key/resolve")
    assert (not_found.value.status, not_found.value.code) == (404, "not_found")

    # Two replies nobody can place, each right after a business message, and a quoted button answer.
    question = _buttons(stack, CUSTOMER)
    asked = wait_for_state(stack, question, {"sent", "delivered", "read"})
    loose = customer_writes(stack, CUSTOMER, "And the other parcel?")
    wait_for(lambda: loose in {item.wamid for item in api.work_queue().items})
    offer = send_text(stack, CUSTOMER, "Gift cards are 10% off this week.", purpose="marketing")
    wait_for_state(stack, offer, {"sent", "delivered", "read"})
    topic = customer_writes(stack, CUSTOMER, "Also, do you sell gift cards?")
    httpx.post(
        f"{stack.sandbox.url}/_sandbox/inbound",
        json={"from": CUSTOMER, "interactive_reply_id": "keep", "context_id": asked["wamid"]},
        timeout=10,
    ).raise_for_status()
    waiting = wait_for(lambda: {item.wamid for item in api.work_queue().items} >= {loose, topic})
    assert waiting
    candidates = {item.wamid: item.candidates for item in api.work_queue().items}
    # The offer is the newest business message since "loose"; nothing that went out before "loose" is.
    assert candidates[topic][0].key == offer
    assert question not in {candidate.key for candidate in candidates[topic]}
    # The question and the earlier sends nobody answered are candidates.
    assert question in {candidate.key for candidate in candidates[loose]} and len(candidates[loose]) > 1
    linked = api.attribute(loose, message_key=question)
    assert isinstance(linked, InboundMessage) and linked.wamid == loose and linked.attributed
    assert api.attribute(topic, new_topic=True).attributed

    def answered() -> OutboundMessage | None:
        for item in api.thread(conversation_id, limit=1000).items:
            if isinstance(item, OutboundMessage) and item.key == question and len(item.replies) == 2:
                return item
        return None

    thread_entry = wait_for(answered)
    assert sorted(reply.choice or "" for reply in thread_entry.replies) == ["", "Keep it"]
    assert api.thread(conversation_id, limit=1).next_cursor is not None

    # Conversations, assignment, reading, replying.
    listed = api.conversations(limit=1000)
    assert {conversation.id for conversation in listed.items} == {conversation_id, held_conversation}
    assert all(conversation.last_message for conversation in listed.items)
    assert api.conversations(query="no such customer").items == []
    assert api.conversation(conversation_id).contact.number == CUSTOMER
    assert api.assign(conversation_id, stack.user_name).assignee == stack.user_name
    assert api.conversations(view="mine").items[0].id == conversation_id
    assert api.assign(conversation_id, None).assignee is None
    assert api.mark_read(conversation_id).unread == 0
    reply = api.reply(conversation_id, "draft-1", text="Both parcels ship today.")
    assert reply.state in {"queued", "sending", "accepted", "sent", "delivered", "read"}
    templates = api.templates()
    assert templates and all(template.language for template in templates)
    template = templates[0]
    values = [f"value {number}" for number in range(len(template.parameters))]
    sent_template = api.reply(
        held_conversation,
        "draft-2",
        template={"name": template.name, "language": template.language, "parameters": values},
    )
    assert sent_template.to == HELD_CUSTOMER

    metrics = api.metrics()
    assert metrics.queue_depth["failed"] == 1 and metrics.queue_depth["cancelled"] == 2

    # The journal: every entry parses, and the client reads the ones it reacts to.
    events = []
    after = 0
    while True:
        batch = api.events(after=after, limit=1000)
        if not batch.events:
            break
        events.extend(batch.events)
        after = batch.next
    kinds = {event.type for event in events}
    assert {
        MESSAGE_QUEUED,
        MESSAGE_STATE_CHANGED,
        INBOUND_RECEIVED,
        INBOUND_ATTRIBUTED,
        CONVERSATION_ASSIGNED,
        SUPERVISOR_DECISION,
    } <= kinds
    assert batch.retry_after == 0
    assigned = [event for event in events if event.type == CONVERSATION_ASSIGNED]
    assert [event.assignee for event in assigned] == [stack.user_name, None]
    decisions = [event.key for event in events if event.type == SUPERVISOR_DECISION]
    assert decisions == [DECOY_KEY, REAL_KEY, held_key]
    with stack.database.reader() as session:
        stored = set(session.scalars(select(OutboxMessage.dedupe_key)))
    assert set(ODD_KEYS) <= stored


def test_a_long_poll_answers_after_waiting(stack: DemoStack, api: ApiClient) -> None:
    started = datetime.now(UTC)
    batch = api.events(after=10**9, wait=1)
    assert batch.events == [] and batch.next == 10**9
    assert datetime.now(UTC) - started >= timedelta(seconds=0.9)


def test_the_inbox_day_calls_read_what_the_backend_sends(stack: DemoStack, api: ApiClient) -> None:
    customer_writes(stack, CUSTOMER, "Hi, can I change my delivery address?")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    with stack.database.transaction() as session:
        colleague_token = create_user(session, "sam", "agent", datetime.now(UTC))
    colleague = ApiClient(stack.url, colleague_token)
    try:
        # Lifecycle: the default list is open and pending; a snooze carries its end.
        conversation = api.conversation(conversation_id)
        assert (conversation.status, conversation.snoozed_until, conversation.labels) == ("open", None, ())
        until = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=3)
        snoozed = api.set_status(conversation_id, "snoozed", until)
        assert (snoozed.status, snoozed.snoozed_until) == ("snoozed", until)
        assert api.conversations().items == []
        assert [item.id for item in api.conversations(status="snoozed").items] == [conversation_id]
        assert [item.id for item in api.conversations(status=["open", "snoozed"]).items] == [conversation_id]
        assert api.set_status(conversation_id, "resolved").status == "resolved"
        assert [item.id for item in api.conversations(status="all").items] == [conversation_id]
        assert api.set_status(conversation_id, "open").status == "open"
        with pytest.raises(ApiError) as invalid:
            api.set_status(conversation_id, "snoozed", datetime.now(UTC) - timedelta(hours=1))
        assert (invalid.value.status, invalid.value.code) == (400, "invalid_status")
        assert [item.id for item in api.conversations(window="open").items] == [conversation_id]
        assert api.conversations(window="closing").items == []

        # Labels and the filter.
        labelled = api.labels(conversation_id, add=["vip", "address change"])
        assert labelled.labels == ("address change", "vip")
        assert api.labels(conversation_id, remove=["address change"]).labels == ("vip",)
        assert [(label.name, label.count) for label in api.all_labels()] == [("vip", 1)]
        assert [item.id for item in api.conversations(label="vip").items] == [conversation_id]
        assert api.conversations(label="nothing").items == []

        # Presence: a colleague viewing and typing is seen by the conversation, its thread and the list.
        assert [viewer.user for viewer in colleague.presence(conversation_id, typing=True)] == ["sam"]
        viewers = api.presence(conversation_id, typing=False)
        assert {(viewer.user, viewer.typing) for viewer in viewers} == {
            ("sam", True),
            (stack.user_name, False),
        }
        assert ("sam", True) in {
            (viewer.user, viewer.typing) for viewer in api.conversation(conversation_id).viewers
        }
        assert ("sam", True) in {
            (viewer.user, viewer.typing) for viewer in api.thread(conversation_id).viewers
        }
        assert [viewer.user for viewer in api.presence(conversation_id, typing=False, viewing=False)] == [
            "sam"
        ]

        # Notes are thread items in time order.
        note = api.add_note(conversation_id, f"@{stack.user_name} please check the address")
        assert note.author == stack.user_name
        thread = api.thread(conversation_id).items
        assert isinstance(thread[-1], Note) and thread[-1].id == note.id
        seen_up_to = max(item_time(item) for item in thread)
        first_inbound = thread[0]
        assert isinstance(first_inbound, InboundMessage) and first_inbound.placement == "conversation"

        # A colleague answers after what we saw: our reply is refused, then sent with force.
        colleague.reply(conversation_id, "sam-1", text="Sure, what is the new address?")
        with pytest.raises(ConversationChangedError) as changed:
            api.reply(conversation_id, "draft-9", text="Which address?", seen_up_to=seen_up_to)
        assert [(message.created_by, message.body) for message in changed.value.messages] == [
            ("sam", "Sure, what is the new address?")
        ]
        forced = api.reply(
            conversation_id, "draft-9", text="Which address?", seen_up_to=seen_up_to, force=True
        )
        assert forced.key == "draft-9"
    finally:
        colleague.close()

    events = []
    after = 0
    while batch := api.events(after=after, limit=1000).events:
        events.extend(batch)
        after = batch[-1].seq
    kinds = {event.type for event in events}
    assert {CONVERSATION_STATUS_CHANGED, CONVERSATION_LABELS_CHANGED, PRESENCE_CHANGED, NOTE_ADDED} <= kinds
    statuses = [event.status for event in events if event.type == CONVERSATION_STATUS_CHANGED]
    assert statuses == ["snoozed", "resolved", "open"]
    mentions = [event.mentions for event in events if event.type == NOTE_ADDED]
    assert mentions == [(stack.user_name,)]
