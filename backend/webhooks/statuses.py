"""Status webhooks: move an outbox row forward only, keep every status's time, resolve unknown rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, or_, select, update
from sqlalchemy.orm import Session

from backend.database.models import OutboxMessage
from backend.database.models import StatusEvent as StatusEventRow
from backend.domain import states
from backend.domain.webhook_events import StatusEvent, first_error

# A status naming one of these rows by its key (biz_opaque_callback_data) tells us its wamid.
_RESOLVABLE_BY_KEY = frozenset({states.SENDING, states.UNKNOWN})
_TIMESTAMP_FIELDS = {
    "sent": "sent_at",
    "delivered": "delivered_at",
    "read": "read_at",
    "played": "read_at",
    "failed": "failed_at",
}
_CHUNK = 500


@dataclass
class StatusOutcome:
    """What a batch of statuses did."""

    applied: int = 0
    unmatched: int = 0
    journal: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


# What a status may read or change on an outbox row; loaded as plain values, written back in one executemany.
_FIELDS = (
    "id",
    "dedupe_key",
    "conversation_id",
    "state",
    "wamid",
    "sent_at",
    "delivered_at",
    "read_at",
    "failed_at",
    "last_error_code",
    "last_error_title",
    "last_error_details",
    "unknown_since",
    "updated_at",
)
_WRITTEN = _FIELDS[3:]


@dataclass
class _Row:
    """The status-related part of an outbox row."""

    id: int
    dedupe_key: str
    conversation_id: int | None
    state: str
    wamid: str | None
    sent_at: datetime | None
    delivered_at: datetime | None
    read_at: datetime | None
    failed_at: datetime | None
    last_error_code: int | None
    last_error_title: str | None
    last_error_details: str | None
    unknown_since: datetime | None
    updated_at: datetime
    changed: bool = False


def _load_rows(session: Session, wamids: set[str], keys: set[str]) -> list[_Row]:
    rows: dict[int, _Row] = {}
    lock = session.get_bind().dialect.name == "postgresql"
    wamid_list, key_list = sorted(wamids), sorted(keys)
    columns = [getattr(OutboxMessage, name) for name in _FIELDS]
    for start in range(0, max(len(wamid_list), len(key_list)), _CHUNK):
        some_wamids = wamid_list[start : start + _CHUNK]
        some_keys = key_list[start : start + _CHUNK]
        query = (
            select(*columns)
            .where(or_(OutboxMessage.wamid.in_(some_wamids), OutboxMessage.dedupe_key.in_(some_keys)))
            .order_by(OutboxMessage.id)
        )
        if lock:
            # Another processor may hold a newer state of the same row; wait for it, never overwrite it.
            query = query.with_for_update()
        for values in session.execute(query):
            rows[values[0]] = _Row(*values)
    return list(rows.values())


def _write_rows(session: Session, rows: list[_Row]) -> None:
    changed = [row for row in rows if row.changed]
    if not changed:
        return
    table: Any = OutboxMessage.__table__
    statement = (
        update(table)
        .where(table.c.id == bindparam("row_id"))
        .values({name: bindparam(f"new_{name}") for name in _WRITTEN})
    )
    session.execute(
        statement,
        [{"row_id": row.id, **{f"new_{name}": getattr(row, name) for name in _WRITTEN}} for row in changed],
    )


def apply_statuses(session: Session, events: list[StatusEvent], now: datetime) -> StatusOutcome:
    """Apply statuses in order to the outbox rows they name; store every status as evidence."""
    outcome = StatusOutcome()
    if not events:
        return outcome
    rows = _load_rows(
        session,
        {event.wamid for event in events},
        {event.callback_data for event in events if event.callback_data},
    )
    by_wamid = {row.wamid: row for row in rows if row.wamid}
    by_key = {row.dedupe_key: row for row in rows}
    evidence: list[dict[str, Any]] = []
    for event in events:
        row = by_wamid.get(event.wamid)
        if row is None and event.callback_data:
            candidate = by_key.get(event.callback_data)
            if candidate is not None and candidate.wamid is None and candidate.state in _RESOLVABLE_BY_KEY:
                candidate.wamid = event.wamid
                candidate.changed = True
                by_wamid[event.wamid] = candidate
                row = candidate
        if row is None:
            outcome.unmatched += 1
        else:
            outcome.applied += 1
            _apply(row, event, now, outcome)
        evidence.append(
            {
                "wamid": event.wamid,
                "status": event.status,
                "occurred_at": event.occurred_at or now,
                "recipient_id": event.recipient_id,
                "callback_data": event.callback_data,
                "message_id": row.id if row is not None else None,
                "errors": event.errors,
                "received_at": now,
            }
        )
    _write_rows(session, rows)
    session.execute(insert(StatusEventRow.__table__), evidence)  # type: ignore[arg-type]
    return outcome


def _apply(row: _Row, event: StatusEvent, now: datetime, outcome: StatusOutcome) -> None:
    occurred_at = event.occurred_at or now
    timestamp_field = _TIMESTAMP_FIELDS.get(event.status)
    # A late status still records when it happened, even if it cannot move the state back.
    if timestamp_field is not None and getattr(row, timestamp_field) is None:
        setattr(row, timestamp_field, occurred_at)
        row.changed = True
    if event.errors:
        row.changed = True
        code, title, details = first_error(event.errors)
        row.last_error_code = code
        row.last_error_title = title
        row.last_error_details = details
    previous = row.state
    state = states.state_after_status(previous, event.status)
    if state == previous:
        return
    row.state = state
    row.updated_at = now
    row.changed = True
    if previous == states.UNKNOWN:
        row.unknown_since = None
    outcome.journal.append(
        (
            "message.state_changed",
            {
                "key": row.dedupe_key,
                "conversation_id": row.conversation_id,
                "state": state,
                "previous_state": previous,
                "wamid": row.wamid,
            },
        )
    )
