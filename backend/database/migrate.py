"""Run Alembic migrations from code, without an ini file."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from backend.database.engine import Database

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def alembic_config(database: Database) -> Config:
    """An Alembic config that runs against this database's engine."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["engine"] = database.engine
    return config


def upgrade_database(database: Database, revision: str = "head") -> None:
    """Bring the schema up to `revision` (the newest by default)."""
    command.upgrade(alembic_config(database), revision)


def downgrade_database(database: Database, revision: str) -> None:
    """Take the schema back to `revision` (`base` removes every table)."""
    command.downgrade(alembic_config(database), revision)


def current_revision(database: Database) -> str | None:
    """The revision the database is at, or None for an empty database."""
    from alembic.runtime.migration import MigrationContext

    with database.engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
