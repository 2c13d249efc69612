"""Outbox sweeps: expired leases become `unknown`; old `unknown` rows meet their purpose's rule."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from backend.database.models import OutboxMessage, PacingSlot, SendDecision, StatusEvent
from backend.domain import states
from backend.domain.pacing import CUSTOMER_SLOT_PREFIX
from backend.domain.send_errors import LEASE_EXPIRED_TITLE
from backend.outbox.claim import OUTBOX, state_is
from backend.outbox.journal_batch import journal_state_changes, state_change
from backend.settings import Settings

RULE_ACTOR = "rule"
REVIEW_MARK = "review"
LEASE_EXPIRED_DETAILS = "the worker sending this row stopped before recording an answer"
# Customer slots in the past carry no information; keep them a while, then drop them.
SLOT_RETENTION = timedelta(hours=1)


def expire_leases(session: Session, now: datetime, limit: int = 1000) -> int:
    """Rows in `sending` past their lease (a crashed worker) become `unknown`, never `queued`."""
    query = (
        select(OutboxMessage.id, OutboxMessage.dedupe_key, OutboxMessage.conversation_id, OutboxMessage.wamid)
        .where(OutboxMessage.state == states.SENDING, OutboxMessage.lease_expires_at < now)
        .order_by(OutboxMessage.lease_expires_at)
        .limit(limit)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    rows = session.execute(query).all()
    if not rows:
        return 0
    session.execute(
        update(OUTBOX)
        .where(OUTBOX.c.id.in_([row.id for row in rows]), state_is(session, states.SENDING))
        .values(
            state=states.UNKNOWN,
            unknown_since=now,
            lease_expires_at=None,
            last_error_code=None,
            last_error_title=LEASE_EXPIRED_TITLE,
            last_error_details=LEASE_EXPIRED_DETAILS,
            updated_at=now,
        )
    )
    changes = [
        state_change(
            key=row.dedupe_key,
            conversation_id=row.conversation_id,
            state=states.UNKNOWN,
            previous_state=states.SENDING,
            wamid=row.wamid,
        )
        for row in rows
    ]
    journal_state_changes(session, changes, now)
    return len(rows)


@dataclass(frozen=True)
class UnknownDecision:
    """What the rule decided for one `unknown` row."""

    key: str
    action: str
    reason: str


def resolve_unknown(
    session: Session, settings: Settings, now: datetime, limit: int = 500
) -> list[UnknownDecision]:
    """Decide every `unknown` row older than the wait: accepted on evidence, else resend or review by rule."""
    cutoff = now - timedelta(seconds=settings.unknown_wait_seconds)
    query = (
        select(OutboxMessage)
        .where(
            OutboxMessage.state == states.UNKNOWN,
            OutboxMessage.unknown_since <= cutoff,
            # A row already left for review carries the mark; it is not decided again.
            OutboxMessage.hold_reason.is_(None),
        )
        .order_by(OutboxMessage.unknown_since)
        .limit(limit)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    rows = list(session.scalars(query))
    decisions: list[UnknownDecision] = []
    changes: list[dict[str, Any]] = []
    wait = f"{settings.unknown_wait_seconds:g} s"
    for row in rows:
        evidence = session.execute(
            select(StatusEvent.wamid, StatusEvent.status)
            .where((StatusEvent.callback_data == row.dedupe_key) | (StatusEvent.message_id == row.id))
            .limit(1)
        ).first()
        previous = row.state
        if evidence is not None and evidence.status != states.FAILED:
            row.state = states.ACCEPTED
            row.wamid = row.wamid or evidence.wamid
            row.accepted_at = row.accepted_at or now
            action, reason = "accepted", f"a {evidence.status} status webhook names this row"
        else:
            rule = settings.rule_for(row.purpose)
            if rule.unknown_rule == "resend" and row.attempts < settings.max_attempts:
                row.state = states.QUEUED
                row.not_before = now
                row.unknown_since = None
                row.claimed_by = None
                action = "resend"
                reason = (
                    f"no status webhook with our key within {wait}; purpose {row.purpose} is "
                    f"time-sensitive and harmless to repeat (rule: resend)"
                )
            else:
                row.hold_reason = REVIEW_MARK
                action = "review"
                why = (
                    f"{row.attempts} attempts reached the limit of {settings.max_attempts}"
                    if rule.unknown_rule == "resend"
                    else f"purpose {row.purpose} is left to a supervisor (rule: review)"
                )
                reason = f"no status webhook with our key within {wait}; {why}"
        row.updated_at = now
        session.add(
            SendDecision(message_id=row.id, decided_at=now, actor=RULE_ACTOR, action=action, reason=reason)
        )
        decisions.append(UnknownDecision(row.dedupe_key, action, reason))
        if row.state != previous:
            changes.append(
                state_change(
                    key=row.dedupe_key,
                    conversation_id=row.conversation_id,
                    state=row.state,
                    previous_state=previous,
                    wamid=row.wamid,
                )
            )
    session.flush()
    journal_state_changes(session, changes, now)
    return decisions


def prune_pacing_slots(session: Session, now: datetime) -> int:
    """Drop customer pacing slots long in the past; the number's own slot stays."""
    result = session.execute(
        delete(PacingSlot).where(
            PacingSlot.key.startswith(CUSTOMER_SLOT_PREFIX), PacingSlot.next_at < now - SLOT_RETENTION
        )
    )
    return int(result.rowcount)  # type: ignore[attr-defined]
