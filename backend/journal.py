"""The event journal for live clients: every change adds one entry with a growing `seq`.

A reader polling `seq > last` must never see an entry before every lower seq is visible. SQLite has
a single writer, so entries are numbered as they are inserted. On PostgreSQL writers commit in any
order, so they add entries to `journal_pending` without a lock, and `sequence_pending` numbers
committed entries afterwards, one short transaction at a time: each pass becomes visible at once,
with seqs above every earlier pass, so readers always see a prefix of the journal.

Readers waiting for new entries learn of a commit that journaled through a JournalSignal, which
`watch_journal_commits` notifies for the sessions of one Database.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, Protocol, cast

from sqlalchemy import CursorResult, Table, event, insert, select, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, SessionTransaction

from backend.database import Database
from backend.database.models import JournalEntry, PendingJournalEntry

log = logging.getLogger(__name__)

# The advisory lock only sequencers take, on PostgreSQL. Writers of earlier versions took this same
# lock to insert numbered entries, so one still running against the database and a sequencing pass
# wait for each other, and seqs stay in visibility order while versions are mixed.
SEQUENCER_LOCK_ID = 0x1B0A
# Entries one sequencing pass numbers at most, so a pass stays a short transaction.
SEQUENCE_BATCH = 5000
# Set in a session's `info` by every transaction that adds journal entries.
JOURNAL_WRITTEN = "inbox_journal_written"

_PENDING: Table = PendingJournalEntry.__table__  # type: ignore[assignment]
_NUMBERED: Table = JournalEntry.__table__  # type: ignore[assignment]
# Only when something waits, so an idle reader costs one read and takes no lock.
_TRY_LOCK = text(
    "SELECT pg_try_advisory_xact_lock(:lock) WHERE EXISTS (SELECT 1 FROM journal_pending)"
).bindparams(lock=SEQUENCER_LOCK_ID)
_WAIT_FOR_LOCK = text(
    "SELECT pg_advisory_xact_lock(:lock) WHERE EXISTS (SELECT 1 FROM journal_pending)"
).bindparams(lock=SEQUENCER_LOCK_ID)
# Oldest pending first: the seq default is drawn above the sort, so seqs follow pending ids.
_MOVE = text(
    """
    WITH moved AS (
        DELETE FROM journal_pending
        WHERE id IN (SELECT id FROM journal_pending ORDER BY id LIMIT :limit)
        RETURNING id, type, at, data
    )
    INSERT INTO journal (type, at, data) SELECT type, at, data FROM moved ORDER BY id
    """
)


class JournalSignal(Protocol):
    """Tells readers waiting for the journal that a commit may have added entries."""

    def notify(self) -> None:
        """Wake every waiter: something new may be in the journal."""

    def generation(self) -> int:
        """A number that changes whenever `notify` runs."""

    def wait(self, since: int, timeout: float) -> None:
        """Wait until notified after generation `since`, or `timeout` seconds."""


class LocalJournalSignal:
    """A JournalSignal for waiters in this process."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._generation = 0

    def notify(self) -> None:
        """Tell every waiter that something new may be in the journal."""
        with self._condition:
            self._generation += 1
            self._condition.notify_all()

    def generation(self) -> int:
        """A number that changes whenever `notify` runs."""
        with self._condition:
            return self._generation

    def wait(self, since: int, timeout: float) -> None:
        """Wait until notified after generation `since`, or `timeout` seconds."""
        with self._condition:
            self._condition.wait_for(lambda: self._generation != since, timeout=max(timeout, 0.0))


def note_journal_written(session: Session) -> None:
    """Mark the session's transaction as one that journals, so its commit notifies the watchers."""
    session.info[JOURNAL_WRITTEN] = True


# The sessionmakers whose transactions clear the mark when they end, and the lock that adds to them.
_CLEARING_SESSIONS: weakref.WeakSet[Any] = weakref.WeakSet()
_CLEARING_LOCK = threading.Lock()


def watch_journal_commits(database: Database, notify: Callable[[], None]) -> Callable[[], None]:
    """Call `notify` after each commit of this database's write sessions that journaled; returns the undo."""

    def after_commit(session: Session) -> None:
        if session.info.get(JOURNAL_WRITTEN):
            notify()

    # Every watcher of the sessions sees the mark before it is cleared (after_commit runs before
    # after_transaction_end), however many watch them. Not `event.contains`: for a sessionmaker made
    # after another one was collected it answers True most of the time without the listener being
    # there, and the mark then outlived its transaction (every later commit woke the watchers).
    with _CLEARING_LOCK:
        if database.sessions not in _CLEARING_SESSIONS:
            event.listen(database.sessions, "after_transaction_end", _forget_journal_writes)
            _CLEARING_SESSIONS.add(database.sessions)
    event.listen(database.sessions, "after_commit", after_commit)

    def unwatch() -> None:
        event.remove(database.sessions, "after_commit", after_commit)

    return unwatch


def _forget_journal_writes(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # the whole transaction ended (committed or rolled back)
        session.info.pop(JOURNAL_WRITTEN, None)


def journal(session: Session, event_type: str, data: dict[str, Any], now: datetime) -> None:
    """Add an entry in the caller's transaction; readers see it once it commits and is numbered."""
    model = PendingJournalEntry if _numbered_after_commit(session) else JournalEntry
    session.add(model(type=event_type, at=now, data=data))
    note_journal_written(session)


def journal_many(session: Session, entries: Iterable[tuple[str, dict[str, Any]]], now: datetime) -> None:
    """Add (type, data) entries in order, after every entry the session added before, in one insert."""
    rows = [{"type": event_type, "at": now, "data": data} for event_type, data in entries]
    if not rows:
        return
    session.flush()  # entries added through `journal` keep their place before these
    table = _PENDING if _numbered_after_commit(session) else _NUMBERED
    session.execute(insert(table), rows)
    note_journal_written(session)


def journal_above(session: Session, seq: int, event_type: str, data: dict[str, Any], now: datetime) -> None:
    """Add an entry numbered above `seq` and above every entry there is; later entries follow it.

    After a restore the journal ends where the backup was taken, below seqs that clients already
    saw: they ask for entries above theirs, so the journal must go on from past the highest they know.
    """
    floor = max(seq, last_seq(session))
    if _numbered_after_commit(session):
        # The sequencer draws seqs from the column's sequence: start it past the floor. A sequence
        # cannot be set to 0, so a floor of 0 (nothing numbered yet) makes 1 the next seq instead.
        session.execute(
            text("SELECT setval(pg_get_serial_sequence('journal', 'seq'), :value, :called)"),
            {"value": max(floor, 1), "called": floor > 0},
        )
        journal(session, event_type, data, now)
        return
    session.execute(insert(_NUMBERED).values(seq=floor + 1, type=event_type, at=now, data=data))
    note_journal_written(session)


def _numbered_after_commit(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def sequence_pending(database: Database, *, limit: int = SEQUENCE_BATCH, wait: bool = False) -> int | None:
    """Number committed pending entries into the journal, oldest first, in one short transaction.

    Returns how many were numbered, or None when another sequencer was at work; with `wait`, waits
    for it instead, so every entry committed before the call is numbered when it returns (up to
    `limit`). SQLite numbers entries as they are written: 0.
    """
    if database.is_sqlite:
        return 0
    with database.transaction() as session:
        # Only sequencers take this lock, until their commit: passes follow one another, so each
        # pass draws seqs above the previous one's and becomes visible in one piece.
        row = session.execute(_WAIT_FOR_LOCK if wait else _TRY_LOCK).first()
        if row is None:  # nothing pending
            return 0
        if not wait and not row[0]:
            return None
        # An INSERT answers with a cursor result, which counts the rows it wrote.
        moved = int(cast("CursorResult[Any]", session.execute(_MOVE, {"limit": limit})).rowcount)
        if moved:
            note_journal_written(session)
        return moved


class JournalSequencer:
    """Worker numbering committed journal entries every second, so they reach readers even with none asking.

    Readers of the journal also sequence before each read (`events_api`); this keeps the pending
    table small between reads. Several sequencers, in any processes, take turns on one lock.
    """

    name = "journal-sequencer"

    def __init__(
        self, database: Database, *, interval_seconds: float = 1.0, batch: int = SEQUENCE_BATCH
    ) -> None:
        self._database = database
        self.interval_seconds = interval_seconds
        self.batch = batch

    def run_once(self) -> int:
        """Number every entry committed so far, a batch per transaction; returns how many."""
        total = 0
        while True:
            moved = sequence_pending(self._database, limit=self.batch)
            if not moved:  # nothing left, or another sequencer is at it
                return total
            total += moved
            if moved < self.batch:
                return total

    def run(self, stop: threading.Event) -> None:
        """Sequence every interval until stop is set."""
        while not stop.is_set():
            try:
                self.run_once()
            except OperationalError as error:
                log.warning("journal sequencer paused, the database is unavailable: %s", error)
            stop.wait(self.interval_seconds)


def entries_after(session: Session, after: int, limit: int) -> list[JournalEntry]:
    """Entries with seq greater than `after`, oldest first."""
    query = select(JournalEntry).where(JournalEntry.seq > after).order_by(JournalEntry.seq).limit(limit)
    return list(session.scalars(query))


def last_seq(session: Session) -> int:
    """The newest seq, or 0 for an empty journal."""
    return int(session.scalar(select(JournalEntry.seq).order_by(JournalEntry.seq.desc()).limit(1)) or 0)
