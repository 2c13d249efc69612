"""Engine and session factory, with the SQLite pragmas and write-lock discipline we rely on."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from backend.settings import PRIVATE_FILE_MODE, make_private_folder, tighten

SQLITE_BUSY_TIMEOUT_MS = 10_000
_READ_ONLY_OPTION = "inbox_read_only"


class Database:
    """The engine and two session factories: `transaction()` writes, `reader()` only reads."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = sessionmaker(bind=engine, expire_on_commit=False)
        self._read_sessions = sessionmaker(
            bind=engine.execution_options(**{_READ_ONLY_OPTION: True}), expire_on_commit=False
        )

    @property
    def dialect(self) -> str:
        """`sqlite` or `postgresql`."""
        return self.engine.dialect.name

    @property
    def is_sqlite(self) -> bool:
        """Whether this is the embedded SQLite database."""
        return self.dialect == "sqlite"

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A write transaction: committed on success, rolled back on error."""
        with self.sessions.begin() as session:
            yield session

    @contextmanager
    def reader(self) -> Iterator[Session]:
        """A read-only transaction; on SQLite it never takes the write lock."""
        with self._read_sessions.begin() as session:
            yield session

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()


def _install_sqlite_discipline(engine: Engine, synchronous: str, *, checkpoint_on_commit: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin (see _on_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        if not checkpoint_on_commit:
            # A WalCheckpointer worker checkpoints instead, without the write lock (checkpoint.py).
            cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        # Writers take the lock up front (IMMEDIATE) so busy_timeout applies; a deferred
        # transaction upgrading from read to write fails at once with SQLITE_BUSY instead.
        if connection.get_execution_options().get(_READ_ONLY_OPTION):
            connection.exec_driver_sql("BEGIN")
        else:
            connection.exec_driver_sql("BEGIN IMMEDIATE")


def prepare_sqlite_file(path: Path) -> None:
    """Make sure the database file and its WAL files are readable by this user only (POSIX).

    A new file is created 0600 before SQLite opens it, since SQLite gives the -wal and -shm files
    the permissions of the main file; existing files that others may read are restricted.
    """
    make_private_folder(path.parent)
    try:
        descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE_MODE)
    except FileExistsError:
        pass
    else:
        try:
            if os.name == "posix":
                # os.open's mode passes through the umask; set it outright.
                os.fchmod(descriptor, PRIVATE_FILE_MODE)
        finally:
            os.close(descriptor)
    for suffix in ("", "-wal", "-shm"):
        tighten(Path(f"{path}{suffix}"), PRIVATE_FILE_MODE)


def create_database(
    url: str,
    *,
    sqlite_synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
    pool_size: int = 10,
    application_name: str | None = None,
    checkpoint_on_commit: bool = True,
) -> Database:
    """Connect to the database at a SQLAlchemy URL (SQLite file or PostgreSQL via psycopg 3).

    On PostgreSQL `application_name` names the connections in pg_stat_activity (a restore looks there
    for servers still using the database). On SQLite `checkpoint_on_commit=False` leaves the log's
    checkpoints to a WalCheckpointer worker, which must then run beside these connections.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:" and "uri" not in parsed.query:
            prepare_sqlite_file(Path(parsed.database))
        engine = create_engine(
            parsed,
            connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            pool_size=pool_size,
            max_overflow=pool_size,
        )
        _install_sqlite_discipline(engine, sqlite_synchronous, checkpoint_on_commit=checkpoint_on_commit)
    else:
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        connect_args = {"application_name": application_name[:63]} if application_name else {}
        engine = create_engine(
            parsed,
            pool_size=pool_size,
            max_overflow=pool_size,
            pool_pre_ping=True,
            connect_args=connect_args,
        )
    return Database(engine)
