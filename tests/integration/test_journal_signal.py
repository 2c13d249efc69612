"""Journal wake-ups: a commit that journaled notifies the watchers of its own database, and only those."""

from __future__ import annotations

import gc
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import cast

import pytest
from sqlalchemy import insert, select
from sqlalchemy.orm import sessionmaker

from backend.database import Database, create_database
from backend.database.models import JournalEntry
from backend.journal import LocalJournalSignal, journal, note_journal_written, watch_journal_commits

NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def _watched(database: Database) -> LocalJournalSignal:
    signal = LocalJournalSignal()
    watch_journal_commits(database, signal.notify)
    return signal


def test_a_journaling_commit_wakes_every_watcher_of_its_database_and_no_other(
    database: Database, database_url: str
) -> None:
    first, second = _watched(database), _watched(database)
    other = create_database(database_url)
    try:
        elsewhere = _watched(other)
        with database.transaction() as session:
            journal(session, "test.event", {"n": 1}, NOW)
        assert (first.generation(), second.generation(), elsewhere.generation()) == (1, 1, 0)
        # Another Database on the same server has its own sessions: its commits wake its own watchers.
        with other.transaction() as session:
            journal(session, "test.event", {"n": 2}, NOW)
        assert (first.generation(), second.generation(), elsewhere.generation()) == (1, 1, 1)
    finally:
        other.dispose()


def test_the_mark_ends_with_its_transaction_committed_or_rolled_back(database: Database) -> None:
    signal = _watched(database)
    with database.sessions() as session:
        with session.begin():
            journal(session, "test.event", {"n": 1}, NOW)
        with session.begin():
            session.execute(select(JournalEntry.seq))
        assert signal.generation() == 1
        with pytest.raises(RuntimeError), session.begin():
            journal(session, "test.event", {"n": 2}, NOW)
            session.flush()
            raise RuntimeError("rolled back")
        with session.begin():
            session.execute(select(JournalEntry.seq))
    assert signal.generation() == 1


def test_entries_inserted_without_the_orm_wake_watchers_once_marked(database: Database) -> None:
    signal = _watched(database)
    with database.transaction() as session:
        session.execute(insert(JournalEntry), [{"type": "test.event", "at": NOW, "data": {}}] * 2)
    assert signal.generation() == 0
    with database.transaction() as session:
        session.execute(insert(JournalEntry), [{"type": "test.event", "at": NOW, "data": {}}] * 2)
        note_journal_written(session)
    assert signal.generation() == 1


def test_a_watcher_that_stopped_watching_is_not_woken(database: Database) -> None:
    signal = LocalJournalSignal()
    unwatch = watch_journal_commits(database, signal.notify)
    unwatch()
    with database.transaction() as session:
        journal(session, "test.event", {"n": 1}, NOW)
    assert signal.generation() == 0


def test_a_waiter_returns_when_notified_after_its_generation() -> None:
    signal = LocalJournalSignal()
    seen = signal.generation()
    signal.notify()
    # Already notified since `seen`: returns at once instead of waiting out the timeout.
    signal.wait(seen, timeout=30)
    assert signal.generation() == seen + 1


def test_the_mark_ends_with_its_transaction_for_every_sessionmaker_of_a_process(database: Database) -> None:
    # SQLAlchemy's registry answers "already listening" for most sessionmakers made after another
    # one was collected; the mark then outlived its transaction and every later commit woke watchers.
    for round_number in range(40):
        sessions = sessionmaker(bind=database.engine)
        signal = LocalJournalSignal()
        watch_journal_commits(cast(Database, SimpleNamespace(sessions=sessions)), signal.notify)
        with sessions() as session:
            with session.begin():
                journal(session, "test.event", {"n": round_number}, NOW)
            with session.begin():
                session.execute(select(JournalEntry.seq))
        assert signal.generation() == 1, round_number
        del sessions, session
        gc.collect()
