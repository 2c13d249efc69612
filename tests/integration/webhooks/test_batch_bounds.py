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


class _RecordingStop:
    """A stop event that records each pause the processor takes and stops it after `steps` of them."""

    def __init__(self, steps: int) -> None:
        self.pauses: list[float] = []
        self._steps = steps

    def is_set(self) -> bool:
        return len(self.pauses) >= self._steps

    def wait(self, timeout: float) -> bool:
        self.pauses.append(timeout)
        return self.is_set()


def test_the_processor_works_a_backlog_without_pausing_and_gathers_after_emptying_it(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    processor.batch_size = 2
    for body in range(5):
        wamid = f"wamid.G{body}"
        add_outbox_row(database, key=wamid, wamid=wamid, at=NOW)
        _post_statuses(client, [wamid])
    taken: list[int] = []
    run_once = processor.run_once

    def counted() -> processor_module.ProcessingResult:
        result = run_once()
        taken.append(result.deliveries)
        return result

    processor.run_once = counted  # type: ignore[method-assign]
    stop = _RecordingStop(steps=2)
    processor.run(stop)  # type: ignore[arg-type]
    # Two full batches back to back, then the last body: the queue is empty, so it gathers, then idles.
    assert taken == [2, 2, 1, 0]
    assert stop.pauses == [processor_module.GATHER_SECONDS, processor_module.IDLE_SECONDS]
    assert _pending(database) == 0
