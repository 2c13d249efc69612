"""After a restore the journal goes on above every seq desks saw, so a desk left open misses nothing."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from backend.clock import utc_now
from backend.database import create_database
from backend.database.models import JournalEntry
from backend.journal import entries_after, journal, last_seq, sequence_pending
from backend.operations.archive import take_backup
from backend.operations.restore import DATABASE_RESTORED, restore_archive
from backend.settings import Settings, load_settings
from tests.conftest import DatabaseMaker


def _settings(tmp_path: Path, database_url: str) -> Settings:
    defaults = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path / "data")})
    return replace(defaults, database_url=database_url)


def _journal_entries(url: str, count: int, label: str) -> int:
    database = create_database(url)
    try:
        for number in range(count):
            with database.transaction() as session:
                journal(session, "test.event", {"label": label, "number": number}, utc_now())
        while sequence_pending(database, wait=True):
            pass
        with database.reader() as session:
            return last_seq(session)
    finally:
        database.dispose()


def _restored_elsewhere(
    settings: Settings, database_maker: DatabaseMaker, tmp_path: Path
) -> list[JournalEntry]:
    """Back up the database of `settings`, restore it into an empty folder and database; its journal."""
    database = create_database(settings.database_url)
    try:
        archive = take_backup(settings, database, tmp_path / "archives", reason="manual", now=utc_now()).path
    finally:
        database.dispose()
    empty = tmp_path / "elsewhere"
    target_url = (
        database_maker.new_empty_url() if database_maker.postgres_url else f"sqlite:///{empty / 'inbox.db'}"
    )
    restore_archive(replace(settings, data_dir=empty, database_url=target_url), archive, now=utc_now)
    restored = create_database(target_url)
    try:
        while sequence_pending(restored, wait=True):
            pass
        with restored.reader() as session:
            return entries_after(session, 0, 100)
    finally:
        restored.dispose()


def test_a_restored_journal_continues_above_what_desks_saw(database_url: str, tmp_path: Path) -> None:
    settings = replace(
        load_settings(environ={"INBOX_DATA_DIR": str(tmp_path / "data")}), database_url=database_url
    )
    at_backup = _journal_entries(database_url, 3, "before the backup")
    database = create_database(database_url)
    try:
        archive = take_backup(settings, database, tmp_path / "archives", reason="manual", now=utc_now()).path
    finally:
        database.dispose()
    seen_by_desks = _journal_entries(database_url, 5, "after the backup")
    assert seen_by_desks > at_backup

    restore_archive(settings, archive, now=utc_now)

    database = create_database(database_url)
    try:
        while sequence_pending(database, wait=True):
            pass
        with database.reader() as session:
            newer = entries_after(session, seen_by_desks, 100)
        # What a desk that saw everything before the restore asks for next: the restore, then the rest.
        assert newer, "a desk polling from its last seq would see nothing"
        assert newer[0].type == DATABASE_RESTORED
        assert newer[0].data["archive"] == archive.name
        assert [entry.seq for entry in newer] == sorted(entry.seq for entry in newer)
        with database.reader() as session:
            before_the_restore = [entry.data.get("label") for entry in entries_after(session, 0, 100)]
        assert "after the backup" not in before_the_restore
    finally:
        database.dispose()
    later = _journal_entries(database_url, 1, "after the restore")
    assert later > newer[-1].seq


def test_a_restore_into_an_empty_folder_starts_its_journal_where_the_backup_ends(
    database_url: str, database_maker: DatabaseMaker, tmp_path: Path
) -> None:
    at_backup = _journal_entries(database_url, 2, "before the backup")
    entries = _restored_elsewhere(_settings(tmp_path, database_url), database_maker, tmp_path)
    assert entries[at_backup].type == DATABASE_RESTORED
    assert entries[at_backup].seq == at_backup + 1


def test_a_backup_with_nothing_numbered_in_its_journal_restores_into_an_empty_folder(
    database_url: str, database_maker: DatabaseMaker, tmp_path: Path
) -> None:
    # Taken before any entry was numbered (on PostgreSQL, entries still pending under load count too).
    assert _journal_entries(database_url, 0, "none") == 0
    entries = _restored_elsewhere(_settings(tmp_path, database_url), database_maker, tmp_path)
    assert [(entry.seq, entry.type) for entry in entries[:1]] == [(1, DATABASE_RESTORED)]
