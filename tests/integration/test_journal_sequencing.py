"""Journal numbering: readers see seqs as a growing prefix, and writers never wait for one another."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.exc import OperationalError

from backend.database import Database
from backend.database.models import JournalEntry, PendingJournalEntry
from backend.journal import (
    SEQUENCER_LOCK_ID,
    JournalSequencer,
    LocalJournalSignal,
    entries_after,
    journal,
    journal_many,
    sequence_pending,
    watch_journal_commits,
)
from tests.conftest import journal_entries, postgres_server_url

NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)

postgres_only = pytest.mark.skipif(
    postgres_server_url() is None, reason="entries are numbered after commit on PostgreSQL only"
)


def _visible(database: Database, after: int = 0) -> list[JournalEntry]:
    """What a reader of the feed sees now, without numbering anything."""
    with database.reader() as session:
        return entries_after(session, after, 10_000)


# A writer that had to wait for another's lock fails after this long instead of hanging.
NO_WAITING = text("SET LOCAL lock_timeout = '300ms'")


def test_entries_keep_the_order_they_were_written_in(database: Database) -> None:
    with database.transaction() as session:
        journal(session, "test.a", {"n": 1}, NOW)
        journal_many(session, [("test.b", {"n": 2}), ("test.c", {"n": 3})], NOW)
        journal(session, "test.d", {"n": 4}, NOW)
    with database.transaction() as session:
        journal_many(session, [("test.e", {"n": 5})], NOW)
    assert [(entry.type, entry.data["n"]) for entry in journal_entries(database)] == [
        ("test.a", 1),
        ("test.b", 2),
        ("test.c", 3),
        ("test.d", 4),
        ("test.e", 5),
    ]


def test_journaling_many_wakes_the_watchers_and_journaling_none_does_not(database: Database) -> None:
    signal = LocalJournalSignal()
    watch_journal_commits(database, signal.notify)
    with database.transaction() as session:
        journal_many(session, [], NOW)
    assert signal.generation() == 0
    with database.transaction() as session:
        journal_many(session, [("test.a", {}), ("test.b", {})], NOW)
    assert signal.generation() == 1


@postgres_only
def test_a_committed_entry_reaches_readers_once_numbered_and_numbering_wakes_them(
    database: Database,
) -> None:
    with database.transaction() as session:
        journal(session, "test.a", {}, NOW)
    assert _visible(database) == []
    signal = LocalJournalSignal()
    watch_journal_commits(database, signal.notify)
    assert sequence_pending(database) == 1
    assert signal.generation() == 1  # long-polls waiting elsewhere look again
    assert [entry.type for entry in _visible(database)] == ["test.a"]
    # Nothing left: the next pass takes no lock, numbers nothing and wakes nobody.
    assert sequence_pending(database) == 0
    assert signal.generation() == 1
    with database.reader() as session:
        assert session.scalars(select(PendingJournalEntry)).all() == []


@postgres_only
def test_two_writers_committing_out_of_order_are_seen_as_one_prefix(database: Database) -> None:
    earlier = database.sessions()
    try:
        with earlier.begin():
            journal(earlier, "test.earlier", {}, NOW)
            earlier.flush()  # written first, still open
            with database.transaction() as later:
                later.execute(NO_WAITING)
                journal(later, "test.later", {}, NOW)
            # The open writer delays nobody: the committed entry is numbered and seen alone.
            assert sequence_pending(database) == 1
            seen = _visible(database)
            assert [entry.type for entry in seen] == ["test.later"]
            resume_from = seen[-1].seq
        assert sequence_pending(database) == 1
        # A reader resuming from the last seq it saw gets the earlier writer's entry: it was
        # numbered after, never below what the reader had already seen.
        assert [entry.type for entry in _visible(database, resume_from)] == ["test.earlier"]
        assert [entry.type for entry in _visible(database)] == ["test.later", "test.earlier"]
    finally:
        earlier.close()


@postgres_only
def test_journaling_transactions_do_not_wait_for_each_other(database: Database) -> None:
    first, second = database.sessions(), database.sessions()
    try:
        first.begin()
        second.begin()
        for session, name in ((first, "first"), (second, "second")):
            session.execute(NO_WAITING)
            journal(session, f"test.{name}", {}, NOW)
            journal_many(session, [(f"test.{name}.more", {})], NOW)
            session.flush()
        # Both wrote while the other was open; they commit in the opposite order.
        second.commit()
        first.commit()
    finally:
        first.close()
        second.close()
    assert sorted(entry.type for entry in journal_entries(database)) == [
        "test.first",
        "test.first.more",
        "test.second",
        "test.second.more",
    ]


@postgres_only
def test_a_sequencer_steps_aside_while_another_is_at_work_or_waits_for_it(database: Database) -> None:
    with database.transaction() as session:
        journal(session, "test.a", {}, NOW)
    holder = create_engine(database.engine.url)
    try:
        with holder.connect() as connection:
            connection.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": SEQUENCER_LOCK_ID})
            assert sequence_pending(database) is None
            results: list[int | None] = []
            waiter = threading.Thread(target=lambda: results.append(sequence_pending(database, wait=True)))
            waiter.start()
            time.sleep(0.3)
            assert results == []  # still waiting for the other sequencer
            connection.rollback()
            waiter.join(10)
        assert results == [1]
    finally:
        holder.dispose()


@postgres_only
def test_the_sequencer_numbers_everything_in_batches_in_the_order_written(database: Database) -> None:
    for first in range(0, 300, 100):
        with database.transaction() as session:
            journal_many(session, [("test.n", {"n": n}) for n in range(first, first + 100)], NOW)
    assert JournalSequencer(database, batch=64).run_once() == 300
    entries = _visible(database)
    assert [entry.data["n"] for entry in entries] == list(range(300))
    assert [entry.seq for entry in entries] == sorted(entry.seq for entry in entries)
    assert JournalSequencer(database).run_once() == 0


@postgres_only
def test_the_sequencer_worker_numbers_entries_until_stopped(database: Database) -> None:
    with database.transaction() as session:
        journal(session, "test.a", {}, NOW)
    sequencer = JournalSequencer(database, interval_seconds=0.01)
    stop = threading.Event()
    worker = threading.Thread(target=sequencer.run, args=(stop,))
    worker.start()
    deadline = time.monotonic() + 10
    while not _visible(database) and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    worker.join(5)
    assert not worker.is_alive()
    assert [entry.type for entry in _visible(database)] == ["test.a"]


def test_on_sqlite_entries_are_numbered_as_they_are_written(database: Database) -> None:
    if not database.is_sqlite:
        pytest.skip("SQLite's single writer numbers entries at insert")
    with database.transaction() as session:
        journal(session, "test.a", {}, NOW)
    assert [entry.type for entry in _visible(database)] == ["test.a"]
    assert sequence_pending(database) == 0
    assert JournalSequencer(database).run_once() == 0


def test_an_unreachable_database_pauses_the_sequencer_without_ending_it(database: Database) -> None:
    class Unreachable(Database):
        calls = 0

        @property
        def is_sqlite(self) -> bool:
            return False

        def transaction(self):  # type: ignore[no-untyped-def,override]
            Unreachable.calls += 1
            raise OperationalError("SELECT 1", {}, Exception("connection refused"))

    sequencer = JournalSequencer(Unreachable(database.engine), interval_seconds=0.01)
    stop = threading.Event()
    worker = threading.Thread(target=sequencer.run, args=(stop,))
    worker.start()
    deadline = time.monotonic() + 10
    while Unreachable.calls < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    worker.join(5)
    assert Unreachable.calls >= 3 and not worker.is_alive()
