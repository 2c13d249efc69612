"""The event journal for live clients: every change adds one entry with a growing `seq`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from backend.database.models import JournalEntry

# Any constant works; it names the one advisory lock that orders journal writers on PostgreSQL.
_JOURNAL_LOCK_ID = 0x1B0A


def journal(session: Session, event_type: str, data: dict[str, Any], now: datetime) -> None:
    """Add an entry in the caller's transaction; it becomes visible when that transaction commits."""
    if session.get_bind().dialect.name == "postgresql":
        # Sequence values are handed out before commit, so two writers could commit out of order
        # and a reader polling `seq > last` would skip one. Holding this lock until commit makes
        # seq order equal commit order. SQLite already has a single writer.
        session.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": _JOURNAL_LOCK_ID})
    session.add(JournalEntry(type=event_type, at=now, data=data))


def entries_after(session: Session, after: int, limit: int) -> list[JournalEntry]:
    """Entries with seq greater than `after`, oldest first."""
    query = select(JournalEntry).where(JournalEntry.seq > after).order_by(JournalEntry.seq).limit(limit)
    return list(session.scalars(query))


def last_seq(session: Session) -> int:
    """The newest seq, or 0 for an empty journal."""
    return int(session.scalar(select(JournalEntry.seq).order_by(JournalEntry.seq.desc()).limit(1)) or 0)
