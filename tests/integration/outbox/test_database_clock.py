"""On PostgreSQL the workers' clock follows the database server's clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from backend.database import Database
from backend.outbox.database_clock import DatabaseClock


def test_database_clock_tracks_the_server(database: Database) -> None:
    if database.is_sqlite:
        pytest.skip("SQLite runs on this machine's clock")
    clock = DatabaseClock(database)
    assert abs(clock() - datetime.now(UTC)) < timedelta(seconds=1)  # same machine here: no real offset
    clock._offset = timedelta(hours=1)  # as if this machine were an hour behind the server
    assert clock() - datetime.now(UTC) > timedelta(minutes=59)  # kept until the next sync
    clock._synced_at = None
    assert abs(clock() - datetime.now(UTC)) < timedelta(seconds=1)


class _Unreachable:
    def connect(self) -> None:
        raise ConnectionRefusedError("database down")


def test_an_unreachable_database_keeps_the_last_offset(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    if database.is_sqlite:
        pytest.skip("SQLite runs on this machine's clock")
    clock = DatabaseClock(database)
    clock()
    clock._offset = timedelta(seconds=30)
    monkeypatch.setattr(database, "engine", _Unreachable())
    clock._synced_at = None
    assert timedelta(seconds=29) < clock() - datetime.now(UTC) < timedelta(seconds=31)
