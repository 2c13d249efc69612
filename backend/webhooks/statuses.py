"""Status webhooks: move an outbox row forward only, keep every status's time, resolve unknown rows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import insert, or_, select
from sqlalchemy.orm import Session

from backend.database.models import OutboxMessage
from backend.database.models import StatusEvent as StatusEventRow
from backend.domain.transitions import (
    STATUS_EVIDENCE,
    STATUS_MOVES,
    WAMID_BY_KEY,
    Transition,
    after_status,
    apply,
)
from backend.domain.webhook_events import StatusEvent, first_error
from backend.outbox.state_writes import RowRef, state_changed_entry, write_applied

_CHUNK = 500


@dataclass
class StatusOutcome:
    """What a batch of statuses did."""

    applied: int = 0
    unmatched: int = 0
    journal: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def _touched_by_statuses() -> tuple[str, ...]:
    touched: set[str] = {"state"}
    for transition in (WAMID_BY_KEY, *STATUS_MOVES.values(), *STATUS_EVIDENCE.values()):
        touched.update(transition.effects)
    return tuple(sorted(touched))


# What a status may change on an outbox row: loaded as plain values, written back as they changed.
_WRITTEN = _touched_by_statuses()
_FIELDS = ("id", "dedupe_key", "conversation_id", *_WRITTEN)
# A value changed only with others; a row whose other fields stay as they were is not written.
_BOOKKEEPING = frozenset({"updated_at"})
# The names of the fields a row's statuses changed, kept beside its values.
_CHANGED = "changed"


def _load_rows(session: Session, wamids: set[str], keys: set[str]) -> list[dict[str, Any]]:
    rows: dict[int, dict[str, Any]] = {}
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
            rows[values[0]] = {**dict(zip(_FIELDS, values, strict=True)), _CHANGED: set()}
    return list(rows.values())


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
    by_wamid = {row["wamid"]: row for row in rows if row["wamid"]}
    by_key = {row["dedupe_key"]: row for row in rows}
    evidence: list[dict[str, Any]] = []
    for event in events:
        row = by_wamid.get(event.wamid)
        if row is None and event.callback_data:
            candidate = by_key.get(event.callback_data)
            if (
                candidate is not None
                and candidate["wamid"] is None
                and candidate["state"] in WAMID_BY_KEY.sources
            ):
                _take(candidate, WAMID_BY_KEY, now, {"wamid": event.wamid})
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
                "message_id": row["id"] if row is not None else None,
                "errors": event.errors,
                "received_at": now,
            }
        )
    _write_rows(session, rows)
    session.execute(insert(StatusEventRow.__table__), evidence)  # type: ignore[arg-type]
    return outcome


def _apply(row: dict[str, Any], event: StatusEvent, now: datetime, outcome: StatusOutcome) -> None:
    step = after_status(
        state=row["state"],
        status=event.status,
        occurred_at=event.occurred_at or now,
        errors=first_error(event.errors) if event.errors else None,
    )
    if step is None:
        return
    previous = row["state"]
    _take(row, step.transition, now, step.given)
    entry = state_changed_entry(
        step.transition,
        RowRef(
            key=row["dedupe_key"],
            conversation_id=row["conversation_id"],
            previous_state=previous,
            wamid=row["wamid"],
        ),
    )
    if entry is not None:
        outcome.journal.append(entry)


def _take(row: dict[str, Any], transition: Transition, now: datetime, given: Mapping[str, Any]) -> None:
    values = apply(transition, row, now, given)
    changed = {name for name, value in values.items() if row[name] != value}
    if changed - _BOOKKEEPING:
        row.update(values)
        row[_CHANGED] |= changed


def _write_rows(session: Session, rows: list[dict[str, Any]]) -> None:
    # Rows whose statuses changed the same fields share one executemany, which then binds only those:
    # in a batch of statuses that is one or two statements of a few columns each.
    by_fields: dict[frozenset[str], list[dict[str, Any]]] = {}
    for row in rows:
        if row[_CHANGED]:
            by_fields.setdefault(frozenset(row[_CHANGED]), []).append(row)
    for fields, group in by_fields.items():
        write_applied(session, sorted(fields), group)
