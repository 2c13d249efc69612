"""After a restore: sends that were in flight at the snapshot become `unknown`, never sent again blindly."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import OutboxMessage
from backend.domain.transitions import RESTORED_IN_FLIGHT
from backend.outbox.state_writes import OUTBOX, RowRef, journal_transition, transition_update


def mark_restored_in_flight(session: Session, now: datetime) -> list[str]:
    """Turn every `queued`, `sending` or `unknown` row into `unknown` (restored_from_backup); their keys.

    Each may have gone out after the backup was taken, so each follows its purpose's rule for an
    unknown outcome (a supervisor's review by default) instead of being sent again.
    """
    rows = session.execute(
        select(
            OutboxMessage.id,
            OutboxMessage.dedupe_key,
            OutboxMessage.conversation_id,
            OutboxMessage.state,
            OutboxMessage.wamid,
        )
        .where(OutboxMessage.state.in_(sorted(RESTORED_IN_FLIGHT.sources)))
        .order_by(OutboxMessage.id)
    ).all()
    if not rows:
        return []
    ids = [row.id for row in rows]
    # In chunks: a busy office's backlog may hold more rows than one statement may name.
    for start in range(0, len(ids), 500):
        session.execute(
            transition_update(RESTORED_IN_FLIGHT, now).where(OUTBOX.c.id.in_(ids[start : start + 500]))
        )
    refs = [
        RowRef(
            key=row.dedupe_key,
            conversation_id=row.conversation_id,
            previous_state=row.state,
            wamid=row.wamid,
        )
        for row in rows
    ]
    journal_transition(session, RESTORED_IN_FLIGHT, refs, now)
    return [row.dedupe_key for row in rows]
