"""Enqueue: one row per business event, numbers normalised once, bad requests store nothing."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from backend import counters
from backend.database import Database
from backend.database.models import Contact, Conversation, JournalEntry, OutboxMessage, PendingJournalEntry
from backend.domain.messages import Button, ButtonsRequest, MessageError, TemplateRequest
from backend.domain.origins import ORIGIN_AGENT, ORIGIN_API
from backend.inbox.contacts import contact_for_number
from backend.outbox.enqueue import MessageRequest, Placed, enqueue, enqueue_many
from backend.settings import PurposeRule, Settings, load_settings
from backend.templates import load_templates
from tests.conftest import journal_entries
from tests.integration.web.conftest import add_inbound

NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


@pytest.fixture
def settings(tmp_path: Path):  # type: ignore[no-untyped-def]
    return load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)})


def _enqueue(database: Database, settings, request: MessageRequest):  # type: ignore[no-untyped-def]
    with database.transaction() as session:
        return enqueue(session, request, templates=load_templates(), settings=settings, now=NOW)


def test_a_second_enqueue_of_a_key_changes_nothing_and_is_counted(database: Database, settings) -> None:  # type: ignore[no-untyped-def]
    request = MessageRequest(
        dedupe_key="order-44812:shipped:16505551234",
        to="16505551234",
        purpose="order_shipped",
        template=TemplateRequest("order_shipped", "en", ("44812",)),
    )
    first = _enqueue(database, settings, request)
    second = _enqueue(database, settings, MessageRequest(**{**request.__dict__, "purpose": "other"}))
    assert first.created and not second.created
    assert second.message.id == first.message.id
    with database.reader() as session:
        assert session.scalar(select(func.count()).select_from(OutboxMessage)) == 1
        row = session.scalars(select(OutboxMessage)).one()
        assert row.to_number == "+16505551234"
        assert row.purpose == "order_shipped"
        assert row.state == "queued"
        assert counters.read(session, counters.DEDUPE_REJECTIONS) == 1
    assert len(journal_entries(database)) == 1


@pytest.mark.parametrize(
    ("request_fields", "code"),
    [
        ({"to": "123", "text": "hi"}, "invalid_recipient"),
        ({"to": "16505551234", "text": "x" * 4097}, "invalid_message"),
        ({"to": "16505551234", "text": "hi", "purpose": "has space"}, "invalid_message"),
        ({"to": "16505551234", "template": TemplateRequest("order_shipped", "en", ())}, "invalid_template"),
        ({"to": "16505551234", "template": TemplateRequest("nope", "en", ())}, "invalid_template"),
        ({"to": "16505551234"}, "invalid_message"),
        (
            {
                "to": "16505551234",
                "buttons": ButtonsRequest("pick", tuple(Button(str(i), str(i)) for i in range(4))),
            },
            "invalid_message",
        ),
    ],
)
def test_bad_requests_store_nothing(database: Database, settings, request_fields: dict, code: str) -> None:  # type: ignore[no-untyped-def,type-arg]
    fields = {"dedupe_key": "k", "purpose": "support", **request_fields}
    with pytest.raises(MessageError) as error:
        _enqueue(database, settings, MessageRequest(**fields))
    assert error.value.code == code
    with database.reader() as session:
        assert session.scalar(select(func.count()).select_from(OutboxMessage)) == 0


# Small pools, so a generated list repeats keys and numbers, meets keys that exist before it, and
# sends marketing to contacts who opted out.
KEYS = [f"event-{i}" for i in range(6)]
NUMBERS = ["+16505550101", "+16505550102", "+16505550103"]
OPTED_OUT = "+16505550103"
EXISTING_KEY = "event-0"
MARKETING_PURPOSE = "newsletter"


class _ReadThenRollBackError(Exception):
    """Ends a transaction whose state the test has read, so the next example starts from the same one."""


def _requests_strategy():  # type: ignore[no-untyped-def]
    request = st.builds(
        lambda key, number, purpose, origin, text: MessageRequest(
            dedupe_key=key, to=number, purpose=purpose, origin=origin, text=text
        ),
        st.sampled_from(KEYS),
        st.sampled_from(NUMBERS),
        st.sampled_from(["support", MARKETING_PURPOSE]),
        st.sampled_from([ORIGIN_API, ORIGIN_AGENT]),
        st.sampled_from(["Your order has shipped.", "We are open until six."]),
    )
    return st.lists(request, min_size=1, max_size=12)


def _state(session: Session) -> dict[str, Any]:
    """What enqueueing leaves behind, without ids that depend on insertion order across tables."""
    # PostgreSQL numbers entries after the commit: within the transaction they are still pending.
    pending = session.get_bind().dialect.name == "postgresql"
    journal_query = (
        select(PendingJournalEntry.type, PendingJournalEntry.data).order_by(PendingJournalEntry.id)
        if pending
        else select(JournalEntry.type, JournalEntry.data).order_by(JournalEntry.seq)
    )
    numbers_of = dict(session.execute(select(Contact.id, Contact.number)).all())
    conversation_numbers = {
        conversation_id: numbers_of[contact_id]
        for conversation_id, contact_id in session.execute(select(Conversation.id, Conversation.contact_id))
    }
    return {
        "rows": sorted(
            (
                row.dedupe_key,
                row.to_number,
                row.purpose,
                row.origin,
                row.payload,
                row.marketing,
                conversation_numbers[row.conversation_id],
                row.waiting_since,
            )
            for row in session.scalars(select(OutboxMessage))
        ),
        "contacts": sorted(numbers_of.values()),
        "conversations": sorted(conversation_numbers.values()),
        "duplicates": counters.read(session, counters.DEDUPE_REJECTIONS),
        "journal": [
            (entry_type, data["key"], conversation_numbers[data["conversation_id"]])
            for entry_type, data in session.execute(journal_query)
            if entry_type == "message.queued"
        ],
    }


def _outcome(placed: Placed | MessageError, ids_to_keys: dict[int, str]) -> tuple[str, str]:
    if isinstance(placed, MessageError):
        return ("refused", placed.code)
    return ("created" if placed.created else "duplicate", ids_to_keys[placed.id])


def test_a_list_enqueued_at_once_leaves_what_enqueueing_it_one_by_one_leaves(
    database: Database, settings: Settings
) -> None:
    """Same rows, contacts, conversations, counters, journal and answers, whatever the mix of keys."""
    settings = replace(settings, purposes={MARKETING_PURPOSE: PurposeRule(marketing=True)})
    templates = load_templates()
    with database.transaction() as session:
        # A customer who opted out; a key queued before; a customer waiting for a reply by a person.
        contact = contact_for_number(session, OPTED_OUT, NOW)
        contact.opted_out_at = NOW
        enqueue(
            session,
            MessageRequest(dedupe_key=EXISTING_KEY, to=NUMBERS[0], purpose="support", text="Earlier."),
            templates=templates,
            settings=settings,
            now=NOW,
        )
    add_inbound(database, NUMBERS[1], "wamid.question", at=NOW - timedelta(minutes=5))

    def run(requests: list[MessageRequest], *, at_once: bool) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        try:
            with database.transaction() as session:
                if at_once:
                    placed = enqueue_many(session, requests, templates=templates, settings=settings, now=NOW)
                else:
                    placed = []
                    for request in requests:
                        try:
                            result = enqueue(
                                session, request, templates=templates, settings=settings, now=NOW
                            )
                        except MessageError as error:
                            placed.append(error)
                        else:
                            placed.append(Placed(result.message.id, created=result.created))
                keys = dict(session.execute(select(OutboxMessage.id, OutboxMessage.dedupe_key)).all())
                outcome = (_state(session), [_outcome(one, keys) for one in placed])
                raise _ReadThenRollBackError
        except _ReadThenRollBackError:
            return outcome

    @hypothesis_settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(requests=_requests_strategy())
    def check(requests: list[MessageRequest]) -> None:
        assert run(requests, at_once=True) == run(requests, at_once=False)

    check()
