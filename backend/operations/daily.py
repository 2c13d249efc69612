"""The daily backup `inbox serve` takes into `<data folder>/backups/`, keeping INBOX_BACKUP_KEEP of them."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from sqlalchemy import desc, select

from backend.database.models import BackupRecord
from backend.operations import OperationsError
from backend.operations.archive import BackupInfo, backups_folder, prune_backups, record_backup, take_backup
from backend.parts import BackendParts

log = logging.getLogger(__name__)

DAILY = "daily"
INTERVAL = timedelta(days=1)
# The first look comes a minute after start: a server starting up (or a short test) is left alone.
FIRST_CHECK_SECONDS = 60.0
CHECK_SECONDS = 3600.0


class DailyBackup:
    """Takes a backup when the newest daily one is a day old, then deletes the oldest beyond the keep."""

    name = "daily-backup"

    def __init__(
        self,
        parts: BackendParts,
        *,
        first_check_seconds: float = FIRST_CHECK_SECONDS,
        check_seconds: float = CHECK_SECONDS,
    ) -> None:
        """Back up `parts.database` into the data folder's backups/."""
        self._parts = parts
        self._first_check = first_check_seconds
        self._check = check_seconds

    def due(self) -> bool:
        """Whether the newest daily backup is missing or at least a day old."""
        with self._parts.database.reader() as session:
            newest = session.scalars(
                select(BackupRecord.taken_at)
                .where(BackupRecord.reason == DAILY)
                .order_by(desc(BackupRecord.taken_at))
                .limit(1)
            ).first()
        return newest is None or self._parts.clock() - newest >= INTERVAL

    def run_once(self) -> BackupInfo | None:
        """Take the daily backup if it is due; the archive written, or None."""
        settings = self._parts.settings
        if settings.backup_keep == 0 or not self.due():
            return None
        folder = backups_folder(settings)
        info = take_backup(settings, self._parts.database, folder, reason=DAILY, now=self._parts.clock())
        with self._parts.database.transaction() as session:
            record_backup(session, info)
        removed = prune_backups(folder, DAILY, settings.backup_keep)
        log.info(
            "daily backup written to %s (%d bytes); removed %d older, keeping %d",
            info.path,
            info.size_bytes,
            len(removed),
            settings.backup_keep,
        )
        return info

    def run(self, stop: threading.Event) -> None:
        """Look a minute after start, then every hour, until `stop`."""
        wait = self._first_check
        while not stop.wait(wait):
            wait = self._check
            try:
                self.run_once()
            except (OperationsError, OSError) as error:
                # Tried again at the next look; the Health tab turns red if it keeps failing.
                log.warning("the daily backup failed: %s", error)
            except Exception:
                log.exception("the daily backup failed")
