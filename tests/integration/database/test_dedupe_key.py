"""The database itself refuses a second row with the same dedupe key, even under concurrency."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from backend.database import Database
from backend.database.models import OutboxMessage


def _row(key: str) -> OutboxMessage:
    now = datetime.now(UTC)
    return OutboxMessage(
        dedupe_key=key,
        to_number="+16505551234",
        purpose="order_shipped",
        kind="text",
        payload={"text": "hello"},
        state="queued",
        not_before=now,
        created_at=now,
        updated_at=now,
    )


def test_two_concurrent_writers_of_one_key_store_one_row(database: Database) -> None:
    key = "order-44812:shipped:16505551234"
    barrier = threading.Barrier(2)
    outcomes: list[str] = []
    lock = threading.Lock()

    def write() -> None:
        session = database.sessions()
        try:
            session.add(_row(key))
            barrier.wait(timeout=10)
            session.commit()
            result = "stored"
        except IntegrityError:
            session.rollback()
            result = "rejected"
        finally:
            session.close()
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=write) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert sorted(outcomes) == ["rejected", "stored"]
    with database.reader() as session:
        assert session.scalar(select(func.count()).select_from(OutboxMessage)) == 1


def test_a_second_write_of_a_key_is_rejected_by_the_unique_index(database: Database) -> None:
    with database.transaction() as session:
        session.add(_row("same"))
    with pytest.raises(IntegrityError), database.transaction() as session:
        session.add(_row("same"))
