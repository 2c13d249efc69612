"""Backup archives: a consistent snapshot of the database, the media folder and the settings file.

An archive is one `.tar.gz` holding `manifest.json` (what it is, which schema revision, counts),
`database/inbox.db` (SQLite, taken with the online backup API) or `database/inbox.pgdump`
(PostgreSQL, `pg_dump` in custom format under one exported snapshot), the `media/` folder and
`inbox.toml`. It is written beside its final name and renamed once complete, readable by its owner only.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from sqlalchemy import desc, select, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session

from backend import __version__
from backend.database import Database
from backend.database.models import BackupRecord
from backend.operations import OperationsError
from backend.settings import CONFIG_FILE_NAME, PRIVATE_FILE_MODE, Settings, make_private_folder

ARCHIVE_FORMAT: Final = 1
ARCHIVE_SUFFIX: Final = ".tar.gz"
MANIFEST_NAME: Final = "manifest.json"
SQLITE_MEMBER: Final = "database/inbox.db"
POSTGRES_MEMBER: Final = "database/inbox.pgdump"
MEDIA_FOLDER: Final = "media"
BACKUPS_FOLDER: Final = "backups"
# Counted in the manifest, so a restore can say what it brought back.
COUNTED_TABLES: Final = ("conversations", "contacts", "outbox_messages", "inbound_messages")
# Fast gzip: the database dominates the archive and the backup must not starve a busy server's CPU.
COMPRESS_LEVEL: Final = 1
# Why an archive was taken; the reason is part of its name.
REASONS: Final = ("manual", "daily", "pre_upgrade", "pre_restore")


@dataclass(frozen=True)
class BackupInfo:
    """One archive written: where, when, why, how large, and what its manifest says."""

    path: Path
    taken_at: datetime
    reason: str
    size_bytes: int
    manifest: Mapping[str, Any]


def backups_folder(settings: Settings) -> Path:
    """Where `inbox serve` keeps its daily and pre-upgrade backups."""
    return settings.data_dir / BACKUPS_FOLDER


def media_folder(settings: Settings) -> Path:
    """The media store's folder in the data folder (backed up when present)."""
    return settings.data_dir / MEDIA_FOLDER


def sqlite_path(database_url: str) -> Path:
    """The file of a SQLite database URL."""
    name = make_url(database_url).database
    if not name or name == ":memory:":
        raise OperationsError("an in-memory SQLite database cannot be backed up or restored")
    return Path(name)


def stamp(moment: datetime) -> str:
    """A moment as it appears in file names: 20261201T214000Z."""
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _archive_path(folder: Path, reason: str, taken_at: datetime) -> Path:
    base = f"inbox-{reason.replace('_', '-')}-{stamp(taken_at)}"
    path = folder / f"{base}{ARCHIVE_SUFFIX}"
    number = 2
    while path.exists() or Path(f"{path}.partial").exists():
        path = folder / f"{base}-{number}{ARCHIVE_SUFFIX}"
        number += 1
    return path


def libpq_target(database_url: URL | str) -> tuple[str, dict[str, str]]:
    """A URL pg_dump understands, and the environment carrying its password (never on the command line)."""
    url = make_url(database_url)
    environment = dict(os.environ)
    if url.password is not None:
        environment["PGPASSWORD"] = str(url.password)
    plain = url.set(drivername="postgresql", password=None, query={})
    return plain.render_as_string(hide_password=False), environment


def postgres_tool(name: str) -> str:
    """The path of pg_dump or pg_restore, or a refusal saying what to install."""
    found = shutil.which(name)
    if found is None:
        raise OperationsError(
            f"{name} is not installed: a PostgreSQL database is backed up and restored with PostgreSQL's "
            f"client tools (Debian/Ubuntu: apt install postgresql-client; macOS: brew install libpq; "
            f"Windows: the PostgreSQL installer's command line tools), in the same major version "
            f"as the server or newer"
        )
    return found


def run_tool(command: Sequence[str], environment: Mapping[str, str] | None = None) -> None:
    """Run a PostgreSQL client tool; its first line of complaint becomes the error."""
    result = subprocess.run(
        list(command),
        capture_output=True,
        text=True,
        env=dict(environment) if environment else None,
        check=False,
    )
    if result.returncode != 0:
        complaint = next((line for line in result.stderr.splitlines() if line.strip()), "no message")
        raise OperationsError(f"{Path(command[0]).name} failed (exit {result.returncode}): {complaint}")


def _snapshot_sqlite(database_url: str, target: Path) -> dict[str, Any]:
    """Copy the live database with SQLite's online backup; the revision and counts of the copy."""
    source_path = sqlite_path(database_url)
    if not source_path.is_file():
        raise OperationsError(f"there is no database at {source_path}")
    source = sqlite3.connect(source_path, timeout=10)
    try:
        copy = sqlite3.connect(target)
        try:
            # One step (all pages): a single read transaction, so writers keep writing to the WAL
            # meanwhile and the copy is the database as of the moment the step began.
            source.backup(copy)
            # A single self-contained file, whatever mode the live database runs in.
            copy.execute("PRAGMA journal_mode=DELETE")
            return _facts(copy)
        finally:
            copy.close()
    finally:
        source.close()


def _facts(connection: sqlite3.Connection) -> dict[str, Any]:
    revision_row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    counts = {
        table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in COUNTED_TABLES
    }
    return {"schema_revision": revision_row[0] if revision_row else None, "counts": counts}


def _snapshot_postgres(database: Database, target: Path) -> dict[str, Any]:
    """pg_dump under a snapshot exported from a transaction that also reads the revision and counts."""
    pg_dump = postgres_tool("pg_dump")
    url, environment = libpq_target(database.engine.url)
    with database.engine.connect() as plain:
        connection = plain.execution_options(isolation_level="REPEATABLE READ")
        with connection.begin():
            snapshot = connection.execute(text("SELECT pg_export_snapshot()")).scalar_one()
            revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
            counts = {
                table: connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
                for table in COUNTED_TABLES
            }
            # The dump sees exactly what this transaction sees; it must run while the transaction lives.
            run_tool(
                [pg_dump, "--format=custom", "--no-owner", f"--snapshot={snapshot}", f"--file={target}", url],
                environment,
            )
    return {"schema_revision": revision, "counts": counts}


def take_backup(
    settings: Settings,
    database: Database,
    folder: Path,
    *,
    reason: str,
    now: datetime,
    config_file: Path | None = None,
) -> BackupInfo:
    """Write one archive of the database, the media folder and the settings file into `folder`."""
    if reason not in REASONS:
        raise ValueError(f"unknown backup reason {reason!r}")
    make_private_folder(folder)
    path = _archive_path(folder, reason, now)
    staging = Path(f"{path}.parts")
    staging.mkdir(mode=0o700)
    partial = Path(f"{path}.partial")
    try:
        member = SQLITE_MEMBER if database.is_sqlite else POSTGRES_MEMBER
        snapshot = staging / Path(member).name
        if database.is_sqlite:
            facts = _snapshot_sqlite(settings.database_url, snapshot)
        else:
            facts = _snapshot_postgres(database, snapshot)
        manifest = {
            "format": ARCHIVE_FORMAT,
            "product_version": __version__,
            "database": "sqlite" if database.is_sqlite else "postgresql",
            "taken_at": now.astimezone(UTC).isoformat(),
            "reason": reason,
            **facts,
        }
        settings_file = config_file if config_file is not None else settings.data_dir / CONFIG_FILE_NAME
        descriptor = os.open(partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE_MODE)
        with (
            os.fdopen(descriptor, "wb") as raw,
            tarfile.open(fileobj=raw, mode="w:gz", compresslevel=COMPRESS_LEVEL) as archive,
        ):
            _add_bytes(archive, MANIFEST_NAME, json.dumps(manifest, indent=2).encode(), now)
            archive.add(snapshot, arcname=member, filter=_private)
            media = media_folder(settings)
            if media.is_dir():
                archive.add(media, arcname=MEDIA_FOLDER, filter=_private)
            if settings_file.is_file():
                archive.add(settings_file, arcname=CONFIG_FILE_NAME, filter=_private)
            raw.flush()
            os.fsync(raw.fileno())
        partial.replace(path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        partial.unlink(missing_ok=True)
    return BackupInfo(path, now, reason, path.stat().st_size, manifest)


def _private(info: tarfile.TarInfo) -> tarfile.TarInfo:
    """Members unpack readable by their owner only: the archive holds customers' messages and secrets."""
    info.mode = 0o700 if info.isdir() else 0o600
    info.uname = info.gname = ""
    info.uid = info.gid = 0
    return info


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes, moment: datetime) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(moment.timestamp())
    info.mode = 0o600
    archive.addfile(info, io.BytesIO(data))


def read_manifest(archive_path: Path) -> dict[str, Any]:
    """The manifest of an archive, or a refusal saying why the file is not one of ours."""
    if not archive_path.is_file():
        raise OperationsError(f"{archive_path} does not exist")
    try:
        with tarfile.open(archive_path, mode="r:*") as archive:
            member = archive.extractfile(MANIFEST_NAME)
            if member is None:
                raise KeyError(MANIFEST_NAME)
            manifest = json.loads(member.read().decode("utf-8"))
    except (tarfile.TarError, KeyError, OSError, EOFError, ValueError) as error:
        raise OperationsError(f"{archive_path} is not an inbox backup archive ({error})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != ARCHIVE_FORMAT:
        raise OperationsError(f"{archive_path} is not an inbox backup archive of format {ARCHIVE_FORMAT}")
    return manifest


def record_backup(session: Session, info: BackupInfo) -> None:
    """Remember an archive in the database it was taken of (the Health tab, the daily schedule)."""
    session.add(
        BackupRecord(
            taken_at=info.taken_at, reason=info.reason, archive=str(info.path), size_bytes=info.size_bytes
        )
    )


def last_backup(session: Session) -> BackupRecord | None:
    """The newest archive taken of this database, if any."""
    return session.scalars(select(BackupRecord).order_by(desc(BackupRecord.taken_at)).limit(1)).first()


def free_disk_bytes(folder: Path) -> int | None:
    """Free space on the disk holding `folder` (or its nearest existing parent), None if unknowable."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        return shutil.disk_usage(probe).free
    except OSError:
        return None


def prune_backups(folder: Path, reason: str, keep: int) -> list[Path]:
    """Delete all but the newest `keep` archives of one reason in `folder`; the paths deleted."""
    prefix = f"inbox-{reason.replace('_', '-')}-"
    archives = sorted(
        (path for path in folder.glob(f"{prefix}*{ARCHIVE_SUFFIX}") if path.is_file()),
        key=lambda path: path.name,
    )
    doomed = archives[: max(0, len(archives) - keep)]
    for path in doomed:
        path.unlink(missing_ok=True)
    return doomed
