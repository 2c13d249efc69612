"""The atomic claim: due rows are reserved with a send moment, paced through the database; a row becomes
`sending` only when its call is about to leave.

The claim is one write transaction. On SQLite that transaction holds the single write lock (BEGIN
IMMEDIATE); on PostgreSQL the number's pacing slot is locked first (so pacing and the tier count hold
across processes) and the due rows are read `FOR UPDATE SKIP LOCKED`. It books each row's moment and
*reserves* it (the transition table's `reserve`): the row stays `queued`, names the claim's token and
is not due again until the reservation ends. Tens of milliseconds before a row's moment the sender
`start`s it (`queued` → `sending`, a new attempt) in a short transaction guarded by that token, so two
claims can never both start one row; a reservation it gives up is `release`d and due again at once.
A crash thus leaves `sending`, and later `unknown`, only rows whose call may have left.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Table, and_, bindparam, delete, func, or_, select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql import ColumnElement

from backend.database.models import Contact, Conversation, MediaFile, OutboxMessage, PacingSlot
from backend.database.upsert import dialect_insert, insert_ignoring_conflicts
from backend.domain import states
from backend.domain.media import GRAPH_MEDIA_VALIDITY
from backend.domain.pacing import (
    RATE_SLOT_KEY,
    TIER_WINDOW,
    Candidate,
    PacingRules,
    PacingState,
    customer_slot_key,
    paced_rate,
    plan_claim,
)
from backend.domain.quiet_hours import parse_quiet_hours
from backend.domain.transitions import (
    DEFER,
    HOLD_CLOSED_WINDOW,
    OPT_OUT_CANCEL,
    RELEASE,
    RESERVE,
    START,
    Transition,
)
from backend.outbox.state_writes import (
    OUTBOX,
    ROW_ID,
    RowRef,
    held_by,
    journal_transitions,
    transition_update,
    write_each,
)
from backend.settings import Settings

PACING: Table = PacingSlot.__table__  # type: ignore[assignment]
# How long a file's message waits before the claim looks again whether Meta holds the file yet.
MEDIA_WAIT = timedelta(seconds=1)
# Priority levels looked at per claim; more distinct levels than this wait for a later claim.
MAX_PRIORITY_LEVELS = 8
# States that mean a business-initiated send reached (or may have reached) the customer.
REACHED_STATES = (states.SENDING, states.ACCEPTED, states.SENT, states.DELIVERED, states.READ, states.UNKNOWN)
DEFAULT_HORIZON_SECONDS = 1.0
# How long a reservation outlives the claim's horizon: the half second a sender lets a row run late,
# and slack for a slow start transaction. After a crash the rows are due again at most the horizon
# plus this margin after their claim.
RESERVATION_MARGIN_SECONDS = 2.0
# Rows whose moment is this close are started at once: the tick that starts rows runs every 20 ms, so
# a row is `sending` at most about this long before its call leaves.
START_LEAD_SECONDS = 0.04
# Room left in claimed_by (String(100)) for the claim's own suffix.
WORKER_ID_LENGTH = 90

Changes = list[tuple[Transition, RowRef]]


@dataclass(frozen=True)
class ClaimedMessage:
    """A row one claim reserved, with the moment it may be sent; once started, its attempt and lease."""

    id: int
    dedupe_key: str
    to_number: str
    purpose: str
    kind: str
    payload: dict[str, Any]
    reply_to: str | None
    conversation_id: int | None
    # The attempt this send is: the row's attempts once started (read back from the start itself).
    attempts: int
    dispatch_at: datetime
    # The claim's token in claimed_by: only this claim may start or release the row.
    token: str
    # Set once the row is `sending`.
    lease_expires_at: datetime | None = None
    # Meta's id of the row's file (a media message), uploaded before the row could be claimed.
    graph_media_id: str | None = None
    # The customer's pacing slot as this booking left it, and as it was before (None: no slot yet):
    # a row never sent hands the slot back, so its next claim need not wait out the pair interval.
    customer_slot_booked: datetime | None = None
    customer_slot_before: datetime | None = None


def pacing_rules(settings: Settings, horizon_seconds: float = DEFAULT_HORIZON_SECONDS) -> PacingRules:
    """The pacing limits the settings ask for."""
    return PacingRules(
        rate=paced_rate(settings.send_rate),
        pair_interval=settings.pair_interval_seconds,
        horizon_seconds=horizon_seconds,
        quiet=parse_quiet_hours(settings.quiet_hours),
        tier_limit=settings.messaging_tier,
        fallback_zone=settings.business_timezone,
    )


def claim_token(worker_id: str) -> str:
    """A token naming one claim of `worker_id`, unique among its claims."""
    return f"{worker_id[:WORKER_ID_LENGTH]}/{secrets.token_hex(4)}"


def claim_batch(
    session: Session,
    *,
    rules: PacingRules,
    lease_seconds: float,
    now: datetime,
    limit: int,
    worker_id: str,
    start_lead_seconds: float = START_LEAD_SECONDS,
) -> list[ClaimedMessage]:
    """Reserve up to `limit` due rows for one claim of `worker_id`, each with its send moment, in moment
    order; defer or hold the due rows pacing keeps back.

    Rows whose moment is within `start_lead_seconds` are started at once, with a lease of
    `lease_seconds` (their `lease_expires_at` is set); the rest wait for `start_reserved`.
    """
    if limit <= 0:
        return []
    postgres = session.get_bind().dialect.name == "postgresql"
    rate_next_at = _lock_number_slot(session, now, postgres)
    # A few extra candidates, so rows that pacing holds back do not leave the batch short.
    rows = _due_rows(session, now, limit + max(16, limit // 4), postgres)
    if not rows:
        return []
    changes: Changes = []
    # Marketing to a contact who opted out after it was queued is cancelled here, before any call.
    stopped = [row for row in rows if row.marketing and row.opted_out]
    if stopped:
        session.execute(
            transition_update(OPT_OUT_CANCEL, now).where(OUTBOX.c.id.in_([r.id for r in stopped]))
        )
        changes += [(OPT_OUT_CANCEL, _ref(row)) for row in stopped]
        rows = [row for row in rows if not (row.marketing and row.opted_out)]
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
        token = claim_token(worker_id)
        reserved_until = now + timedelta(seconds=rules.horizon_seconds + RESERVATION_MARGIN_SECONDS)
        # Reservations are not news for the journal: the row stays `queued` until it starts.
        returned = session.execute(
            transition_update(RESERVE, now, {"claimed_by": token, "not_before": reserved_until})
            .where(OUTBOX.c.id.in_(list(moments)), OUTBOX.c.not_before <= now)
            .returning(OUTBOX.c.id, OUTBOX.c.attempts)
        ).all()
        for row_id, attempts in returned:
            row = by_id[row_id]
            slot_before, slot_booked = plan.customer_slot_change[row_id]
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
                    attempts=attempts + 1,
                    dispatch_at=moments[row_id],
                    token=token,
                    graph_media_id=row.graph_media_id,
                    customer_slot_booked=slot_booked,
                    customer_slot_before=slot_before,
                )
            )
        claimed.sort(key=lambda message: message.dispatch_at)
        soon = now + timedelta(seconds=start_lead_seconds)
        first_later = next(
            (i for i, message in enumerate(claimed) if message.dispatch_at > soon), len(claimed)
        )
        if first_later:
            started = start_reserved(
                session, claimed[:first_later], now=now, lease_seconds=lease_seconds, changes=changes
            )
            # In the reservation's own transaction every one of them is still this claim's.
            claimed[:first_later] = started
        if plan.customer_next_at:
            upsert_slots(session, {customer_slot_key(n): at for n, at in plan.customer_next_at.items()})
        if plan.rate_next_at is not None:
            session.execute(
                update(PACING).where(PACING.c.key == RATE_SLOT_KEY).values(next_at=plan.rate_next_at)
            )
    journal_transitions(session, changes, now)
    return claimed


def start_reserved(
    session: Session,
    messages: Sequence[ClaimedMessage],
    *,
    now: datetime,
    lease_seconds: float,
    changes: Changes | None = None,
) -> list[ClaimedMessage]:
    """Mark `sending` the reserved rows whose calls are about to leave, where their claim still holds
    them; those rows, started, in moment order. Only these may be sent.

    A row not returned was cancelled, or reserved by another claim after this reservation ran out.
    With `changes`, the journal entries are left to the caller (one journal write per transaction).
    """
    lease_expires_at = now + timedelta(seconds=lease_seconds)
    started: list[ClaimedMessage] = []
    for token, group in _by_token(messages).items():
        by_id = {message.id: message for message in group}
        returned = session.execute(
            transition_update(START, now, {"lease_expires_at": lease_expires_at, "claimed_by": token})
            .where(OUTBOX.c.id.in_(list(by_id)), held_by(token))
            .returning(OUTBOX.c.id, OUTBOX.c.attempts)
        ).all()
        started += [
            replace(by_id[row_id], attempts=attempts, lease_expires_at=lease_expires_at)
            for row_id, attempts in returned
        ]
    # In moment order, for the dispatcher and for the feed alike.
    started.sort(key=lambda message: message.dispatch_at)
    own: Changes = [(START, _ref(message)) for message in started]
    if changes is None:
        journal_transitions(session, own, now)
    else:
        changes += own
    return started


def release_reserved(session: Session, messages: Sequence[ClaimedMessage], now: datetime) -> int:
    """Give up the reservations of rows never started: due again at once, for any claim, their
    customers' pacing slots handed back.

    No attempt was made and the row never left `queued`, so nothing is journaled.
    """
    released: list[int] = []
    for token, group in _by_token(messages).items():
        released += session.scalars(
            transition_update(RELEASE, now, {"not_before": now})
            .where(OUTBOX.c.id.in_([message.id for message in group]), held_by(token))
            .returning(OUTBOX.c.id)
        ).all()
    handed_back = set(released)
    hand_back_customer_slots(session, [message for message in messages if message.id in handed_back])
    return len(released)


def hand_back_customer_slots(session: Session, messages: Sequence[ClaimedMessage]) -> None:
    """Put back the customer slots these unsent rows booked, where no later booking moved them since.

    Without it a row given back would wait out the pair interval for a message that never went.
    """
    restore = [
        {
            "slot_key": customer_slot_key(m.to_number),
            "booked": m.customer_slot_booked,
            "before": m.customer_slot_before,
        }
        for m in messages
        if m.customer_slot_booked is not None
    ]
    if not restore:
        return
    booked = and_(PACING.c.key == bindparam("slot_key"), PACING.c.next_at == bindparam("booked"))
    back = [entry for entry in restore if entry["before"] is not None]
    gone = [entry for entry in restore if entry["before"] is None]
    if back:
        session.execute(update(PACING).where(booked).values(next_at=bindparam("before")), back)
    if gone:
        session.execute(delete(PACING).where(booked), gone)


def _by_token(messages: Sequence[ClaimedMessage]) -> dict[str, list[ClaimedMessage]]:
    groups: dict[str, list[ClaimedMessage]] = {}
    for message in messages:
        groups.setdefault(message.token, []).append(message)
    return groups


def _ref(row: Any) -> RowRef:
    # A due or reserved row is `queued`; its journal entries name no wamid, as a new attempt has none yet.
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
        OutboxMessage.media_id,
        OutboxMessage.marketing,
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
    facts = _contact_facts(session, [row.conversation_id for row in rows if row.conversation_id])
    graph_ids = _graph_media_ids(session, [row.media_id for row in rows if row.media_id], now)
    waiting = {row.id for row in rows if row.media_id and row.media_id not in graph_ids}
    if waiting:
        # A file's message goes only once Meta holds the file: the media uploader gives it to Meta
        # meanwhile, so a failed upload never touches the row (and can never make a second message).
        later = now + MEDIA_WAIT
        write_each(session, DEFER, now, [{ROW_ID: row_id, "not_before": later} for row_id in sorted(waiting)])
        rows = [row for row in rows if row.id not in waiting]
    return [
        _Row(row, *facts.get(row.conversation_id, (None, False)), graph_media_id=graph_ids.get(row.media_id))
        for row in rows
    ]


def _graph_media_ids(session: Session, media_ids: list[str], now: datetime) -> dict[str, str]:
    """Meta's ids of these files where Meta still holds them (uploaded within their validity)."""
    if not media_ids:
        return {}
    found = session.execute(
        select(MediaFile.media_id, MediaFile.graph_media_id).where(
            MediaFile.media_id.in_(sorted(set(media_ids))),
            MediaFile.graph_uploaded_at > now - GRAPH_MEDIA_VALIDITY,
        )
    ).all()
    return {media_id: graph_id for media_id, graph_id in found if graph_id}


class _Row:
    """A due row with its customer's window end attached."""

    __slots__ = (
        "business_initiated",
        "conversation_id",
        "dedupe_key",
        "graph_media_id",
        "id",
        "kind",
        "marketing",
        "opted_out",
        "payload",
        "purpose",
        "reply_to",
        "to_number",
        "urgent",
        "window_closes_at",
    )

    def __init__(
        self, row: Any, window_closes_at: datetime | None, opted_out: bool, graph_media_id: str | None = None
    ) -> None:
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
        self.graph_media_id = graph_media_id
        self.marketing: bool = bool(row.marketing)
        self.opted_out = opted_out


def _contact_facts(
    session: Session, conversation_ids: Sequence[int]
) -> dict[int, tuple[datetime | None, bool]]:
    """Each conversation's window end and whether its contact opted out of marketing."""
    if not conversation_ids:
        return {}
    query = (
        select(Conversation.id, Contact.window_closes_at, Contact.opted_out_at)
        .join(Contact, Contact.id == Conversation.contact_id)
        .where(Conversation.id.in_(sorted(set(conversation_ids))))
    )
    return {
        conversation_id: (closes_at, opted_out_at is not None)
        for conversation_id, closes_at, opted_out_at in session.execute(query)
    }


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
        # A row another claim reserved takes its place too. A crashed claim's reservation counts until
        # the row is claimed again, which errs on the side of the tier.
        or_(
            OutboxMessage.state.in_(REACHED_STATES),
            and_(OutboxMessage.state == states.QUEUED, OutboxMessage.claimed_by.is_not(None)),
        ),
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
