"""Retention: old keys and processed bodies go, unprocessed bodies and unfinished rows stay."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from flask.testing import FlaskClient
from sqlalchemy import select, update

from app.composition import build_parts
from backend.database import Database
from backend.database.models import (
    IdempotencyRecord,
    InboundMessage,
    OutboxMessage,
    ProcessedEvent,
    User,
    WebhookDelivery,
)
from backend.inbox.retention import RetentionSweeper
from backend.settings import PurposeRule, Settings
from backend.users import create_user
from backend.webhooks.processor import WebhookProcessor
from tests.integration.webhooks.support import (
    NOW,
    add_outbox_row,
    deliver,
    encode,
    envelope,
    post_signed,
    text_message,
)


def test_old_things_go_and_unfinished_things_stay(
    database: Database, client: FlaskClient, processor: WebhookProcessor, settings: Settings
) -> None:
    add_outbox_row(database, key="old-finished", wamid="wamid.OLD", state="read")
    waiting = add_outbox_row(database, key="old-unknown", wamid=None, state="unknown")
    short = add_outbox_row(database, key="short-lived", wamid="wamid.SHORT", state="delivered")
    deliver(client, processor, text_message("wamid.REPLY", context_id="wamid.OLD"))
    assert post_signed(client, encode(envelope(text_message("wamid.PENDING")))).status_code == 200
    long_ago = NOW - timedelta(days=40)
    with database.transaction() as session:
        session.execute(update(WebhookDelivery).values(received_at=long_ago))
        session.execute(update(ProcessedEvent).values(processed_at=long_ago))
        session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id != short)
            .values(updated_at=NOW - timedelta(days=100))
        )
        session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id == short)
            .values(purpose="otp", updated_at=NOW - timedelta(days=8))
        )
    otp_kept_a_week = replace(settings, purposes={"otp": PurposeRule(retention_days=7)})
    sweeper = RetentionSweeper(build_parts(otp_kept_a_week, database, clock=lambda: NOW))
    result = sweeper.run_once()
    assert (result.event_keys, result.raw_bodies, result.outbox_rows) == (1, 1, 2)
    with database.reader() as session:
        assert [row.id for row in session.scalars(select(OutboxMessage))] == [waiting]
        # The unprocessed body is the only copy of its message: kept whatever its age.
        assert [row.processed_at for row in session.scalars(select(WebhookDelivery))] == [None]
        reply = session.scalars(select(InboundMessage)).one()
        assert (reply.wamid, reply.reply_to_message_id) == ("wamid.REPLY", None)
    assert sweeper.run_once() == type(result)()


def test_idempotency_records_older_than_a_day_are_purged(database: Database, settings: Settings) -> None:
    with database.transaction() as session:
        user_id = session.scalars(select(User.id)).first()
        if user_id is None:
            create_user(session, "retention-tester", "agent", NOW)
            user_id = session.scalars(select(User.id)).one()
        for key, age in (("old", timedelta(hours=25)), ("fresh", timedelta(hours=23))):
            session.add(
                IdempotencyRecord(
                    user_id=user_id,
                    key=key,
                    method="POST",
                    path="/v1/messages",
                    fingerprint="0" * 64,
                    state="done",
                    response_status=202,
                    response_body="{}",
                    created_at=NOW - age,
                )
            )
    result = RetentionSweeper(build_parts(settings, database, clock=lambda: NOW)).run_once()
    assert result.idempotency_records == 1
    with database.reader() as session:
        assert list(session.scalars(select(IdempotencyRecord.key))) == ["fresh"]
