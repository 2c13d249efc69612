"""A clock that follows the database server's time, so workers on several machines pace on one time base."""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from backend.clock import utc_now
from backend.database import Database

log = logging.getLogger(__name__)

RESYNC_SECONDS = 30.0


class DatabaseClock:
    """`utc_now()` corrected by the offset to the database server's clock, measured every 30 s.

    Pacing slots, leases and not_before are compared across processes; on PostgreSQL those may run
    on machines whose clocks drift apart. Reading the server's clock once in a while (not per call)
    keeps them on one time base at no cost per claim.
    """

    def __init__(self, database: Database, resync_seconds: float = RESYNC_SECONDS) -> None:
        self._database = database
        self._resync_seconds = resync_seconds
        self._offset = timedelta(0)
        self._synced_at: float | None = None
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        """The current time on the database server's time base."""
        if self._synced_at is None or time.monotonic() - self._synced_at > self._resync_seconds:
            self._sync()
        return utc_now() + self._offset

    def _sync(self) -> None:
        with self._lock:
            if self._synced_at is not None and time.monotonic() - self._synced_at <= self._resync_seconds:
                return
            try:
                before = utc_now()
                with self._database.engine.connect() as connection:
                    server = connection.execute(text("SELECT clock_timestamp()")).scalar_one()
                after = utc_now()
            except Exception:
                # Keep the last offset; a database that cannot be reached fails the claim anyway.
                log.warning("could not read the database clock; keeping the last offset", exc_info=True)
                self._synced_at = time.monotonic()
                return
            if server.tzinfo is None:
                server = server.replace(tzinfo=UTC)
            self._offset = server - (before + (after - before) / 2)
            self._synced_at = time.monotonic()
