"""INSERT ... ON CONFLICT DO NOTHING for both dialects: the database, not a prior check, decides."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Insert
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session


def insert_ignoring_conflicts(
    session: Session, model: Any, conflict_columns: list[str], **values: Any
) -> Insert:
    """An insert of `values` that does nothing when a row with the same conflict columns exists."""
    if session.get_bind().dialect.name == "postgresql":
        return (
            postgresql_insert(model).values(**values).on_conflict_do_nothing(index_elements=conflict_columns)
        )
    return sqlite_insert(model).values(**values).on_conflict_do_nothing(index_elements=conflict_columns)
