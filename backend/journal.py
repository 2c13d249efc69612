"""The event journal for live clients: every change adds one entry with a growing `seq`.

Readers waiting for new entries learn of a commit that journaled through a JournalSignal, which
`watch_journal_commits` notifies for the sessions of one Database.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import event, select, text
from sqlalchemy.orm import Session, SessionTransaction

from backend.database import Database
from backend.database.models import JournalEntry

# Any constant works; it names the one advisory lock that orders journal writers on PostgreSQL.
_JOURNAL_LOCK_ID = 0x1B0A
# Set in a session's `info` by every transaction that adds journal entries.
JOURNAL_WRITTEN = "inbox_journal_written"


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


def watch_journal_commits(database: Database, notify: Callable[[], None]) -> Callable[[], None]:
    """Call `notify` after each commit of this database's write sessions that journaled; returns the undo."""

    def after_commit(session: Session) -> None:
        if session.info.get(JOURNAL_WRITTEN):
            notify()

    # Every watcher of the sessions sees the mark before it is cleared (after_commit runs before
    # after_transaction_end), however many watch them.
    if not event.contains(database.sessions, "after_transaction_end", _forget_journal_writes):
        event.listen(database.sessions, "after_transaction_end", _forget_journal_writes)
    event.listen(database.sessions, "after_commit", after_commit)

    def unwatch() -> None:
        event.remove(database.sessions, "after_commit", after_commit)

    return unwatch


def _forget_journal_writes(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # the whole transaction ended (committed or rolled back)
        session.info.pop(JOURNAL_WRITTEN, None)


def journal(session: Session, event_type: str, data: dict[str, Any], now: datetime) -> None:
    """Add an entry in the caller's transaction; it becomes visible when that transaction commits."""
    if session.get_bind().dialect.name == "postgresql":
        # Sequence values are handed out before commit, so two writers could commit out of order
        # and a reader polling `seq > last` would skip one. Holding this lock until commit makes
        # seq order equal commit order. SQLite already has a single writer.
        session.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": _JOURNAL_LOCK_ID})
    session.add(JournalEntry(type=event_type, at=now, data=data))
    note_journal_written(session)


def entries_after(session: Session, after: int, limit: int) -> list[JournalEntry]:
    """Entries with seq greater than `after`, oldest first."""
    query = select(JournalEntry).where(JournalEntry.seq > after).order_by(JournalEntry.seq).limit(limit)
    return list(session.scalars(query))


def last_seq(session: Session) -> int:
    """The newest seq, or 0 for an empty journal."""
    return int(session.scalar(select(JournalEntry.seq).order_by(JournalEntry.seq.desc()).limit(1)) or 0)
