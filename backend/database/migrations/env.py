"""Alembic environment: runs migrations on the engine handed over by backend.database.migrate."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine, create_engine

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


def run_migrations_online() -> None:
    """Run every pending migration in one transaction per migration."""
    engine = _engine()
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
            transaction_per_migration=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
