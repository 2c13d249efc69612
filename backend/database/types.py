"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, DateTime, Float
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import TypeDecorator


class UtcDateTime(TypeDecorator[datetime]):
    """An aware UTC datetime; SQLite keeps it as naive UTC text, PostgreSQL as timestamptz."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Refuse naive datetimes; store UTC."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column; use an aware datetime")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def bind_processor(self, dialect: Dialect) -> Callable[[datetime | None], Any] | None:
        """On SQLite, straight to the text SQLAlchemy writes: its own per-field formatting cost more."""
        if dialect.name != "sqlite":
            return super().bind_processor(dialect)

        # A batch binds one `now` to many rows and columns: the last value's text is kept.
        last: tuple[datetime | None, str | None] = (None, None)

        def to_text(value: datetime | None) -> str | None:
            nonlocal last
            if value is None:
                return None
            seen, text = last
            if value is seen:
                return text
            naive_utc = self.process_bind_param(value, dialect)
            assert naive_utc is not None
            # The text SQLAlchemy's SQLite DATETIME writes: "YYYY-MM-DD HH:MM:SS.ffffff".
            text = naive_utc.isoformat(" ", "microseconds")
            last = (value, text)
            return text

        return to_text

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        """Give back an aware UTC datetime."""
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)  # type: ignore[no-any-return]
        return value.astimezone(UTC)  # type: ignore[no-any-return]


class epoch_seconds(FunctionElement[float]):  # noqa: N801 (an SQL function reads lower case)
    """Seconds since 1970 of a UTC time column, computed by the database.

    Reads of many times skip the per-value conversion to datetime, which costs more than the query.
    """

    type = Float()
    inherit_cache = True


@compiles(epoch_seconds, "sqlite")
def _epoch_seconds_sqlite(element: epoch_seconds, compiler: SQLCompiler, **kw: Any) -> str:
    # The column holds naive UTC text; julianday counts days from noon, 4714 BC.
    return f"((julianday({compiler.process(element.clauses, **kw)}) - 2440587.5) * 86400.0)"


@compiles(epoch_seconds, "postgresql")
def _epoch_seconds_postgresql(element: epoch_seconds, compiler: SQLCompiler, **kw: Any) -> str:
    return f"CAST(EXTRACT(EPOCH FROM {compiler.process(element.clauses, **kw)}) AS DOUBLE PRECISION)"


class epoch_slot(FunctionElement[int]):  # noqa: N801 (an SQL function reads lower case)
    """The number of the `seconds`-long slot since 1970 a UTC time column falls in (rounded down)."""

    type = BigInteger()
    inherit_cache = True


@compiles(epoch_slot, "sqlite")
def _epoch_slot_sqlite(element: epoch_slot, compiler: SQLCompiler, **kw: Any) -> str:
    column, seconds = (compiler.process(clause, **kw) for clause in element.clauses)
    # Times after 1970 are positive, so CAST's truncation is rounding down.
    return f"CAST(((julianday({column}) - 2440587.5) * 86400.0) / {seconds} AS INTEGER)"


@compiles(epoch_slot, "postgresql")
def _epoch_slot_postgresql(element: epoch_slot, compiler: SQLCompiler, **kw: Any) -> str:
    column, seconds = (compiler.process(clause, **kw) for clause in element.clauses)
    return f"CAST(FLOOR(EXTRACT(EPOCH FROM {column}) / {seconds}) AS BIGINT)"
