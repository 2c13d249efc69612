"""Restoring an archive: verified first, the current data kept beside it, in-flight sends made `unknown`."""

from __future__ import annotations

import logging
import shutil
import sqlite3
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.exc import SQLAlchemyError

from backend.database import Database, create_database
from backend.database.engine import prepare_sqlite_file
from backend.database.models import Conversation, InboundMessage, OutboxMessage
from backend.journal import journal_above, last_seq
from backend.operations import OperationsError
from backend.operations.archive import (
    MEDIA_FOLDER,
    POSTGRES_MEMBER,
    SQLITE_MEMBER,
    libpq_target,
    media_folder,
    postgres_tool,
    read_manifest,
    run_tool,
    sqlite_path,
    stamp,
    take_backup,
)
from backend.operations.upgrade import bring_schema_up_to_date, known_revisions, newer_refusal
from backend.outbox.restored import mark_restored_in_flight
from backend.settings import CONFIG_FILE_NAME, Settings, make_private_folder

log = logging.getLogger(__name__)

# Journaled first after a restore: desks reload everything they show.
DATABASE_RESTORED = "database.restored"

PRE_RESTORE_PREFIX = "pre-restore-"


@dataclass(frozen=True)
class RestoreReport:
    """What a restore brought back and what it changed."""

    manifest: dict[str, Any]
    kept_at: Path
    conversations: int
    outbound: int
    inbound: int
    made_unknown: list[str]


def verify_archive(settings: Settings, archive_path: Path, staging: Path) -> dict[str, Any]:
    """Check the archive fits this installation and its database is whole; unpacks it into `staging`."""
    manifest = read_manifest(archive_path)
    kind = "sqlite" if settings.is_sqlite else "postgresql"
    if manifest.get("database") != kind:
        raise OperationsError(
            f"{archive_path} holds a {manifest.get('database')} database, but this installation uses "
            f"{kind} (INBOX_DATABASE_URL)"
        )
    revision = manifest.get("schema_revision")
    if not isinstance(revision, str):
        raise OperationsError(f"{archive_path} says nothing about its schema revision")
    if revision not in known_revisions():
        raise newer_refusal(revision, str(manifest.get("product_version") or "") or None)
    try:
        with tarfile.open(archive_path, mode="r:*") as archive:
            # The "data" filter refuses absolute paths, links out of the folder and device files.
            archive.extractall(staging, filter="data")
    except (tarfile.TarError, OSError, EOFError) as error:
        raise OperationsError(f"{archive_path} cannot be unpacked: {error}") from None
    if kind == "sqlite":
        copy = staging / SQLITE_MEMBER
        if not copy.is_file():
            raise OperationsError(f"{archive_path} holds no database")
        try:
            connection = sqlite3.connect(copy)
            try:
                verdict = [row[0] for row in connection.execute("PRAGMA integrity_check")]
                found = connection.execute("SELECT version_num FROM alembic_version").fetchone()
            finally:
                connection.close()
        except sqlite3.DatabaseError as error:
            raise OperationsError(f"the database in {archive_path} cannot be read: {error}") from None
        if verdict != ["ok"]:
            raise OperationsError(f"the database in {archive_path} fails its integrity check: {verdict[0]}")
        if found is None or found[0] != revision:
            raise OperationsError(
                f"the database in {archive_path} is at revision {found[0] if found else None}, "
                f"not {revision} as its manifest says"
            )
    else:
        dump = staging / POSTGRES_MEMBER
        if not dump.is_file():
            raise OperationsError(f"{archive_path} holds no database")
        # Reads the whole table of contents: a truncated or foreign file fails here.
        run_tool([postgres_tool("pg_restore"), "--list", str(dump)])
    return manifest


def restore_archive(
    settings: Settings,
    archive_path: Path,
    *,
    now: Callable[[], datetime],
    config_file: Path | None = None,
) -> RestoreReport:
    """Verify, keep the current data as pre-restore-<time>, put the archive's data in place, mark in-flight.

    The caller makes sure no server uses the database meanwhile.
    """
    make_private_folder(settings.data_dir)
    moment = now()
    staging = settings.data_dir / f".restore-{stamp(moment)}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(mode=0o700)
    try:
        manifest = verify_archive(settings, archive_path, staging)
        seen_up_to = _journal_position(settings)
        kept = _keep_current(settings, moment, config_file)
        try:
            _put_in_place(settings, staging, config_file)
        except (OperationsError, OSError) as error:
            raise OperationsError(
                f"the restore failed while putting the archive's data in place ({error}); "
                f"the previous data is in {kept}"
            ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    database = create_database(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
    try:
        # The current data was just kept: no second backup before migrating an older archive.
        bring_schema_up_to_date(settings, database, now=now, backup_before=False)
        with database.transaction() as session:
            # Desks saw the current journal up to `seen_up_to`: the restored one goes on above it,
            # before anything the restore itself journals, so no desk misses a change.
            journal_above(
                session,
                seen_up_to,
                DATABASE_RESTORED,
                {"archive": archive_path.name, "taken_at": manifest.get("taken_at")},
                now(),
            )
            made_unknown = mark_restored_in_flight(session, now())
        with database.reader() as session:
            conversations = session.scalar(select(func.count()).select_from(Conversation)) or 0
            outbound = session.scalar(select(func.count()).select_from(OutboxMessage)) or 0
            inbound = session.scalar(select(func.count()).select_from(InboundMessage)) or 0
    finally:
        database.dispose()
    log.info(
        "restored %s (taken %s): %d conversations, %d sent and %d received messages; "
        "%d sends in flight at the backup are now unknown (restored_from_backup); the previous data is in %s",
        archive_path,
        manifest.get("taken_at"),
        conversations,
        outbound,
        inbound,
        len(made_unknown),
        kept,
    )
    return RestoreReport(manifest, kept, conversations, outbound, inbound, made_unknown)


def _journal_position(settings: Settings) -> int:
    """The newest journal seq of the data about to be replaced (0 when there is none to read)."""
    if settings.is_sqlite and not sqlite_path(settings.database_url).exists():
        return 0
    database = create_database(settings.database_url)
    try:
        with database.reader() as session:
            return last_seq(session)
    except SQLAlchemyError:  # no database yet, or one without a journal: nobody saw anything of it
        return 0
    finally:
        database.dispose()


def _settings_file(settings: Settings, config_file: Path | None) -> Path:
    return config_file if config_file is not None else settings.data_dir / CONFIG_FILE_NAME


def _keep_current(settings: Settings, moment: datetime, config_file: Path | None) -> Path:
    """Move (SQLite) or dump (PostgreSQL) the current data into pre-restore-<time> in the data folder."""
    kept = settings.data_dir / f"{PRE_RESTORE_PREFIX}{stamp(moment)}"
    number = 2
    while kept.exists():
        kept = settings.data_dir / f"{PRE_RESTORE_PREFIX}{stamp(moment)}-{number}"
        number += 1
    kept.mkdir(mode=0o700)
    if settings.is_sqlite:
        live = sqlite_path(settings.database_url)
        # The WAL files hold committed pages not yet in the main file: they move with it.
        for suffix in ("", "-wal", "-shm"):
            part = Path(f"{live}{suffix}")
            if part.exists():
                shutil.move(part, kept / f"{live.name}{suffix}")
    else:
        database = create_database(settings.database_url)
        try:
            with database.reader() as session:
                has_tables = session.execute(
                    text("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
                ).scalar_one()
            if has_tables:
                take_backup(
                    settings, database, kept, reason="pre_restore", now=moment, config_file=config_file
                )
        finally:
            database.dispose()
    media = media_folder(settings)
    if media.is_dir():
        shutil.move(media, kept / MEDIA_FOLDER)
    settings_file = _settings_file(settings, config_file)
    if settings_file.is_file():
        shutil.copy2(settings_file, kept / CONFIG_FILE_NAME)
    return kept


def _put_in_place(settings: Settings, staging: Path, config_file: Path | None) -> None:
    if settings.is_sqlite:
        live = sqlite_path(settings.database_url)
        make_private_folder(live.parent)
        shutil.move(staging / SQLITE_MEMBER, live)
        prepare_sqlite_file(live)
    else:
        _reset_postgres(settings)
        url, environment = libpq_target(settings.database_url)
        run_tool(
            [
                postgres_tool("pg_restore"),
                "--no-owner",
                "--no-privileges",
                "--exit-on-error",
                "--single-transaction",
                f"--dbname={url}",
                str(staging / POSTGRES_MEMBER),
            ],
            environment,
        )
    if (staging / MEDIA_FOLDER).is_dir():
        shutil.move(staging / MEDIA_FOLDER, media_folder(settings))
    if (staging / CONFIG_FILE_NAME).is_file():
        target = _settings_file(settings, config_file)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(staging / CONFIG_FILE_NAME, target)


def _reset_postgres(settings: Settings) -> None:
    """Empty the database's public schema; its content is in pre-restore-<time> already."""
    database: Database = create_database(settings.database_url)
    try:
        with database.engine.begin() as connection:
            connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            connection.execute(text("CREATE SCHEMA public"))
    finally:
        database.dispose()
