"""UTC times on SQLite: bound as the very text SQLAlchemy writes, read back as aware UTC datetimes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import DateTime, text
from sqlalchemy.dialects import sqlite

from backend.database import Database
from backend.database.types import UtcDateTime

MOMENTS = [
    datetime(2026, 12, 2, 6, 0, tzinfo=UTC),
    datetime(2026, 12, 2, 6, 0, 1, 5, tzinfo=timezone(timedelta(hours=3))),
    datetime(2026, 1, 1, 23, 59, 59, 999999, tzinfo=UTC),
    datetime(1, 1, 1, tzinfo=UTC),
]


@pytest.mark.parametrize("moment", MOMENTS)
def test_the_text_is_sqlalchemys_own(moment: datetime) -> None:
    dialect = sqlite.dialect()
    sqlalchemy_text = DateTime().dialect_impl(dialect).bind_processor(dialect)
    assert sqlalchemy_text is not None
    ours = UtcDateTime().bind_processor(dialect)
    assert ours is not None
    assert ours(moment) == sqlalchemy_text(moment.astimezone(UTC).replace(tzinfo=None))
    # Asked twice (a batch binds one `now` to many rows), the same text.
    assert ours(moment) == ours(moment)


def test_a_naive_time_is_refused_even_after_an_aware_one() -> None:
    ours = UtcDateTime().bind_processor(sqlite.dialect())
    assert ours is not None
    ours(MOMENTS[0])
    with pytest.raises(ValueError, match="naive"):
        ours(MOMENTS[0].replace(tzinfo=None))
    assert ours(None) is None


def test_a_time_goes_in_and_comes_back_as_utc(database: Database) -> None:
    from backend.database.models import WebhookDelivery

    moment = MOMENTS[1]
    with database.transaction() as session:
        row = WebhookDelivery(body=b"{}", signature=None, received_at=moment)
        session.add(row)
        session.flush()
        row_id = row.id
    with database.reader() as session:
        stored = session.get_one(WebhookDelivery, row_id)
        assert stored.received_at == moment
        assert stored.received_at.tzinfo is UTC
        if database.is_sqlite:
            raw = session.execute(
                text("SELECT received_at FROM webhook_deliveries WHERE id = :id"), {"id": row_id}
            ).scalar()
            assert raw == "2026-12-02 03:00:01.000005"
