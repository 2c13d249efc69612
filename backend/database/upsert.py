"""INSERT ... ON CONFLICT for both dialects: the database, not a prior check, decides."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

DialectInsert = postgresql.Insert | sqlite.Insert


def dialect_insert(session: Session, model: Any) -> DialectInsert:
    """An insert into `model` in the session's dialect, which offers ON CONFLICT clauses."""
    if session.get_bind().dialect.name == "postgresql":
        return postgresql.insert(model)
    return sqlite.insert(model)


def insert_ignoring_conflicts(
    session: Session, model: Any, conflict_columns: list[str], **values: Any
) -> DialectInsert:
    """An insert of `values` that does nothing when a row with the same conflict columns exists.

    Without `values`, the rows come with the execution: `session.execute(statement, [row, ...])`.
    """
    statement = dialect_insert(session, model).on_conflict_do_nothing(index_elements=conflict_columns)
    return statement.values(**values) if values else statement
