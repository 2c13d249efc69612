"""Durable storage of raw webhook bodies, committing concurrent requests together (group commit)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from backend.clock import Clock, utc_now
from backend.database import Database
from backend.database.models import WebhookDelivery
from backend.parts import WriteTurns

log = logging.getLogger(__name__)

DEFAULT_STORE_TIMEOUT_SECONDS = 5.0
MAX_BODIES_PER_COMMIT = 512
# The writer thread ends after this long without work and starts again on the next body.
WRITER_IDLE_SECONDS = 2.0


# How long the processor lets webhook bodies go first before it insists on its turn.
BACKGROUND_PATIENCE_SECONDS = 0.05


class SqliteWriteTurns:
    """Takes turns at SQLite's single write lock inside one process, webhook bodies first.

    Without it the processor and the body writer meet in SQLite's busy handler, which sleeps and
    retries: a writer can lose the race many times in a row, and a webhook waits 100 ms or more.
    Here a waiting body goes next; the processor waits at most BACKGROUND_PATIENCE_SECONDS.
    """

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._busy = False
        self._urgent_waiting = 0
        self._background_due = False

    @contextmanager
    def urgent(self) -> Iterator[None]:
        """Hold the turn for storing webhook bodies."""
        with self._condition:
            self._urgent_waiting += 1
            while self._busy or self._background_due:
                self._condition.wait()
            self._urgent_waiting -= 1
            self._busy = True
        try:
            yield
        finally:
            self._release()

    @contextmanager
    def background(self) -> Iterator[None]:
        """Hold the turn for background work (processing), after waiting bodies unless it waited too long."""
        deadline = time.monotonic() + BACKGROUND_PATIENCE_SECONDS
        with self._condition:
            while self._busy or (self._urgent_waiting and not self._background_due):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._background_due = True
                    self._condition.wait()
                else:
                    self._condition.wait(remaining)
            self._busy = True
            self._background_due = False
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        with self._condition:
            self._busy = False
            self._condition.notify_all()


class NoWriteTurns:
    """PostgreSQL writers do not share one lock: no turns needed."""

    @contextmanager
    def urgent(self) -> Iterator[None]:
        """No waiting."""
        yield

    @contextmanager
    def background(self) -> Iterator[None]:
        """No waiting."""
        yield


def write_turns_for(database: Database) -> WriteTurns:
    """New turns for the writers of this database; every writer of one process must share them."""
    return SqliteWriteTurns() if database.is_sqlite else NoWriteTurns()


@dataclass
class _Ticket:
    body: bytes
    signature: str | None
    received_at: datetime
    # True once the body is committed, False if storing failed.
    stored: Future[bool] = field(default_factory=Future)


class DeliveryStore:
    """Stores bodies exactly as received; `store` returns only once the body is committed (or failed).

    One writer thread commits every body waiting at that moment in one transaction: on SQLite a
    single writer avoids fighting over the write lock, and one commit covers many requests.
    """

    def __init__(
        self,
        database: Database,
        *,
        clock: Clock = utc_now,
        timeout_seconds: float = DEFAULT_STORE_TIMEOUT_SECONDS,
        turns: WriteTurns | None = None,
    ) -> None:
        self._database = database
        self._clock = clock
        self.timeout_seconds = timeout_seconds
        self._condition = threading.Condition()
        self._pending: list[_Ticket] = []
        self._writer: threading.Thread | None = None
        self._closed = False
        dialect = database.engine.dialect
        marker = "?" if dialect.paramstyle == "qmark" else "%s"
        table = WebhookDelivery.__table__
        table_name = WebhookDelivery.__tablename__
        self._insert_sql = (
            f"INSERT INTO {table_name} (body, signature, received_at) VALUES ({marker}, {marker}, {marker})"
        )
        processor = table.c.received_at.type.bind_processor(dialect)
        self._sqlite = database.is_sqlite
        self._turns = turns if turns is not None else write_turns_for(database)
        self._time_processor: Callable[[datetime], Any] = processor or (lambda value: value)

    def store(self, body: bytes, signature: str | None) -> bool:
        """Commit one body; True once it is durable, False if storing failed or took too long."""
        stored = self.submit(body, signature)
        # A timed-out body may still commit later: stored without a 200 is safe (Meta retries, the
        # event keys drop the copy); a 200 without a stored body is what must never happen.
        try:
            return stored.result(self.timeout_seconds)
        except TimeoutError:
            log.warning("storing a webhook body took over %.1f s; answering 503", self.timeout_seconds)
            return False

    def submit(self, body: bytes, signature: str | None) -> Future[bool]:
        """Queue one body for the next commit; the future says True once it is durable, False if not.

        For callers that must not block a thread while the commit happens (an event loop).
        """
        ticket = _Ticket(body=body, signature=signature, received_at=self._clock())
        with self._condition:
            if self._closed:
                ticket.stored.set_running_or_notify_cancel()
                ticket.stored.set_result(False)
                return ticket.stored
            self._pending.append(ticket)
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_loop, name="webhook-store", daemon=True)
                self._writer.start()
            else:
                self._condition.notify()
        return ticket.stored

    def close(self) -> None:
        """Refuse new bodies; bodies already waiting are still written."""
        with self._condition:
            self._closed = True
            self._condition.notify_all()

    def _write_loop(self) -> None:
        while True:
            with self._condition:
                if not self._pending:
                    self._condition.wait(WRITER_IDLE_SECONDS)
                if not self._pending:
                    self._writer = None
                    return
                batch = self._pending[:MAX_BODIES_PER_COMMIT]
                del self._pending[:MAX_BODIES_PER_COMMIT]
            # From here a waiter's cancel no longer touches the future; the body is stored regardless.
            waited_for = [ticket for ticket in batch if ticket.stored.set_running_or_notify_cancel()]
            with self._turns.urgent():
                stored = self._store_batch(batch)
            for ticket in waited_for:
                ticket.stored.set_result(stored)

    def _store_batch(self, batch: list[_Ticket]) -> bool:
        # A driver connection from the pool for each group, given back at once, so nothing holds one
        # while idle (and disposing of the database closes them all).
        try:
            connection = self._database.engine.raw_connection()
        except Exception:
            log.exception("cannot connect to the database to store webhook bodies")
            return False
        stored = self._write(connection, batch)
        if stored:
            connection.close()
        else:
            # After a failure start afresh: the connection may be broken or mid-transaction.
            try:
                connection.invalidate()
            except Exception:  # already broken: nothing more to release
                log.debug("discarding a broken connection failed", exc_info=True)
        return stored

    def _write(self, connection: Any, batch: list[_Ticket]) -> bool:
        """One transaction for the whole batch, on the writer's own driver connection.

        The driver is used directly: the per-row and per-statement work of the layers above cost
        more than the insert itself, and the writer is the one thread every webhook waits for.
        """
        to_database_time = self._time_processor
        rows = [(ticket.body, ticket.signature, to_database_time(ticket.received_at)) for ticket in batch]
        try:
            cursor = connection.cursor()
            try:
                if self._sqlite:
                    # The driver runs in autocommit mode here; take the write lock up front.
                    cursor.execute("BEGIN IMMEDIATE")
                cursor.executemany(self._insert_sql, rows)
                if self._sqlite:
                    cursor.execute("COMMIT")
                else:
                    connection.commit()
            finally:
                cursor.close()
        except Exception:  # any storage failure becomes a 503 so Meta delivers again
            log.exception("could not store %d webhook bodies", len(rows))
            return False
        return True
