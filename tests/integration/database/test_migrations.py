"""Migrations: upgrade, downgrade, upgrade again, and no drift between models and migrations."""

from __future__ import annotations

from datetime import UTC, datetime

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import insert, inspect, text

from backend.database import Database, create_database, upgrade_database
from backend.database.migrate import current_revision, downgrade_database
from backend.database.models import Base, JournalEntry, MediaFile, PendingJournalEntry
from tests.conftest import DatabaseMaker

# The full-text search index (migration 0004) lives outside the models: FTS5 tables on SQLite,
# expression indexes on PostgreSQL, all named fts_*.
SEARCH_INDEX_PREFIX = "fts_"


def _model_tables(database: Database) -> set[str]:
    names = set(inspect(database.engine).get_table_names()) - {"alembic_version"}
    return {name for name in names if not name.startswith(SEARCH_INDEX_PREFIX)}


def _not_the_search_index(
    item: object, name: str | None, type_: str, reflected: bool, compare_to: object
) -> bool:
    return not (name or "").startswith(SEARCH_INDEX_PREFIX)


def test_upgrade_downgrade_upgrade_leaves_the_full_schema(database_maker: DatabaseMaker) -> None:
    url = database_maker.new_empty_url()
    database = create_database(url)
    try:
        upgrade_database(database)
        assert current_revision(database) is not None
        downgrade_database(database, "base")
        assert set(inspect(database.engine).get_table_names()) - {"alembic_version"} == set()
        upgrade_database(database)
        assert _model_tables(database) == set(Base.metadata.tables)
    finally:
        database.dispose()
        database_maker.drop(url)


def test_models_and_migrations_do_not_differ(database_maker: DatabaseMaker) -> None:
    url = database_maker.new_empty_url()
    database = create_database(url)
    try:
        upgrade_database(database)
        with database.engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "include_object": _not_the_search_index}
            )
            differences = compare_metadata(context, Base.metadata)
        assert differences == []
    finally:
        database.dispose()
        database_maker.drop(url)


def test_downgrading_numbers_journal_entries_still_waiting_rather_than_losing_them(
    database_maker: DatabaseMaker,
) -> None:
    url = database_maker.new_empty_url()
    database = create_database(url)
    at = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
    try:
        upgrade_database(database)
        with database.engine.begin() as connection:
            connection.execute(insert(JournalEntry), [{"type": "numbered", "at": at, "data": {}}])
            connection.execute(
                insert(PendingJournalEntry),
                [{"type": f"waiting.{n}", "at": at, "data": {"n": n}} for n in (1, 2)],
            )
        downgrade_database(database, "0001")
        assert "journal_pending" not in inspect(database.engine).get_table_names()
        with database.engine.connect() as connection:
            types = connection.execute(text("SELECT type FROM journal ORDER BY seq")).scalars().all()
        assert types == ["numbered", "waiting.1", "waiting.2"]
    finally:
        database.dispose()
        database_maker.drop(url)


def test_files_kept_before_lengths_were_read_keep_null_and_the_downgrade_keeps_the_files(
    database_maker: DatabaseMaker,
) -> None:
    url = database_maker.new_empty_url()
    database = create_database(url)
    at = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
    row = {
        "media_id": "1234567890",
        "direction": "inbound",
        "mime_type": "audio/ogg",
        "content_hash": "ab" * 32,
        "size": 1709,
        "state": "stored",
        "attempts": 1,
        "created_at": at,
    }
    try:
        upgrade_database(database, "0008")
        with database.engine.begin() as connection:
            # Only the columns revision 0008 has: the model's newer column is left out of the insert.
            connection.execute(insert(MediaFile), [row])
        upgrade_database(database)
        with database.engine.connect() as connection:
            kept = connection.execute(text("SELECT media_id, size, duration_seconds FROM media")).all()
        assert [tuple(found) for found in kept] == [("1234567890", 1709, None)]
        downgrade_database(database, "0008")
        assert "duration_seconds" not in {
            column["name"] for column in inspect(database.engine).get_columns("media")
        }
        with database.engine.connect() as connection:
            assert connection.execute(text("SELECT media_id FROM media")).scalars().all() == ["1234567890"]
    finally:
        database.dispose()
        database_maker.drop(url)
