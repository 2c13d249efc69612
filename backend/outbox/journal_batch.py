"""`message.state_changed` journal entries for many rows at once, in the caller's transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from backend.journal import journal_many

STATE_CHANGED = "message.state_changed"


def journal_state_changes(session: Session, changes: list[dict[str, Any]], now: datetime) -> None:
    """Journal every change, in order, in one multi-row insert."""
    journal_many(session, ((STATE_CHANGED, data) for data in changes), now)
