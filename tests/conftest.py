"""Shared fixtures: a fresh, migrated database per test (SQLite by default, PostgreSQL on request)."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url

from backend.database import Database, create_database, upgrade_database
from backend.database.models import JournalEntry
from backend.journal import sequence_pending

POSTGRES_URL_VARIABLE = "INBOX_TEST_DATABASE_URL"

# Tests never read the developer's own settings or data folder.
for _variable in list(os.environ):
    if _variable.startswith(("INBOX_", "WHATSAPP_")) and _variable != POSTGRES_URL_VARIABLE:
        del os.environ[_variable]


def postgres_server_url() -> str | None:
    """The PostgreSQL URL tests may use, or None to run on SQLite."""
    return os.environ.get(POSTGRES_URL_VARIABLE) or None


def journal_entries(database: Database, type_prefix: str | None = None) -> list[JournalEntry]:
    """Every journal entry (those whose type starts with `type_prefix`), oldest first, as readers see them.

    On PostgreSQL entries are numbered after commit; this numbers everything committed so far first.
    """
    while sequence_pending(database, wait=True):
        pass
    query = select(JournalEntry).order_by(JournalEntry.seq)
    if type_prefix is not None:
        query = query.where(JournalEntry.type.startswith(type_prefix, autoescape=True))
    with database.reader() as session:
        return list(session.scalars(query))


class DatabaseMaker:
    """Makes fresh migrated databases quickly by copying a migrated template."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.postgres_url = postgres_server_url()
        self._template: str | None = None
        self._created: list[str] = []

    @property
    def dialect(self) -> str:
        """`postgresql` when the tests run against PostgreSQL, else `sqlite`."""
        return "postgresql" if self.postgres_url else "sqlite"

    def new_url(self) -> str:
        """The URL of a new, empty-but-migrated database."""
        if self.postgres_url:
            return self._new_postgres_url(self.postgres_url)
        return self._new_sqlite_url()

    def new_empty_url(self) -> str:
        """The URL of a new database with no tables at all."""
        if self.postgres_url:
            base = make_url(self.postgres_url).set(drivername="postgresql+psycopg")
            name = f"inbox_test_{uuid.uuid4().hex[:10]}"
            admin = self._admin_engine(self.postgres_url)
            with admin.connect() as connection:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
            admin.dispose()
            self._created.append(name)
            return base.set(database=name).render_as_string(hide_password=False)
        return f"sqlite:///{self.workdir / f'empty-{uuid.uuid4().hex[:10]}.db'}"

    def _new_sqlite_url(self) -> str:
        template = self.workdir / "template.db"
        if self._template is None:
            database = create_database(f"sqlite:///{template}")
            upgrade_database(database)
            database.dispose()
            self._template = str(template)
        path = self.workdir / f"test-{uuid.uuid4().hex[:10]}.db"
        shutil.copy(template, path)
        return f"sqlite:///{path}"

    def _admin_engine(self, server_url: str):  # type: ignore[no-untyped-def]
        return create_engine(
            make_url(server_url).set(drivername="postgresql+psycopg"),
            isolation_level="AUTOCOMMIT",
        )

    def _new_postgres_url(self, server_url: str) -> str:
        base = make_url(server_url).set(drivername="postgresql+psycopg")
        admin = self._admin_engine(server_url)
        with admin.connect() as connection:
            if self._template is None:
                template = f"inbox_template_{uuid.uuid4().hex[:10]}"
                connection.execute(text(f'CREATE DATABASE "{template}"'))
                self._created.append(template)
                database = create_database(base.set(database=template).render_as_string(False))
                upgrade_database(database)
                database.dispose()
                self._template = template
            name = f"inbox_test_{uuid.uuid4().hex[:10]}"
            connection.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{self._template}"'))
            self._created.append(name)
        admin.dispose()
        return base.set(database=name).render_as_string(hide_password=False)

    def drop(self, url: str) -> None:
        """Remove a database made for one test."""
        if not self.postgres_url:
            path = Path(make_url(url).database or "")
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            return
        name = make_url(url).database
        admin = self._admin_engine(self.postgres_url)
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
        if name in self._created:
            self._created.remove(name)

    def drop_all(self) -> None:
        """Remove everything this maker created (the template last)."""
        if not self.postgres_url:
            return
        admin = self._admin_engine(self.postgres_url)
        with admin.connect() as connection:
            for name in reversed(self._created):
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="session")
def database_maker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DatabaseMaker]:
    """One maker per test session."""
    maker = DatabaseMaker(tmp_path_factory.mktemp("databases"))
    yield maker
    maker.drop_all()


@pytest.fixture
def database_url(database_maker: DatabaseMaker) -> Iterator[str]:
    """The URL of a fresh migrated database for this test."""
    url = database_maker.new_url()
    yield url
    database_maker.drop(url)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    """A fresh migrated database for this test (PostgreSQL when INBOX_TEST_DATABASE_URL is set)."""
    db = create_database(database_url)
    yield db
    db.dispose()
