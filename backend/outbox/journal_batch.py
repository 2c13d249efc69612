"""`message.state_changed` journal entries for many rows at once, in the caller's transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from backend.database.models import JournalEntry
from backend.journal import journal

STATE_CHANGED = "message.state_changed"


def journal_state_changes(session: Session, changes: list[dict[str, Any]], now: datetime) -> None:
    """Journal every change; call it as the last write of the transaction (it may take the journal lock)."""
    if not changes:
        return
    first, *rest = changes
    # The first entry goes through `journal` so its ordering lock (PostgreSQL) is taken exactly as
    # everywhere else; the rest follow in one multi-row insert, after it, in the same order.
    journal(session, STATE_CHANGED, first, now)
    if rest:
        session.flush()
        session.execute(
            insert(JournalEntry.__table__),  # type: ignore[arg-type]
            [{"type": STATE_CHANGED, "at": now, "data": data} for data in rest],
        )
