"""Enqueue: one row per business event, numbers normalised once, bad requests store nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select

from backend import counters
from backend.database import Database
from backend.database.models import OutboxMessage
from backend.domain.messages import Button, ButtonsRequest, MessageError, TemplateRequest
from backend.outbox.enqueue import MessageRequest, enqueue
from backend.settings import load_settings
from backend.templates import load_templates
from tests.conftest import journal_entries

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
