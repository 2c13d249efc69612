"""The daily backup: taken when a day has passed, recorded, and only INBOX_BACKUP_KEEP kept."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import select

from app.composition import build_parts
from backend.database import Database
from backend.database.models import BackupRecord
from backend.operations.archive import read_manifest
from backend.operations.daily import DailyBackup
from backend.settings import load_settings


class Clock:
    """A clock moved by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 3, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_one_backup_a_day_and_the_oldest_beyond_the_keep_removed(database: Database, tmp_path: Path) -> None:
    settings = replace(
        load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)}),
        database_url=str(database.engine.url.render_as_string(hide_password=False)),
        backup_keep=2,
    )
    clock = Clock()
    daily = DailyBackup(build_parts(settings, database, clock=clock))
    first = daily.run_once()
    assert first is not None
    assert read_manifest(first.path)["reason"] == "daily"
    clock.now += timedelta(hours=23)
    assert daily.run_once() is None
    taken = [first.path]
    for _ in range(3):
        clock.now += timedelta(hours=24)
        info = daily.run_once()
        assert info is not None
        taken.append(info.path)
    kept = sorted(path.name for path in (tmp_path / "backups").glob("*.tar.gz"))
    assert kept == sorted(path.name for path in taken[-2:])
    with database.reader() as session:
        assert len(session.scalars(select(BackupRecord).where(BackupRecord.reason == "daily")).all()) == 4


def test_keep_zero_takes_no_daily_backup(database: Database, tmp_path: Path) -> None:
    settings = replace(load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)}), backup_keep=0)
    assert DailyBackup(build_parts(settings, database)).run_once() is None
    assert not (tmp_path / "backups").exists()
