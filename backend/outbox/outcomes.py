"""Recording what each send came to, for a whole batch in one transaction."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import OutboxMessage
from backend.domain import states
from backend.domain.backoff import pair_limit_delay, retry_delay
from backend.domain.outcomes import OutcomeKind, SendOutcome
from backend.domain.pacing import customer_slot_key
from backend.domain.transitions import (
    ACCEPTED,
    GIVE_BACK,
    RETRY,
    WAMID_LEARNED,
    Transition,
    after_give_back,
    after_outcome,
)
from backend.outbox.claim import Changes, ClaimedMessage, hand_back_customer_slots, upsert_slots
from backend.outbox.state_writes import (
    OUTBOX,
    ROW_ID,
    RowRef,
    in_sources,
    journal_transitions,
    transition_update,
    write_each,
)
from backend.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class RecordSummary:
    """How many rows each outcome moved, by the state they ended in."""

    by_state: dict[str, int] = field(default_factory=dict)
    # (dedupe key, state, wamid, error code) of each answer, for `log_answers`.
    answers: list[tuple[str, str, str | None, int | None]] = field(default_factory=list)

    def add(self, state: str) -> None:
        """Count one row ending in `state`."""
        self.by_state[state] = self.by_state.get(state, 0) + 1

    def log_answers(self) -> None:
        """One line per answer; never the payload (customers' words) nor Meta's free-form details."""
        for key, state, wamid, code in self.answers:
            log.info("send %s: %s (wamid %s, code %s)", key, state, wamid, code)


def record_outcomes(
    session: Session,
    results: Sequence[tuple[ClaimedMessage, SendOutcome]],
    *,
    settings: Settings,
    now: datetime,
    jitter: Callable[[], float],
    changes: Changes | None = None,
) -> RecordSummary:
    """Move each sent row to the state its outcome calls for, if it is still this claim's row.

    With `changes`, the journal entries are left to the caller (one journal write per transaction).
    The caller logs the answers (`RecordSummary.log_answers`) once the transaction is over, so the
    log's I/O is not done while the write lock is held.
    """
    summary = RecordSummary()
    if not results:
        return summary
    ids = [message.id for message, _ in results]
    query = select(OutboxMessage.id, OutboxMessage.state, OutboxMessage.attempts, OutboxMessage.wamid).where(
        OutboxMessage.id.in_(ids)
    )
    if session.get_bind().dialect.name == "postgresql":
        # In id order, as every other writer that locks several rows, so two never wait on each other.
        query = query.order_by(OutboxMessage.id).with_for_update()
    current = {row.id: row for row in session.execute(query)}
    writes: dict[Transition, list[dict[str, Any]]] = {}
    customer_waits: dict[str, datetime] = {}
    own: Changes = []

    for message, outcome in results:
        row = current.get(message.id)
        if row is None:
            continue
        transition = after_outcome(
            state=row.state,
            attempts=row.attempts,
            wamid=row.wamid,
            claimed_attempts=message.attempts,
            kind=outcome.kind,
            max_attempts=settings.max_attempts,
        )
        if transition is None:
            continue
        values: dict[str, Any] = {ROW_ID: message.id}
        if transition in (ACCEPTED, WAMID_LEARNED):
            values["wamid"] = outcome.wamid
        else:
            values.update(
                last_error_code=outcome.code,
                last_error_title=outcome.title[:255] or None,
                last_error_details=outcome.details or None,
            )
        if transition is RETRY:
            if outcome.kind is OutcomeKind.RETRY_CUSTOMER:
                delay = pair_limit_delay(message.attempts, settings.pair_interval_seconds)
                slot = customer_slot_key(message.to_number)
                later = now + timedelta(seconds=delay)
                customer_waits[slot] = max(later, customer_waits.get(slot, later))
            else:
                delay = max(retry_delay(message.attempts, jitter()), outcome.minimum_delay_seconds)
            values["not_before"] = now + timedelta(seconds=delay)
        writes.setdefault(transition, []).append(values)
        summary.answers.append(
            (message.dedupe_key, transition.target or row.state, outcome.wamid or row.wamid, outcome.code)
        )
        if transition.target is not None:
            own.append(
                (transition, _ref(message, row.state, outcome.wamid if transition is ACCEPTED else None))
            )
            summary.add(transition.target)

    # One executemany per transition keeps a flush to a handful of statements.
    for transition, rows in writes.items():
        write_each(session, transition, now, rows)
    # A pair-limit answer pushes back only that customer's slot; everyone else keeps their pace.
    upsert_slots(session, customer_waits, keep_later=True)
    _journal(session, own, changes, now)
    return summary


def give_back_unsent(
    session: Session, messages: Sequence[ClaimedMessage], now: datetime, changes: Changes | None = None
) -> int:
    """Put started rows whose request never left back to `queued`; that start did not try to send."""
    if not messages:
        return 0
    by_id = {message.id: message for message in messages}
    query = select(OutboxMessage.id, OutboxMessage.state, OutboxMessage.attempts).where(
        OutboxMessage.id.in_(list(by_id)), in_sources(GIVE_BACK)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.order_by(OutboxMessage.id).with_for_update()
    mine = [
        row.id
        for row in session.execute(query)
        if after_give_back(state=row.state, attempts=row.attempts, claimed_attempts=by_id[row.id].attempts)
    ]
    if not mine:
        return 0
    session.execute(transition_update(GIVE_BACK, now).where(OUTBOX.c.id.in_(mine)))
    hand_back_customer_slots(session, [by_id[row_id] for row_id in mine])
    _journal(session, [(GIVE_BACK, _ref(by_id[i], states.SENDING, None)) for i in mine], changes, now)
    return len(mine)


def _journal(session: Session, own: Changes, changes: Changes | None, now: datetime) -> None:
    if changes is None:
        journal_transitions(session, own, now)
    else:
        changes += own


def _ref(message: ClaimedMessage, previous_state: str, wamid: str | None) -> RowRef:
    return RowRef(
        key=message.dedupe_key,
        conversation_id=message.conversation_id,
        previous_state=previous_state,
        wamid=wamid,
    )
