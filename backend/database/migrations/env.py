"""Alembic environment: runs migrations on the engine handed over by backend.database.migrate."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, Engine, create_engine

from backend.database.models import Base

config = context.config
target_metadata = Base.metadata


def _engine() -> Engine:
    engine = config.attributes.get("engine")
    if isinstance(engine, Engine):
        return engine
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database given to the migrations")
    return create_engine(url)


def _not_the_search_index(
    item: object, name: str | None, type_: str, reflected: bool, compare_to: object
) -> bool:
    """Autogenerate leaves alone the full-text search index of migration 0004 (fts_*), not in the models."""
    return not (name or "").startswith("fts_")


def _driver_execute(connection: Connection, statement: str) -> None:
    driver_connection = connection.connection.driver_connection
    assert driver_connection is not None
    driver_connection.execute(statement)


def run_migrations_online() -> None:
    """Run every pending migration in one transaction per migration."""
    engine = _engine()
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # A batch migration rebuilds a table by copy, drop and rename; with foreign keys enforced,
            # dropping a table others refer to fails. The pragma only takes effect outside a transaction.
            # SQLAlchemy would wrap any statement in BEGIN, so the pragma goes to the driver directly.
            _driver_execute(connection, "PRAGMA foreign_keys=OFF")
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=sqlite,
            compare_type=True,
            include_object=_not_the_search_index,
            transaction_per_migration=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()
        if sqlite:
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            connection.commit()
            _driver_execute(connection, "PRAGMA foreign_keys=ON")
            if broken:
                raise RuntimeError(f"the migration left rows whose foreign keys point nowhere: {broken[:5]}")


run_migrations_online()
