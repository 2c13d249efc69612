"""Checkpoints of SQLite's write-ahead log on a worker of their own, off the writers' commits.

By default SQLite checkpoints inside the commit that grows the log past 1,000 pages: that commit
holds the one write lock while pages are copied into the database file, and the sender and the
webhook writer wait behind it (commits of 50–80 ms were seen while draining at the cap). The
server's processes turn that off (`create_database(checkpoint_on_commit=False)`) and this worker
runs passive checkpoints, which take no write lock, every fraction of a second instead.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from dataclasses import dataclass

from sqlalchemy.exc import SQLAlchemyError

from backend.database.engine import Database

log = logging.getLogger(__name__)

CHECKPOINT_INTERVAL_SECONDS = 0.5


@dataclass(frozen=True)
class CheckpointResult:
    """What one passive checkpoint did, as `PRAGMA wal_checkpoint` reports it."""

    busy: bool
    log_frames: int
    checkpointed_frames: int


class WalCheckpointer:
    """Worker copying the write-ahead log into the database file without holding the write lock."""

    name = "wal-checkpointer"

    def __init__(self, database: Database, *, interval_seconds: float = CHECKPOINT_INTERVAL_SECONDS) -> None:
        if not database.is_sqlite:
            raise ValueError("only SQLite has a write-ahead log to checkpoint")
        self._database = database
        self.interval_seconds = interval_seconds

    def run_once(self) -> CheckpointResult:
        """One passive checkpoint: as much of the log as no reader still needs."""
        connection = self._database.engine.raw_connection()
        try:
            cursor = connection.cursor()
            try:
                busy, log_frames, checkpointed = cursor.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            finally:
                cursor.close()
        finally:
            connection.close()
        return CheckpointResult(busy=bool(busy), log_frames=log_frames, checkpointed_frames=checkpointed)

    def run(self, stop: threading.Event) -> None:
        """Checkpoint every interval until stop is set."""
        while not stop.is_set():
            try:
                self.run_once()
            except (SQLAlchemyError, sqlite3.Error, OSError) as error:
                # The driver's own errors too (the PRAGMA runs on a raw connection): should this loop
                # end, the log would grow with every commit until the process restarts.
                log.warning("write-ahead log checkpoint paused, the database is unavailable: %s", error)
            stop.wait(self.interval_seconds)
