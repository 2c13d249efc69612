"""The processor's SQLite batches: parsed before the write lock, bounded in events, pending bodies only."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select, update

from backend.database import Database
from backend.database.models import StatusEvent, WebhookDelivery
from backend.webhooks import processor as processor_module
from backend.webhooks.processor import WebhookProcessor
from tests.integration.webhooks.support import (
    NOW,
    add_outbox_row,
    encode,
    envelope,
    post_signed,
    status,
    statuses,
)


def _post_statuses(client: FlaskClient, wamids: list[str]) -> None:
    value = statuses(*(status(wamid, "delivered") for wamid in wamids))
    response = post_signed(client, encode(envelope(value)))
    assert response.status_code == 200


def _pending(database: Database) -> int:
    with database.reader() as session:
        return (
            session.scalar(
                select(func.count())
                .select_from(WebhookDelivery)
                .where(WebhookDelivery.processed_at.is_(None))
            )
            or 0
        )


def test_a_sqlite_batch_stops_taking_bodies_once_it_holds_enough_events(
    database: Database, client: FlaskClient, processor: WebhookProcessor, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not database.is_sqlite:
        pytest.skip("PostgreSQL batches are bounded by bodies only: its writers do not share one lock")
    monkeypatch.setattr(processor_module, "MAX_EVENTS_PER_SQLITE_BATCH", 5)
    for body in range(4):
        wamids = [f"wamid.B{body}-{n}" for n in range(3)]
        for wamid in wamids:
            add_outbox_row(database, key=wamid, wamid=wamid, at=NOW)
        _post_statuses(client, wamids)

    first = processor.run_once()
    # 3 events, then 6 ≥ 5: the second body closes the batch; the other two wait for the next one.
    assert (first.deliveries, first.applied) == (2, 6)
    assert _pending(database) == 2
    second = processor.run_once()
    assert (second.deliveries, second.applied) == (2, 6)
    assert _pending(database) == 0


def test_a_body_processed_meanwhile_is_not_applied_again(
    database: Database, client: FlaskClient, processor: WebhookProcessor, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not database.is_sqlite:
        pytest.skip("on PostgreSQL the pending bodies are read and locked in the applying transaction")
    add_outbox_row(database, key="k-meanwhile", wamid="wamid.M1", at=NOW)
    _post_statuses(client, ["wamid.M1"])
    parse = WebhookProcessor._parse

    def parse_then_someone_else_finishes(self: WebhookProcessor, delivery_id: int, body: bytes) -> object:
        parsed = parse(self, delivery_id, body)
        # Another processor (a replay, say) finishes the body between the read and the write lock.
        with database.transaction() as session:
            session.execute(update(WebhookDelivery).values(processed_at=NOW))
        return parsed

    monkeypatch.setattr(WebhookProcessor, "_parse", parse_then_someone_else_finishes)
    result = processor.run_once()
    assert result.deliveries == 0
    with database.reader() as session:
        assert session.scalar(select(func.count()).select_from(StatusEvent)) == 0
