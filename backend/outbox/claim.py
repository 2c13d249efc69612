"""The atomic claim: due rows become `sending` with a lease and a send moment, paced through the database.

One write transaction does it all. On SQLite that transaction holds the single write lock (BEGIN
IMMEDIATE) and the rows move with one `UPDATE ... WHERE state = 'queued' RETURNING` (the transition
table's `claim_for_send`); on PostgreSQL the number's pacing slot is locked first (so pacing and the
tier count hold across processes) and the due rows are read `FOR UPDATE SKIP LOCKED`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Table, func, select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql import ColumnElement

from backend.database.models import Contact, Conversation, OutboxMessage, PacingSlot
from backend.database.upsert import dialect_insert, insert_ignoring_conflicts
from backend.domain import states
from backend.domain.pacing import (
    RATE_SLOT_KEY,
    TIER_WINDOW,
    Candidate,
    PacingRules,
    PacingState,
    customer_slot_key,
    plan_claim,
)
from backend.domain.quiet_hours import parse_quiet_hours
from backend.domain.transitions import CLAIM_FOR_SEND, DEFER, HOLD_CLOSED_WINDOW, Transition
from backend.outbox.state_writes import (
    OUTBOX,
    ROW_ID,
    RowRef,
    journal_transitions,
    transition_update,
    write_each,
)
from backend.settings import Settings

PACING: Table = PacingSlot.__table__  # type: ignore[assignment]
# Priority levels looked at per claim; more distinct levels than this wait for a later claim.
MAX_PRIORITY_LEVELS = 8
# States that mean a business-initiated send reached (or may have reached) the customer.
REACHED_STATES = (states.SENDING, states.ACCEPTED, states.SENT, states.DELIVERED, states.READ, states.UNKNOWN)
DEFAULT_HORIZON_SECONDS = 1.0


@dataclass(frozen=True)
class ClaimedMessage:
    """A row this worker now owns in `sending`, with the moment it may be sent."""

    id: int
    dedupe_key: str
    to_number: str
    purpose: str
    kind: str
    payload: dict[str, Any]
    reply_to: str | None
    conversation_id: int | None
    attempts: int
    dispatch_at: datetime
    lease_expires_at: datetime


def pacing_rules(settings: Settings, horizon_seconds: float = DEFAULT_HORIZON_SECONDS) -> PacingRules:
    """The pacing limits the settings ask for."""
    return PacingRules(
        rate=settings.send_rate,
        pair_interval=settings.pair_interval_seconds,
        horizon_seconds=horizon_seconds,
        quiet=parse_quiet_hours(settings.quiet_hours),
        tier_limit=settings.messaging_tier,
        fallback_zone=settings.business_timezone,
    )


def claim_batch(
    session: Session,
    *,
    rules: PacingRules,
    lease_seconds: float,
    now: datetime,
    limit: int,
    worker_id: str,
) -> list[ClaimedMessage]:
    """Claim up to `limit` due rows for `worker_id`; defer or hold the due rows pacing keeps back."""
    if limit <= 0:
        return []
    postgres = session.get_bind().dialect.name == "postgresql"
    rate_next_at = _lock_number_slot(session, now, postgres)
    # A few extra candidates, so rows that pacing holds back do not leave the batch short.
    rows = _due_rows(session, now, limit + max(16, limit // 4), postgres)
    if not rows:
        return []
    numbers = sorted({row.to_number for row in rows})
    customer_next = _customer_slots(session, numbers)
    reached_numbers: set[str] = set()
    state = PacingState(rate_next_at=rate_next_at, customer_next_at=customer_next)
    if rules.tier_limit is not None:
        state.reached_count, state.tier_frees_at, reached_numbers = _tier_state(session, numbers, now)
    candidates = [
        Candidate(
            id=row.id,
            to_number=row.to_number,
            kind=row.kind,
            urgent=row.urgent,
            business_initiated=row.business_initiated,
            window_closes_at=row.window_closes_at,
            already_reached=row.to_number in reached_numbers,
        )
        for row in rows
    ]
    plan = plan_claim(candidates, state, rules, now, limit)
    by_id = {row.id: row for row in rows}
    lease_expires_at = now + timedelta(seconds=rules.horizon_seconds + lease_seconds)
    changes: list[tuple[Transition, RowRef]] = []

    if plan.deferred:
        write_each(
            session,
            DEFER,
            now,
            [{ROW_ID: row_id, "not_before": later} for row_id, later, _reason in plan.deferred],
        )
    if plan.held:
        session.execute(transition_update(HOLD_CLOSED_WINDOW, now).where(OUTBOX.c.id.in_(plan.held)))
        changes += [(HOLD_CLOSED_WINDOW, _ref(by_id[row_id])) for row_id in plan.held]

    claimed: list[ClaimedMessage] = []
    if plan.dispatch:
        moments = dict(plan.dispatch)
        returned = session.execute(
            transition_update(
                CLAIM_FOR_SEND, now, {"lease_expires_at": lease_expires_at, "claimed_by": worker_id}
            )
            .where(OUTBOX.c.id.in_(list(moments)))
            .returning(OUTBOX.c.id, OUTBOX.c.attempts)
        ).all()
        for row_id, attempts in returned:
            row = by_id[row_id]
            claimed.append(
                ClaimedMessage(
                    id=row_id,
                    dedupe_key=row.dedupe_key,
                    to_number=row.to_number,
                    purpose=row.purpose,
                    kind=row.kind,
                    payload=row.payload,
                    reply_to=row.reply_to,
                    conversation_id=row.conversation_id,
                    attempts=attempts,
                    dispatch_at=moments[row_id],
                    lease_expires_at=lease_expires_at,
                )
            )
            changes.append((CLAIM_FOR_SEND, _ref(row)))
        claimed.sort(key=lambda message: message.dispatch_at)
        if plan.customer_next_at:
            upsert_slots(session, {customer_slot_key(n): at for n, at in plan.customer_next_at.items()})
        if plan.rate_next_at is not None:
            session.execute(
                update(PACING).where(PACING.c.key == RATE_SLOT_KEY).values(next_at=plan.rate_next_at)
            )
    journal_transitions(session, changes, now)
    return claimed


def _ref(row: Any) -> RowRef:
    # A due row is `queued`; its journal entries name no wamid, as a new attempt has none yet.
    return RowRef(
        key=row.dedupe_key, conversation_id=row.conversation_id, previous_state=states.QUEUED, wamid=None
    )


def _lock_number_slot(session: Session, now: datetime, postgres: bool) -> datetime:
    session.execute(insert_ignoring_conflicts(session, PacingSlot, ["key"], key=RATE_SLOT_KEY, next_at=now))
    query = select(PacingSlot.next_at).where(PacingSlot.key == RATE_SLOT_KEY)
    if postgres:
        # Every claimer queues here, so slots, pair limits and the tier count are decided one at a time.
        query = query.with_for_update()
    return session.execute(query).scalar_one()


def _due_rows(session: Session, now: datetime, fetch: int, postgres: bool) -> list[Any]:
    columns = (
        OutboxMessage.id,
        OutboxMessage.dedupe_key,
        OutboxMessage.to_number,
        OutboxMessage.purpose,
        OutboxMessage.kind,
        OutboxMessage.payload,
        OutboxMessage.reply_to,
        OutboxMessage.conversation_id,
        OutboxMessage.urgent,
        OutboxMessage.business_initiated,
    )
    rows: list[Any] = []
    ceiling: int | None = None
    for _ in range(MAX_PRIORITY_LEVELS):
        if len(rows) >= fetch:
            break
        # The highest priority below the last one seen: an index lookup, not a scan of the backlog.
        level_query = select(func.max(OutboxMessage.priority)).where(OutboxMessage.state == states.QUEUED)
        if ceiling is not None:
            level_query = level_query.where(OutboxMessage.priority < ceiling)
        level = session.execute(level_query).scalar_one_or_none()
        if level is None:
            break
        ceiling = level
        query = (
            select(*columns)
            .where(
                OutboxMessage.state == states.QUEUED,
                OutboxMessage.priority == level,
                OutboxMessage.not_before <= now,
            )
            .order_by(OutboxMessage.not_before, OutboxMessage.id)
            .limit(fetch - len(rows))
        )
        if postgres:
            query = query.with_for_update(skip_locked=True)
        rows.extend(session.execute(query).all())
    if not rows:
        return []
    windows = _window_closes_at(session, [row.conversation_id for row in rows if row.conversation_id])
    return [_Row(row, windows.get(row.conversation_id)) for row in rows]


class _Row:
    """A due row with its customer's window end attached."""

    __slots__ = (
        "business_initiated",
        "conversation_id",
        "dedupe_key",
        "id",
        "kind",
        "payload",
        "purpose",
        "reply_to",
        "to_number",
        "urgent",
        "window_closes_at",
    )

    def __init__(self, row: Any, window_closes_at: datetime | None) -> None:
        self.id: int = row.id
        self.dedupe_key: str = row.dedupe_key
        self.to_number: str = row.to_number
        self.purpose: str = row.purpose
        self.kind: str = row.kind
        self.payload: dict[str, Any] = row.payload
        self.reply_to: str | None = row.reply_to
        self.conversation_id: int | None = row.conversation_id
        self.urgent: bool = bool(row.urgent)
        self.business_initiated: bool = bool(row.business_initiated)
        self.window_closes_at = window_closes_at


def _window_closes_at(session: Session, conversation_ids: Sequence[int]) -> dict[int, datetime | None]:
    if not conversation_ids:
        return {}
    query = (
        select(Conversation.id, Contact.window_closes_at)
        .join(Contact, Contact.id == Conversation.contact_id)
        .where(Conversation.id.in_(sorted(set(conversation_ids))))
    )
    return {conversation_id: closes_at for conversation_id, closes_at in session.execute(query)}


def _customer_slots(session: Session, numbers: list[str]) -> dict[str, datetime]:
    keys = [customer_slot_key(number) for number in numbers]
    found = session.execute(select(PacingSlot.key, PacingSlot.next_at).where(PacingSlot.key.in_(keys)))
    prefix = len(customer_slot_key(""))
    return {key[prefix:]: next_at for key, next_at in found}


def _tier_state(session: Session, numbers: list[str], now: datetime) -> tuple[int, datetime | None, set[str]]:
    since = now - TIER_WINDOW
    reached = (
        OutboxMessage.business_initiated.is_(True),
        OutboxMessage.last_attempt_at > since,
        OutboxMessage.state.in_(REACHED_STATES),
    )
    count, oldest = session.execute(
        select(
            func.count(func.distinct(OutboxMessage.to_number)), func.min(OutboxMessage.last_attempt_at)
        ).where(*reached)
    ).one()
    already = set(
        session.scalars(
            select(OutboxMessage.to_number).where(*reached, OutboxMessage.to_number.in_(numbers)).distinct()
        )
    )
    frees_at = oldest + TIER_WINDOW if oldest is not None else None
    return int(count or 0), frees_at, already


def upsert_slots(session: Session, slots: dict[str, datetime], *, keep_later: bool = False) -> None:
    """Set pacing slots' next moments (creating them); with keep_later, never move a slot earlier."""
    if not slots:
        return
    statement = dialect_insert(session, PACING)
    new_value: ColumnElement[Any] = statement.excluded.next_at
    if keep_later:
        new_value = func.max(PACING.c.next_at, statement.excluded.next_at)
        if session.get_bind().dialect.name == "postgresql":
            new_value = func.greatest(PACING.c.next_at, statement.excluded.next_at)
    statement = statement.on_conflict_do_update(index_elements=[PACING.c.key], set_={"next_at": new_value})
    session.execute(statement, [{"key": key, "next_at": at} for key, at in slots.items()])
