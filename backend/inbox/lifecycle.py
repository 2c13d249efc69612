"""A conversation's status: open, pending (waiting on the customer), resolved, snoozed until a time."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import Conversation, ConversationStatusChange
from backend.inbox.waiting import waiting_for_resolution
from backend.journal import journal, journal_many

OPEN = "open"
PENDING = "pending"
RESOLVED = "resolved"
SNOOZED = "snoozed"
STATUSES = (OPEN, PENDING, RESOLVED, SNOOZED)
# What GET /v1/conversations lists when no status is asked for: what still needs someone.
DEFAULT_LIST_STATUSES = (OPEN, PENDING)
# The list filter's word for every status.
ALL_STATUSES = "all"
STATUS_CHANGED = "conversation.status_changed"
# The actor of a change no person made (a customer's message, a snooze running out).
SYSTEM = "system"
# Why a status changed, as journaled.
BY_USER = "user"
CUSTOMER_WROTE = "customer_wrote"
SNOOZE_ENDED = "snooze_ended"
# Snoozes one sweep ends at most, so a sweep stays a short transaction.
SNOOZE_BATCH = 500


class StatusError(ValueError):
    """A status change that cannot be made as asked; the message says why."""


def status_entry(conversation: Conversation, by: str, reason: str) -> tuple[str, dict[str, Any]]:
    """The journal entry announcing the conversation's current status."""
    until = conversation.snoozed_until
    return (
        STATUS_CHANGED,
        {
            "conversation_id": conversation.id,
            "status": conversation.status,
            "snoozed_until": until.astimezone(UTC).isoformat().replace("+00:00", "Z")
            if until is not None
            else None,
            "by": by,
            "reason": reason,
        },
    )


def record_status_change(
    session: Session, conversation: Conversation, previous: str, user_id: int | None, now: datetime
) -> None:
    """Keep the change from `previous` to the conversation's status for reports (user None: the system)."""
    resolves = conversation.status == RESOLVED and previous != RESOLVED
    session.add(
        ConversationStatusChange(
            conversation_id=conversation.id,
            previous_status=previous,
            status=conversation.status,
            user_id=user_id,
            at=now,
            waiting_since=waiting_for_resolution(session, conversation.id, now) if resolves else None,
        )
    )


def check_status_change(status: object, until: datetime | None, now: datetime) -> str:
    """The status asked for, if it can be set with this `until` now; else StatusError."""
    if not isinstance(status, str) or status not in STATUSES:
        raise StatusError(f"status must be one of {', '.join(STATUSES)}.")
    if status == SNOOZED:
        if until is None:
            raise StatusError("A snooze needs until: the ISO 8601 time it ends.")
        if until <= now:
            raise StatusError("until must be in the future.")
    elif until is not None:
        raise StatusError("until is given only with status snoozed.")
    return status


def parse_until(raw: object) -> datetime | None:
    """`until` of a status change as an aware UTC time (None when absent); else StatusError."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise StatusError("until must be an ISO 8601 time with a time zone.")
    try:
        moment = datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw)
    except ValueError:
        raise StatusError("until must be an ISO 8601 time with a time zone.") from None
    if moment.tzinfo is None:
        raise StatusError("until must carry a time zone (use ...Z for UTC).")
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise StatusError("until is out of range.") from None


def set_status(
    session: Session,
    conversation: Conversation,
    status: str,
    until: datetime | None,
    *,
    by: str,
    now: datetime,
    user_id: int | None = None,
) -> bool:
    """Give the (locked) conversation a checked status; journal and record who did it. Whether it changed."""
    snoozed_until = until if status == SNOOZED else None
    if conversation.status == status and conversation.snoozed_until == snoozed_until:
        return False
    previous = conversation.status
    conversation.status = status
    conversation.snoozed_until = snoozed_until
    session.flush()
    if previous != status:  # a snooze moved to another time is no change of status
        record_status_change(session, conversation, previous, user_id, now)
    event_type, data = status_entry(conversation, by, BY_USER)
    journal(session, event_type, data, now)
    return True


def parse_status_filter(raw: str | None) -> tuple[str, ...] | None:
    """The statuses a list asks for (`open,pending`), None for `all`; the default when absent."""
    if raw is None or raw == "":
        return DEFAULT_LIST_STATUSES
    parts = [part.strip() for part in raw.split(",")]
    if parts == [ALL_STATUSES]:
        return None
    if not all(part in STATUSES for part in parts):
        raise StatusError(
            f"status must be {ALL_STATUSES} or a comma-separated list of {', '.join(STATUSES)}."
        )
    return tuple(dict.fromkeys(parts))


def reopen_for_inbound(
    session: Session, conversation: Conversation, now: datetime
) -> tuple[str, dict[str, Any]] | None:
    """A customer's new message puts a resolved, pending or snoozed conversation back in front of agents."""
    if conversation.status == OPEN:
        return None
    record_previous = conversation.status
    conversation.status = OPEN
    conversation.snoozed_until = None
    record_status_change(session, conversation, record_previous, None, now)
    return status_entry(conversation, SYSTEM, CUSTOMER_WROTE)


def reopen_when_snooze_ends(
    session: Session, conversation: Conversation, now: datetime
) -> tuple[str, dict[str, Any]] | None:
    """A snoozed conversation whose time has come is open again."""
    until = conversation.snoozed_until
    if conversation.status != SNOOZED or until is None or until > now:
        return None
    conversation.status = OPEN
    conversation.snoozed_until = None
    record_status_change(session, conversation, SNOOZED, None, now)
    return status_entry(conversation, SYSTEM, SNOOZE_ENDED)


def snoozes_due(session: Session, now: datetime) -> bool:
    """Whether any snooze has run out (a cheap read before taking the write lock)."""
    return (
        session.scalar(
            select(Conversation.id)
            .where(Conversation.status == SNOOZED, Conversation.snoozed_until <= now)
            .limit(1)
        )
        is not None
    )


def end_due_snoozes(session: Session, now: datetime) -> list[int]:
    """Open every conversation whose snooze ran out, journaled as the system's; their ids."""
    due = session.scalars(
        select(Conversation)
        .where(Conversation.status == SNOOZED, Conversation.snoozed_until <= now)
        .order_by(Conversation.snoozed_until, Conversation.id)
        .limit(SNOOZE_BATCH)
        # Several worker processes on PostgreSQL: each snooze is ended (and journaled) by one.
        .with_for_update(skip_locked=True)
    ).all()
    entries = [
        entry for entry in (reopen_when_snooze_ends(session, row, now) for row in due) if entry is not None
    ]
    session.flush()
    journal_many(session, entries, now)
    return [row.id for row in due]
