"""The SQLite file and its -wal/-shm files are readable by this user only, whatever the umask (POSIX)."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from backend.database import create_database, upgrade_database

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common default umask, which leaves new files readable by everyone."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def mode(path: Path | str) -> int:
    return stat.S_IMODE(Path(path).stat().st_mode)


@pytest.mark.usefixtures("umask_022")
def test_a_new_database_and_its_wal_files_are_private(tmp_path: Path) -> None:
    path = tmp_path / "new-folder" / "inbox.db"
    database = create_database(f"sqlite:///{path}")
    try:
        upgrade_database(database)
        with database.engine.connect() as connection:
            # While a connection is open the WAL files exist; SQLite gives them the main file's mode.
            connection.execute(text("SELECT count(*) FROM users"))
            assert mode(path.parent) == 0o700
            assert mode(path) == 0o600
            assert mode(f"{path}-wal") == 0o600
            assert mode(f"{path}-shm") == 0o600
    finally:
        database.dispose()


@pytest.mark.usefixtures("umask_022")
def test_open_database_files_are_restricted_on_start_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "inbox.db"
    # A database left by an older version, as the umask made it, with its WAL files in use.
    older = sqlite3.connect(path)
    try:
        older.execute("PRAGMA journal_mode=WAL")
        older.execute("CREATE TABLE t (x INTEGER)")
        older.commit()
        for suffix in ("", "-wal", "-shm"):
            assert mode(f"{path}{suffix}") == 0o644
        with caplog.at_level(logging.WARNING):
            create_database(f"sqlite:///{path}").dispose()
        for suffix in ("", "-wal", "-shm"):
            assert mode(f"{path}{suffix}") == 0o600
            assert any(
                f"{path}{suffix} could be opened by other users" in record.getMessage()
                and "restricted it to 600" in record.getMessage()
                for record in caplog.records
            ), caplog.text
    finally:
        older.close()


@pytest.mark.usefixtures("umask_022")
def test_a_private_database_is_left_as_it_is_and_the_folder_it_was_put_in_too(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    path = shared / "inbox.db"
    create_database(f"sqlite:///{path}").dispose()
    with caplog.at_level(logging.WARNING):
        create_database(f"sqlite:///{path}").dispose()
    assert caplog.records == []
    assert mode(path) == 0o600
    # A folder someone chose for the database is theirs to set; only a folder we create is ours.
    assert mode(shared) == 0o755
