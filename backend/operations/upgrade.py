"""Schema upgrades in place: a backup before migrating an older database, a refusal for a newer one."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from alembic.script import ScriptDirectory
from sqlalchemy import desc, inspect, select

from backend import __version__
from backend.database import Database, upgrade_database
from backend.database.migrate import current_revision
from backend.database.models import ReleaseRecord
from backend.operations import OperationsError
from backend.operations.archive import BackupInfo, backups_folder, record_backup, take_backup
from backend.settings import Settings

log = logging.getLogger(__name__)


@cache
def _scripts() -> ScriptDirectory:
    from backend.database.migrate import MIGRATIONS_DIR

    return ScriptDirectory(str(MIGRATIONS_DIR))


def head_revision() -> str:
    """The newest schema revision this code knows."""
    head = _scripts().get_current_head()
    assert head is not None
    return head


def known_revisions() -> frozenset[str]:
    """Every schema revision this code can migrate from."""
    return frozenset(script.revision for script in _scripts().walk_revisions())


def newer_refusal(revision: str, version: str | None) -> OperationsError:
    """The refusal for a schema this code does not know: it names the version to install."""
    if version is not None:
        advice = f"it was last used by inbox {version}: install inbox {version} or newer"
    else:
        advice = "install the version of inbox that made it, or a newer one"
    return OperationsError(
        f"the database's schema (revision {revision}) is newer than this inbox {__version__} "
        f"understands (revision {head_revision()}); {advice}"
    )


def newest_release(database: Database) -> str | None:
    """The newest version of the product recorded as having run on this database."""
    if not inspect(database.engine).has_table(ReleaseRecord.__tablename__):
        return None
    with database.reader() as session:
        return session.scalars(
            select(ReleaseRecord.version).order_by(desc(ReleaseRecord.id)).limit(1)
        ).first()


@dataclass(frozen=True)
class UpgradeResult:
    """What bringing the schema up to date did."""

    previous: str | None
    current: str
    backup: BackupInfo | None


def bring_schema_up_to_date(
    settings: Settings,
    database: Database,
    *,
    now: Callable[[], datetime],
    backup_before: bool = True,
) -> UpgradeResult:
    """Migrate to the newest schema; an older, non-empty database is backed up first; a newer one refused."""
    previous = current_revision(database)
    head = head_revision()
    if previous is not None and previous not in known_revisions():
        raise newer_refusal(previous, newest_release(database))
    backup: BackupInfo | None = None
    if previous is not None and previous != head:
        if backup_before:
            backup = take_backup(
                settings, database, backups_folder(settings), reason="pre_upgrade", now=now()
            )
            log.info(
                "the database is at schema revision %s, older than inbox %s (revision %s): backed up to %s",
                previous,
                __version__,
                head,
                backup.path,
            )
        upgrade_database(database)
        log.info("migrated the database from schema revision %s to %s", previous, head)
    elif previous is None:
        upgrade_database(database)
    with database.transaction() as session:
        if backup is not None:
            record_backup(session, backup)
        newest = session.scalars(select(ReleaseRecord).order_by(desc(ReleaseRecord.id)).limit(1)).first()
        if newest is None or (newest.version, newest.revision) != (__version__, head):
            session.add(ReleaseRecord(version=__version__, revision=head, recorded_at=now()))
    return UpgradeResult(previous, head, backup)
