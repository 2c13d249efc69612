"""The one writer of an outbox row's state: each transition of the table as one set-based UPDATE.

`backend.domain.transitions` decides; this module only turns a transition into SQL (or writes values
`transitions.apply` computed) and journals the state changes. Nothing else updates `state`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import Table, bindparam, func, literal, literal_column, update
from sqlalchemy.orm import Session
from sqlalchemy.sql import ColumnElement, Update
from sqlalchemy.sql.elements import BindParameter

from backend.database.models import OutboxMessage
from backend.domain.transitions import Effect, Fixed, Transition, journal_data
from backend.outbox.journal_batch import STATE_CHANGED, journal_state_changes

OUTBOX: Table = OutboxMessage.__table__  # type: ignore[assignment]
# Bind names for per-row values; SQLAlchemy reserves the column names themselves in an UPDATE.
PREFIX = "new_"
ROW_ID = "row_id"
NOW: BindParameter[datetime] = bindparam(PREFIX + "now", type_=OUTBOX.c.updated_at.type)


@dataclass(frozen=True)
class RowRef:
    """What a journal entry names about a row whose state changed."""

    key: str
    conversation_id: int | None
    previous_state: str
    wamid: str | None


def transition_values(
    transition: Transition,
    now: datetime | BindParameter[datetime],
    given: Mapping[str, Any] | None = None,
    *,
    per_row: Iterable[str] = (),
) -> dict[str, Any]:
    """The SET clause of `transition`: values from `given`, or binds `new_<field>` for `per_row` fields."""
    given = given or {}
    each_row = frozenset(per_row)
    unexpected = (given.keys() | each_row) - transition.given_fields
    missing = transition.required_fields - given.keys() - each_row
    if unexpected or missing:
        raise ValueError(f"{transition.name}: missing {sorted(missing)}, unexpected {sorted(unexpected)}")
    values: dict[str, Any] = {}
    for name, effect in transition.effects.items():
        column = OUTBOX.c[name]
        value: Any
        if name in each_row:
            value = bindparam(PREFIX + name, type_=column.type)
        elif name in given:
            value = literal(given[name], column.type)
        else:
            value = None
        if isinstance(effect, Fixed):
            values[name] = effect.value
        elif effect is Effect.CLEAR:
            values[name] = None
        elif effect is Effect.NOW:
            values[name] = now
        elif effect is Effect.FILL_NOW:
            values[name] = func.coalesce(
                column, now if isinstance(now, BindParameter) else literal(now, column.type)
            )
        elif effect is Effect.GIVEN:
            values[name] = value
        elif effect is Effect.FILL_GIVEN:
            values[name] = func.coalesce(column, value)
        elif effect is Effect.MAYBE:
            if name in each_row or name in given:
                values[name] = value
        elif effect is Effect.INCREMENT:
            values[name] = column + 1
        else:
            values[name] = column - 1
    if transition.target is not None:
        values["state"] = transition.target
    return values


@cache
def in_sources(transition: Transition) -> ColumnElement[bool]:
    """`state IN (sources)`, written so the planner keeps the primary key next to `id IN (...)`.

    Without fresh statistics both SQLite and PostgreSQL prefer an index on `state` over the primary
    key, and an UPDATE of 100 rows then walks every queued row. `state || ''` cannot use that index.
    """
    # The states are the table's own words, written into the SQL: no bind to process on every row.
    assert all(state.isidentifier() for state in transition.sources)
    expression = OUTBOX.c.state.concat(literal_column("''"))
    return expression.in_([literal_column(f"'{state}'") for state in sorted(transition.sources)])


def held_by(token: str) -> ColumnElement[bool]:
    """The `claim_token` guard of `start` and `release`: the row still names this claim's token.

    With `in_sources` (`queued`) it is `transitions.holds_reservation` in SQL.
    """
    return OUTBOX.c.claimed_by == token


def transition_update(
    transition: Transition,
    now: datetime | BindParameter[datetime],
    given: Mapping[str, Any] | None = None,
    *,
    per_row: Iterable[str] = (),
) -> Update:
    """`UPDATE outbox SET ... WHERE state IN (sources)`; the caller adds which rows."""
    return (
        update(OUTBOX)
        .where(in_sources(transition))
        .values(transition_values(transition, now, given, per_row=per_row))
    )


def write_each(
    session: Session, transition: Transition, now: datetime, rows: Sequence[Mapping[str, Any]]
) -> None:
    """Apply `transition` to each row by id in one executemany; each mapping holds `row_id` and its values."""
    if not rows:
        return
    per_row = frozenset(rows[0].keys() - {ROW_ID})
    session.connection().execute(
        _each_row_statement(transition, per_row),
        [
            {ROW_ID: row[ROW_ID], NOW.key: now, **{PREFIX + name: row[name] for name in per_row}}
            for row in rows
        ],
    )


@cache
def _each_row_statement(transition: Transition, per_row: frozenset[str]) -> Update:
    # Built once per shape: `now` is a bind like the row's own values, so the statement can be kept.
    return transition_update(transition, NOW, per_row=per_row).where(OUTBOX.c.id == bindparam(ROW_ID))


def write_applied(session: Session, fields: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> None:
    """Write back values `transitions.apply` computed for rows the caller holds locked, in one executemany."""
    if not rows:
        return
    statement = (
        update(OUTBOX)
        .where(OUTBOX.c.id == bindparam(ROW_ID))
        .values({name: bindparam(PREFIX + name, type_=OUTBOX.c[name].type) for name in fields})
    )
    session.connection().execute(
        statement, [{ROW_ID: row["id"], **{PREFIX + name: row[name] for name in fields}} for row in rows]
    )


def state_changed_entry(transition: Transition, ref: RowRef) -> tuple[str, dict[str, Any]] | None:
    """The journal entry (type, data) a state change makes, or None when it makes none."""
    data = journal_data(
        transition,
        key=ref.key,
        conversation_id=ref.conversation_id,
        previous_state=ref.previous_state,
        wamid=ref.wamid,
    )
    return None if data is None else (STATE_CHANGED, data)


def journal_transitions(
    session: Session, changes: Iterable[tuple[Transition, RowRef]], now: datetime
) -> None:
    """Journal each state change, in order; call it as the last write of the transaction."""
    entries = []
    for transition, ref in changes:
        entry = state_changed_entry(transition, ref)
        if entry is not None:
            entries.append(entry[1])
    journal_state_changes(session, entries, now)


def journal_transition(
    session: Session, transition: Transition, refs: Iterable[RowRef], now: datetime
) -> None:
    """Journal the rows one transition moved."""
    journal_transitions(session, ((transition, ref) for ref in refs), now)
