"""Outbox sweeps: expired leases become `unknown`; old `unknown` rows meet their purpose's rule."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from backend.database.models import OutboxMessage, PacingSlot, SendDecision, StatusEvent
from backend.domain import states
from backend.domain.pacing import CUSTOMER_SLOT_PREFIX
from backend.domain.transitions import (
    EVIDENCE_ACCEPTED,
    LEASE_EXPIRED,
    RULE_RESEND,
    RULE_REVIEW,
    Transition,
    unknown_decision,
)
from backend.outbox.state_writes import (
    OUTBOX,
    ROW_ID,
    RowRef,
    journal_transition,
    journal_transitions,
    transition_update,
    write_each,
)
from backend.settings import Settings

log = logging.getLogger(__name__)

RULE_ACTOR = "rule"
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
        transition_update(LEASE_EXPIRED, now).where(
            OUTBOX.c.id.in_([row.id for row in rows]), OUTBOX.c.lease_expires_at < now
        )
    )
    refs = [
        RowRef(
            key=row.dedupe_key,
            conversation_id=row.conversation_id,
            previous_state=states.SENDING,
            wamid=row.wamid,
        )
        for row in rows
    ]
    journal_transition(session, LEASE_EXPIRED, refs, now)
    for ref in refs:
        log.info("send %s: unknown (lease expired: its sender stopped while it was going out)", ref.key)
    return len(rows)


@dataclass(frozen=True)
class UnknownDecision:
    """What the rule decided for one `unknown` row."""

    key: str
    action: str
    reason: str


_ACTIONS = {EVIDENCE_ACCEPTED: "accepted", RULE_RESEND: "resend", RULE_REVIEW: "review"}


def resolve_unknown(
    session: Session, settings: Settings, now: datetime, limit: int = 500
) -> list[UnknownDecision]:
    """Decide every `unknown` row older than the wait: accepted on evidence, else resend or review by rule."""
    cutoff = now - timedelta(seconds=settings.unknown_wait_seconds)
    query = (
        select(
            OutboxMessage.id,
            OutboxMessage.dedupe_key,
            OutboxMessage.conversation_id,
            OutboxMessage.purpose,
            OutboxMessage.attempts,
            OutboxMessage.wamid,
        )
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
    rows = session.execute(query).all()
    decisions: list[UnknownDecision] = []
    writes: dict[Transition, list[dict[str, Any]]] = {}
    changes: list[tuple[Transition, RowRef]] = []
    wait = f"{settings.unknown_wait_seconds:g} s"
    for row in rows:
        evidence = session.execute(
            select(StatusEvent.wamid, StatusEvent.status)
            .where((StatusEvent.callback_data == row.dedupe_key) | (StatusEvent.message_id == row.id))
            .limit(1)
        ).first()
        rule = settings.rule_for(row.purpose)
        transition = unknown_decision(
            evidence_status=evidence.status if evidence is not None else None,
            rule=rule.unknown_rule,
            attempts=row.attempts,
            max_attempts=settings.max_attempts,
        )
        values: dict[str, Any] = {ROW_ID: row.id}
        wamid = row.wamid
        if transition is EVIDENCE_ACCEPTED:
            assert evidence is not None
            values["wamid"] = evidence.wamid
            wamid = row.wamid or evidence.wamid
            reason = f"a {evidence.status} status webhook names this row"
        elif transition is RULE_RESEND:
            reason = (
                f"no status webhook with our key within {wait}; purpose {row.purpose} is "
                f"time-sensitive and harmless to repeat (rule: resend)"
            )
        else:
            why = (
                f"{row.attempts} attempts reached the limit of {settings.max_attempts}"
                if rule.unknown_rule == "resend"
                else f"purpose {row.purpose} is left to a supervisor (rule: review)"
            )
            reason = f"no status webhook with our key within {wait}; {why}"
        action = _ACTIONS[transition]
        writes.setdefault(transition, []).append(values)
        session.add(
            SendDecision(message_id=row.id, decided_at=now, actor=RULE_ACTOR, action=action, reason=reason)
        )
        decisions.append(UnknownDecision(row.dedupe_key, action, reason))
        log.info("unknown send %s: %s (%s)", row.dedupe_key, action, reason)
        changes.append(
            (
                transition,
                RowRef(
                    key=row.dedupe_key,
                    conversation_id=row.conversation_id,
                    previous_state=states.UNKNOWN,
                    wamid=wamid,
                ),
            )
        )
    for transition, values_by_row in writes.items():
        write_each(session, transition, now, values_by_row)
    session.flush()
    journal_transitions(session, changes, now)
    return decisions


def prune_pacing_slots(session: Session, now: datetime) -> int:
    """Drop customer pacing slots long in the past; the number's own slot stays."""
    result = session.execute(
        delete(PacingSlot).where(
            PacingSlot.key.startswith(CUSTOMER_SLOT_PREFIX), PacingSlot.next_at < now - SLOT_RETENTION
        )
    )
    return int(result.rowcount)  # type: ignore[attr-defined]
