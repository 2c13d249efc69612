"""`inbox db`: schema upgrades, backups and restores."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from sqlalchemy import inspect, text

from app.cli_errors import FAILURE_STATUS, CommandError
from app.commands.common import open_database, settings_from
from app.processes import SERVER_APPLICATION_PREFIX
from app.server_lock import ProcessLock, holders
from backend.clock import utc_now
from backend.database import Database
from backend.database.migrate import current_revision
from backend.database.models import BackupRecord
from backend.operations import OperationsError
from backend.operations.archive import backups_folder, record_backup, take_backup
from backend.operations.restore import restore_archive
from backend.settings import Settings

log = logging.getLogger(__name__)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox db` and its actions."""
    parser = subcommands.add_parser("db", help="manage the database: schema, backups, restores")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    upgrade = actions.add_parser(
        "upgrade",
        help="bring the schema to the newest version (an older database is backed up first)",
    )
    upgrade.set_defaults(run=run_upgrade)
    current = actions.add_parser("current", help="print the schema version")
    current.set_defaults(run=run_current)
    backup = actions.add_parser(
        "backup",
        help="archive the database, the media folder and inbox.toml (safe while inbox serve runs)",
        description=(
            "Take a consistent snapshot of the database (SQLite's online backup, or pg_dump), the media "
            "folder and the settings file into one archive; its path is the last line printed."
        ),
    )
    backup.add_argument(
        "--to",
        metavar="FOLDER",
        type=Path,
        help="where to write the archive (default: <data folder>/backups)",
    )
    backup.set_defaults(run=run_backup)
    restore = actions.add_parser(
        "restore",
        help="replace the data with an archive's (refused while a server uses it)",
        description=(
            "Verify the archive, keep the current data as pre-restore-<time> in the data folder, and "
            "restore it. Sends that were queued, sending or unknown in the archive become unknown "
            "(restored_from_backup) and follow their purpose's rule: none is sent twice."
        ),
    )
    restore.add_argument("file", metavar="FILE", type=Path, help="the archive written by inbox db backup")
    restore.set_defaults(run=run_restore)


def run_upgrade(args: argparse.Namespace) -> int:
    """Migrate the configured database to the newest schema, backing it up first when it is older."""
    settings = settings_from(args, log_to_file=True)
    database = open_database(settings)
    print(f"database at {current_revision(database)}: {_safe_url(settings.database_url)}")
    database.dispose()
    return 0


def run_current(args: argparse.Namespace) -> int:
    """Print the schema version of the configured database."""
    database = open_database(settings_from(args, log_to_file=True), upgrade=False)
    print(current_revision(database) or "empty")
    database.dispose()
    return 0


def run_backup(args: argparse.Namespace) -> int:
    """Write one archive; its path alone on the last line."""
    settings = settings_from(args, log_to_file=True)
    database = open_database(settings, upgrade=False)
    try:
        if current_revision(database) is None:
            raise CommandError(
                "the database is empty: there is nothing to back up", exit_status=FAILURE_STATUS
            )
        folder = args.to if args.to is not None else backups_folder(settings)
        try:
            info = take_backup(
                settings, database, folder, reason="manual", now=utc_now(), config_file=_config_file(args)
            )
        except OperationsError as error:
            raise CommandError(str(error), exit_status=FAILURE_STATUS) from None
        # A database from before backups were recorded keeps none (it is not migrated here).
        if inspect(database.engine).has_table(BackupRecord.__tablename__):
            with database.transaction() as session:
                record_backup(session, info)
    finally:
        database.dispose()
    counts = info.manifest.get("counts", {})
    log.info("backup written to %s (%d bytes)", info.path, info.size_bytes)
    print(
        f"backed up {counts.get('conversations', 0)} conversations, {counts.get('outbox_messages', 0)} sent "
        f"and {counts.get('inbound_messages', 0)} received messages at schema revision "
        f"{info.manifest.get('schema_revision')} ({info.size_bytes:,} bytes)"
    )
    print(info.path.resolve())
    return 0


def run_restore(args: argparse.Namespace) -> int:
    """Restore an archive into the configured data folder and database."""
    settings = settings_from(args, log_to_file=True)
    lock = ProcessLock(settings.data_dir, "inbox db restore")
    _refuse_while_served(settings, lock)
    try:
        with lock:
            # A server that started between the check and the lock is caught here.
            _refuse_while_served(settings, lock)
            report = restore_archive(settings, args.file, now=utc_now, config_file=_config_file(args))
    except OperationsError as error:
        raise CommandError(str(error), exit_status=FAILURE_STATUS) from None
    print(
        f"restored {args.file} (taken {report.manifest.get('taken_at')}): {report.conversations} "
        f"conversations, {report.outbound} sent and {report.inbound} received messages"
    )
    if report.made_unknown:
        print(
            f"{len(report.made_unknown)} sends were queued, sending or unknown when the backup was taken; "
            "they are now unknown (restored_from_backup) and wait for their purpose's rule or a supervisor"
        )
    print(f"the previous data is kept in {report.kept_at}")
    return 0


def _refuse_while_served(settings: Settings, lock: ProcessLock) -> None:
    """Exit 1, naming the process, when a server or worker uses this data folder or database."""
    users = holders(settings.data_dir, besides=lock)
    if not settings.is_sqlite:
        users += _postgres_servers(settings)
    if users:
        raise CommandError(
            f"refusing to restore while {users[0]} uses the database; stop it first "
            "(Ctrl+C, or inbox service uninstall if it runs as a service)",
            exit_status=FAILURE_STATUS,
        )


def _postgres_servers(settings: Settings) -> list[str]:
    """Connections of `inbox serve` or `inbox worker` processes to the database, on any machine."""
    database: Database | None = None
    try:
        database = open_database(settings, upgrade=False)
        with database.reader() as session:
            rows = session.execute(
                text(
                    "SELECT DISTINCT application_name FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                    "AND application_name LIKE :prefix"
                ),
                {"prefix": f"{SERVER_APPLICATION_PREFIX}%"},
            ).scalars()
            return [str(name) for name in rows]
    except CommandError:
        return []  # a database that does not answer has no server on it; the restore will say more
    finally:
        if database is not None:
            database.dispose()


def _config_file(args: argparse.Namespace) -> Path | None:
    config = getattr(args, "config", None)
    return Path(config) if config else None


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
