"""Recording what each send came to, for a whole batch in one transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from backend.database.models import OutboxMessage
from backend.domain import states
from backend.domain.backoff import pair_limit_delay, retry_delay
from backend.domain.outcomes import OutcomeKind, SendOutcome
from backend.domain.pacing import customer_slot_key
from backend.outbox.claim import OUTBOX, ClaimedMessage, state_is, upsert_slots
from backend.outbox.journal_batch import journal_state_changes, state_change
from backend.settings import Settings

# Rows Meta has taken (or may have): an answer that arrives late never moves them back.
_AFTER_ACCEPTANCE = frozenset({states.ACCEPTED, states.SENT, states.DELIVERED, states.READ})


@dataclass
class RecordSummary:
    """How many rows each outcome moved, by the state they ended in."""

    by_state: dict[str, int] = field(default_factory=dict)

    def add(self, state: str) -> None:
        """Count one row ending in `state`."""
        self.by_state[state] = self.by_state.get(state, 0) + 1


def record_outcomes(
    session: Session,
    results: Sequence[tuple[ClaimedMessage, SendOutcome]],
    *,
    settings: Settings,
    now: datetime,
    jitter: Callable[[], float],
) -> RecordSummary:
    """Move each sent row to the state its outcome calls for, if it is still this claim's row."""
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
    accepted: list[dict[str, Any]] = []
    wamid_only: list[dict[str, Any]] = []
    requeued: list[dict[str, Any]] = []
    unknown: list[dict[str, Any]] = []
    held: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    customer_waits: dict[str, datetime] = {}
    changes: list[dict[str, Any]] = []

    for message, outcome in results:
        row = current.get(message.id)
        if row is None:
            continue
        if outcome.kind is OutcomeKind.ACCEPTED:
            # Evidence of acceptance counts even if the lease already ran out and the row is `unknown`.
            if row.state in (states.SENDING, states.UNKNOWN):
                accepted.append({"row_id": message.id, "wamid": outcome.wamid})
                changes.append(_change(message, states.ACCEPTED, row.state, outcome.wamid))
                summary.add(states.ACCEPTED)
            elif row.state in _AFTER_ACCEPTANCE and row.wamid is None:
                wamid_only.append({"row_id": message.id, "wamid": outcome.wamid})
            continue
        if row.state != states.SENDING or row.attempts != message.attempts:
            continue  # the row moved on (lease expired, a supervisor, a webhook): leave it be
        error = {
            "row_id": message.id,
            "code": outcome.code,
            "title": outcome.title[:255] or None,
            "details": outcome.details or None,
        }
        kind = outcome.kind
        if (
            kind in (OutcomeKind.RETRY, OutcomeKind.RETRY_CUSTOMER)
            and message.attempts >= settings.max_attempts
        ):
            kind = OutcomeKind.FAIL
        if kind is OutcomeKind.RETRY:
            delay = max(retry_delay(message.attempts, jitter()), outcome.minimum_delay_seconds)
            requeued.append({**error, "later": now + timedelta(seconds=delay)})
            changes.append(_change(message, states.QUEUED, states.SENDING))
            summary.add(states.QUEUED)
        elif kind is OutcomeKind.RETRY_CUSTOMER:
            delay = pair_limit_delay(message.attempts, settings.pair_interval_seconds)
            later = now + timedelta(seconds=delay)
            requeued.append({**error, "later": later})
            customer_waits[customer_slot_key(message.to_number)] = max(
                later, customer_waits.get(customer_slot_key(message.to_number), later)
            )
            changes.append(_change(message, states.QUEUED, states.SENDING))
            summary.add(states.QUEUED)
        elif kind is OutcomeKind.UNKNOWN:
            unknown.append(error)
            changes.append(_change(message, states.UNKNOWN, states.SENDING))
            summary.add(states.UNKNOWN)
        elif kind is OutcomeKind.HOLD_WINDOW:
            held.append(error)
            changes.append(_change(message, states.HELD, states.SENDING))
            summary.add(states.HELD)
        else:
            failed.append(error)
            changes.append(_change(message, states.FAILED, states.SENDING))
            summary.add(states.FAILED)

    row_id = OUTBOX.c.id == bindparam("row_id")
    errors: dict[str, Any] = {
        "last_error_code": bindparam("code"),
        "last_error_title": bindparam("title"),
        "last_error_details": bindparam("details"),
    }
    connection = session.connection()
    if accepted:
        connection.execute(
            update(OUTBOX)
            .where(row_id)
            .values(
                state=states.ACCEPTED,
                wamid=bindparam("wamid"),
                accepted_at=now,
                lease_expires_at=None,
                unknown_since=None,
                hold_reason=None,
                updated_at=now,
            ),
            accepted,
        )
    if wamid_only:
        connection.execute(
            update(OUTBOX).where(row_id, OUTBOX.c.wamid.is_(None)).values(wamid=bindparam("wamid")),
            wamid_only,
        )
    if requeued:
        connection.execute(
            update(OUTBOX)
            .where(row_id)
            .values(
                state=states.QUEUED,
                not_before=bindparam("later"),
                lease_expires_at=None,
                claimed_by=None,
                updated_at=now,
                **errors,
            ),
            requeued,
        )
    if unknown:
        connection.execute(
            update(OUTBOX)
            .where(row_id)
            .values(state=states.UNKNOWN, unknown_since=now, lease_expires_at=None, updated_at=now, **errors),
            unknown,
        )
    if held:
        connection.execute(
            update(OUTBOX)
            .where(row_id)
            .values(
                state=states.HELD,
                hold_reason=states.HOLD_WINDOW_CLOSED,
                lease_expires_at=None,
                updated_at=now,
                **errors,
            ),
            held,
        )
    if failed:
        connection.execute(
            update(OUTBOX)
            .where(row_id)
            .values(state=states.FAILED, failed_at=now, lease_expires_at=None, updated_at=now, **errors),
            failed,
        )
    # A pair-limit answer pushes back only that customer's slot; everyone else keeps their pace.
    upsert_slots(session, customer_waits, keep_later=True)
    journal_state_changes(session, changes, now)
    return summary


def release_unsent(session: Session, messages: Sequence[ClaimedMessage], now: datetime) -> int:
    """Put claimed rows whose request never started back to `queued`; that claim did not try to send."""
    if not messages:
        return 0
    by_id = {message.id: message for message in messages}
    query = select(OutboxMessage.id, OutboxMessage.attempts).where(
        OutboxMessage.id.in_(list(by_id)), state_is(session, states.SENDING)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.order_by(OutboxMessage.id).with_for_update()
    mine = [row.id for row in session.execute(query) if row.attempts == by_id[row.id].attempts]
    if not mine:
        return 0
    session.execute(
        update(OUTBOX)
        .where(OUTBOX.c.id.in_(mine))
        .values(
            state=states.QUEUED,
            attempts=OUTBOX.c.attempts - 1,
            lease_expires_at=None,
            claimed_by=None,
            updated_at=now,
        )
    )
    journal_state_changes(
        session, [_change(by_id[i], states.QUEUED, states.SENDING, None) for i in mine], now
    )
    return len(mine)


def _change(
    message: ClaimedMessage, new_state: str, previous_state: str, wamid: str | None = None
) -> dict[str, Any]:
    return state_change(
        key=message.dedupe_key,
        conversation_id=message.conversation_id,
        state=new_state,
        previous_state=previous_state,
        wamid=wamid,
    )
