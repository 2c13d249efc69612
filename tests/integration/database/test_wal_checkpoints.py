"""SQLite's write-ahead log checkpointed by a worker instead of by the commit that grows it."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import text

from backend.database import Database, create_database
from backend.database.checkpoint import CheckpointResult, WalCheckpointer

# Pages of 4 KB: this many rows of 4 KB grow the log well past SQLite's automatic 1,000 pages.
ROWS = 1500


def _wal_bytes(database: Database) -> int:
    path = Path(f"{database.engine.url.database}-wal")
    return path.stat().st_size if path.exists() else 0


def _write_rows(database: Database, count: int) -> None:
    for start in range(0, count, 100):
        with database.transaction() as session:
            session.execute(
                text("INSERT INTO scratch (body) VALUES (:body)"),
                [{"body": "x" * 4000} for _ in range(start, min(start + 100, count))],
            )


@pytest.fixture
def sqlite_url(database_url: str) -> str:
    if not database_url.startswith("sqlite"):
        pytest.skip("PostgreSQL has no write-ahead log of ours to checkpoint")
    return database_url


def test_without_checkpoints_on_commit_only_the_worker_copies_the_log(sqlite_url: str) -> None:
    database = create_database(sqlite_url, checkpoint_on_commit=False)
    try:
        with database.transaction() as session:
            session.execute(text("CREATE TABLE scratch (id INTEGER PRIMARY KEY, body TEXT)"))
        _write_rows(database, ROWS)
        grown = _wal_bytes(database)
        # No commit checkpointed: every page written is still in the log.
        assert grown > ROWS * 4000

        result = WalCheckpointer(database).run_once()
        assert not result.busy
        assert result.log_frames > 1000
        assert result.checkpointed_frames == result.log_frames

        # Once copied, the log is written again from its start instead of growing.
        _write_rows(database, 200)
        assert _wal_bytes(database) == grown
    finally:
        database.dispose()


def test_with_checkpoints_on_commit_the_log_stays_near_sqlites_limit(sqlite_url: str) -> None:
    database = create_database(sqlite_url)
    try:
        with database.transaction() as session:
            session.execute(text("CREATE TABLE scratch (id INTEGER PRIMARY KEY, body TEXT)"))
        _write_rows(database, ROWS)
        assert _wal_bytes(database) < ROWS * 4000
    finally:
        database.dispose()


def test_the_worker_checkpoints_until_stopped(sqlite_url: str) -> None:
    database = create_database(sqlite_url, checkpoint_on_commit=False)
    try:
        with database.transaction() as session:
            session.execute(text("CREATE TABLE scratch (id INTEGER PRIMARY KEY, body TEXT)"))
        checkpointer = WalCheckpointer(database, interval_seconds=0.01)
        checkpointed = threading.Event()
        run_once = checkpointer.run_once

        def counted_run_once() -> CheckpointResult:
            result = run_once()
            checkpointed.set()
            return result

        checkpointer.run_once = counted_run_once  # type: ignore[method-assign]
        stop = threading.Event()
        worker = threading.Thread(target=checkpointer.run, args=(stop,))
        worker.start()
        try:
            for _ in range(ROWS // 100):
                checkpointed.clear()
                _write_rows(database, 100)
                assert checkpointed.wait(5)
        finally:
            stop.set()
            worker.join(timeout=5)
        assert not worker.is_alive()
        # Checkpointed between the writes: the log was reused and holds about one batch, not all.
        assert _wal_bytes(database) < ROWS * 4000 // 4
    finally:
        database.dispose()


def test_a_failed_checkpoint_is_logged_and_the_worker_goes_on(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    database = create_database(sqlite_url, checkpoint_on_commit=False)
    try:
        checkpointer = WalCheckpointer(database, interval_seconds=0.01)
        calls: list[int] = []
        run_once = checkpointer.run_once
        went_on = threading.Event()

        def failing_first() -> CheckpointResult:
            calls.append(1)
            if len(calls) == 1:
                raise sqlite3.OperationalError("disk I/O error")
            went_on.set()
            return run_once()

        checkpointer.run_once = failing_first  # type: ignore[method-assign]
        stop = threading.Event()
        worker = threading.Thread(target=checkpointer.run, args=(stop,))
        worker.start()
        try:
            assert went_on.wait(5)
        finally:
            stop.set()
            worker.join(timeout=5)
        assert "checkpoint paused" in caplog.text
    finally:
        database.dispose()


def test_postgresql_has_no_log_to_checkpoint(database: Database) -> None:
    if database.is_sqlite:
        pytest.skip("this is the PostgreSQL side")
    with pytest.raises(ValueError, match="only SQLite"):
        WalCheckpointer(database)
