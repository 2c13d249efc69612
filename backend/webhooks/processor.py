"""The webhook processor: stored bodies become events, each applied once with its key in one transaction."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from backend import counters
from backend.clock import Clock, utc_now
from backend.database import Database
from backend.database.models import ProcessedEvent, WebhookDelivery
from backend.database.upsert import insert_ignoring_conflicts
from backend.domain.account_events import AccountEvent
from backend.domain.webhook_events import (
    InboundMessageEvent,
    ParsedBody,
    StatusEvent,
    WebhookParseError,
    describe_error,
    first_error,
    parse_body,
)
from backend.inbox.inbound import store_inbound
from backend.journal import journal_many
from backend.parts import BackendParts, WindowOpenedHook
from backend.webhooks.compliance import Compliance
from backend.webhooks.statuses import apply_statuses

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 100
# On SQLite a batch stops taking bodies once it holds this many events: the write lock is shared with
# the sender and the webhook writer, and a transaction of thousands of statuses held it for 100 ms+.
MAX_EVENTS_PER_SQLITE_BATCH = 300
IDLE_SECONDS = 0.2
# After a batch that emptied the queue the processor waits this long before the next, so bodies
# arriving one by one are applied together: each batch costs a transaction and a turn at SQLite's
# write lock whatever its size (bench.e2e's intake: 0.17-0.18 ms of the background's CPU per webhook
# without the pause, 0.14 ms with it). A backlog is worked without a pause.
GATHER_SECONDS = 0.02
RETRY_AFTER_SECONDS = 2.0
MAX_ERROR_LENGTH = 2000
_ID_CHUNK = 500
# Value-level errors that came without any message (about the account or app, e.g. a rate limit).
WEBHOOK_VALUE_ERRORS = "webhook_value_errors"


@dataclass
class ProcessingResult:
    """What one step of the processor did."""

    deliveries: int = 0
    events: int = 0
    applied: int = 0
    duplicates: int = 0
    unmatched_statuses: int = 0
    parse_failures: int = 0
    value_errors: int = 0
    failed_deliveries: int = 0
    # Messages and statuses about another business number: left in their stored body, not applied.
    foreign_events: int = 0
    cross_contact_quotes: int = 0

    def add(self, other: ProcessingResult) -> None:
        """Sum another result into this one."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class ParsedDelivery:
    """A stored body and what parsing it gave: events, or the problem that stopped (or marred) it."""

    id: int
    parsed: ParsedBody | None
    problem: str | None


class ForeignNumbers:
    """Warns once for each business number not ours that webhooks name, however many events it has."""

    def __init__(self, phone_number_id: str | None) -> None:
        self.phone_number_id = phone_number_id
        self._seen: set[str | None] = set()
        self._lock = threading.Lock()

    def report(self, phone_number_id: str | None) -> None:
        """Log the first event seen for this number (the stored bodies keep every one)."""
        with self._lock:
            if phone_number_id in self._seen:
                return
            self._seen.add(phone_number_id)
        log.warning(
            "webhook events for phone_number_id %r are stored but not applied: ours is %r",
            phone_number_id,
            self.phone_number_id,
        )


def parse_delivery(delivery_id: int, body: bytes, phone_number_id: str | None = None) -> ParsedDelivery:
    """Parse one stored body (events of our number only); a body we cannot read is a problem, never raised."""
    try:
        parsed = parse_body(body, phone_number_id=phone_number_id)
    except WebhookParseError as error:
        return ParsedDelivery(delivery_id, None, str(error))
    problem = "; ".join(parsed.problems) if parsed.problems else None
    return ParsedDelivery(delivery_id, parsed, problem)


def _insert_new_keys(session: Session, keys: list[tuple[str, int]], now: datetime) -> set[str]:
    """Insert event keys; the ones that already existed are not returned."""
    table: Any = ProcessedEvent.__table__
    # On the table, not the model: the ORM's bulk path costs more per row than the insert itself.
    statement = insert_ignoring_conflicts(session, table, ["event_key"]).returning(table.c.event_key)
    # Sorted so concurrent processors take key locks in the same order (no deadlock on PostgreSQL).
    rows = [
        {"event_key": key, "delivery_id": delivery, "processed_at": now} for key, delivery in sorted(keys)
    ]
    return set(session.connection().execute(statement, rows).scalars())


def apply_deliveries(
    session: Session,
    deliveries: list[ParsedDelivery],
    now: datetime,
    *,
    on_window_opened: WindowOpenedHook | None = None,
    foreign_numbers: ForeignNumbers | None = None,
    replay: bool = False,
    compliance: Compliance | None = None,
) -> ProcessingResult:
    """Apply every event of these parsed deliveries once; the caller commits (keys and effects together).

    With `compliance`, stop messages, preference, template and quality webhooks take effect too.
    """
    result = ProcessingResult(deliveries=len(deliveries))
    seen: set[str] = set()
    first_delivery: list[tuple[str, int]] = []
    candidates: list[InboundMessageEvent | StatusEvent | AccountEvent] = []
    for delivery in deliveries:
        if delivery.problem is not None:
            result.parse_failures += 1
        if delivery.parsed is None:
            continue
        for number, count in delivery.parsed.foreign_events.items():
            # No event key is taken: should the number become ours, a replay still applies them.
            result.foreign_events += count
            if foreign_numbers is not None:
                foreign_numbers.report(number)
        for event in delivery.parsed.events:
            result.events += 1
            if event.key in seen:
                result.duplicates += 1
                continue
            seen.add(event.key)
            first_delivery.append((event.key, delivery.id))
            candidates.append(event)
    new_keys = _insert_new_keys(session, first_delivery, now) if first_delivery else set()
    fresh = [event for event in candidates if event.key in new_keys]
    result.duplicates += len(candidates) - len(fresh)
    result.applied = len(fresh)

    fresh_statuses = [e for e in fresh if isinstance(e, StatusEvent)]
    fresh_messages = [e for e in fresh if isinstance(e, InboundMessageEvent)]
    status_outcome = apply_statuses(session, fresh_statuses, now)
    inbound_outcome = store_inbound(session, fresh_messages, now, on_window_opened=on_window_opened)
    compliance_journal: list[tuple[str, dict[str, Any]]] = []
    if compliance is not None:
        compliance_journal = compliance.apply(
            session,
            messages=fresh_messages,
            statuses=fresh_statuses,
            account_events=[e for e in fresh if not isinstance(e, InboundMessageEvent | StatusEvent)],
            now=now,
        ).journal
    result.unmatched_statuses = status_outcome.unmatched
    result.cross_contact_quotes = inbound_outcome.cross_contact_quotes
    result.value_errors = sum(
        len(delivery.parsed.value_errors)
        for delivery in deliveries
        if delivery.parsed is not None and not delivery.parsed.messages
    )
    if result.value_errors:
        # Errors about the account or the app, with no message to keep them with: counted and logged;
        # the stored raw body keeps the details.
        for delivery in deliveries:
            if delivery.parsed is not None and not delivery.parsed.messages:
                for error in delivery.parsed.value_errors:
                    log.warning("WhatsApp reported: %s", describe_error(*first_error([error])))

    _mark_processed(session, deliveries, now)
    # A replay repeats events and parse failures on purpose: they are not new deliveries from Meta.
    if result.duplicates and not replay:
        counters.bump(session, counters.DUPLICATE_WEBHOOKS, result.duplicates)
    if result.unmatched_statuses:
        counters.bump(session, counters.UNMATCHED_STATUSES, result.unmatched_statuses)
    if result.value_errors and not replay:
        counters.bump(session, WEBHOOK_VALUE_ERRORS, result.value_errors)
    if result.parse_failures and not replay:
        counters.bump(session, counters.WEBHOOK_PARSE_FAILURES, result.parse_failures)
    if result.foreign_events and not replay:
        counters.bump(session, counters.FOREIGN_NUMBER_EVENTS, result.foreign_events)
    if result.cross_contact_quotes:
        counters.bump(session, counters.CROSS_CONTACT_QUOTES, result.cross_contact_quotes)
    _journal_all(session, status_outcome.journal + inbound_outcome.journal + compliance_journal, now)
    return result


def _journal_all(session: Session, entries: list[tuple[str, dict[str, Any]]], now: datetime) -> None:
    """Journal entries in order, in one multi-row insert."""
    journal_many(session, entries, now)


def _mark_processed(session: Session, deliveries: list[ParsedDelivery], now: datetime) -> None:
    table: Any = WebhookDelivery.__table__
    clean = [delivery.id for delivery in deliveries if delivery.problem is None]
    for start in range(0, len(clean), _ID_CHUNK):
        ids = clean[start : start + _ID_CHUNK]
        session.execute(update(table).where(table.c.id.in_(ids)).values(processed_at=now))
    for delivery in deliveries:
        if delivery.problem is not None:
            session.execute(
                update(table)
                .where(table.c.id == delivery.id)
                .values(processed_at=now, parse_error=_cut(delivery.problem))
            )


def _cut(text: str | None) -> str | None:
    return text[:MAX_ERROR_LENGTH] if text is not None else None


class WebhookProcessor:
    """Worker turning stored webhook bodies into effects, a batch of bodies per transaction."""

    name = "webhook-processor"

    def __init__(self, parts: BackendParts, *, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        self._database = parts.database
        self._clock = parts.clock
        self.batch_size = batch_size
        self._on_window_opened = parts.hooks.on_window_opened
        self._turns = parts.write_turns
        # Only events about our WHATSAPP_PHONE_NUMBER_ID are applied; with none configured (tests,
        # benchmarks) there is nothing to tell ours apart, so every event is. One processor runs in
        # each process, so the warning about a foreign number comes once per process.
        self._foreign_numbers = ForeignNumbers(parts.settings.whatsapp_phone_number_id or None)
        self._compliance = Compliance(parts.settings, parts.templates)

    def run_once(self) -> ProcessingResult:
        """Process one batch of pending bodies (oldest first); an empty result when none wait."""
        try:
            return self._process_batch()
        except OperationalError as error:
            # Locked, gone or read-only: nothing is wrong with the bodies, so try again later.
            log.warning("webhook processing paused, the database is unavailable: %s", error)
            return ProcessingResult(failed_deliveries=1)
        except Exception:
            log.exception("a batch of webhook bodies failed; retrying them one by one")
            return self._process_one_by_one()

    def run(self, stop: threading.Event) -> None:
        """Process until stop is set, resting briefly whenever nothing is pending."""
        while not stop.is_set():
            result = self.run_once()
            if result.failed_deliveries:
                stop.wait(RETRY_AFTER_SECONDS)
            elif result.deliveries == 0:
                stop.wait(IDLE_SECONDS)
            elif result.deliveries < self.batch_size and result.events < MAX_EVENTS_PER_SQLITE_BATCH:
                stop.wait(GATHER_SECONDS)

    def drain(self) -> ProcessingResult:
        """Process until nothing is pending (tests, replay and benchmarks)."""
        total = ProcessingResult()
        while True:
            result = self.run_once()
            total.add(result)
            if result.deliveries == 0 or result.failed_deliveries:
                return total

    def _pending_query(self, limit: int) -> Any:
        query = (
            select(WebhookDelivery.id, WebhookDelivery.body)
            .where(WebhookDelivery.processed_at.is_(None))
            .order_by(WebhookDelivery.id)
            .limit(limit)
        )
        if not self._database.is_sqlite:
            # Several worker processes share the pending bodies; each takes ones no other holds.
            query = query.with_for_update(skip_locked=True)
        return query

    def _process_batch(self) -> ProcessingResult:
        if self._database.is_sqlite:
            return self._process_batch_sqlite()
        with self._turns.background(), self._database.transaction() as session:
            rows = session.execute(self._pending_query(self.batch_size)).all()
            if not rows:
                return ProcessingResult()
            deliveries = [self._parse(row.id, bytes(row.body)) for row in rows]
            return self._apply(session, deliveries)

    def _process_batch_sqlite(self) -> ProcessingResult:
        """Read and parse outside the write lock, then apply in a transaction of bounded size.

        SQLite has one write lock for every process: parsing under it kept the sender and the
        webhook writer waiting. Only this process processes bodies on SQLite; the bodies still
        pending are checked again under the lock all the same, and event keys drop any repeat.
        """
        with self._database.reader() as session:
            rows = session.execute(self._pending_query(self.batch_size)).all()
        if not rows:
            return ProcessingResult()
        deliveries: list[ParsedDelivery] = []
        events = 0
        for row in rows:
            delivery = self._parse(row.id, bytes(row.body))
            deliveries.append(delivery)
            events += delivery.parsed.event_count if delivery.parsed is not None else 0
            if events >= MAX_EVENTS_PER_SQLITE_BATCH:
                break
        with self._turns.background(), self._database.transaction() as session:
            table: Any = WebhookDelivery.__table__
            pending = set(
                session.scalars(
                    select(table.c.id).where(
                        table.c.id.in_([delivery.id for delivery in deliveries]),
                        table.c.processed_at.is_(None),
                    )
                )
            )
            still_pending = [delivery for delivery in deliveries if delivery.id in pending]
            if not still_pending:
                return ProcessingResult()
            return self._apply(session, still_pending)

    def _apply(self, session: Session, deliveries: list[ParsedDelivery]) -> ProcessingResult:
        return apply_deliveries(
            session,
            deliveries,
            self._clock(),
            on_window_opened=self._on_window_opened,
            foreign_numbers=self._foreign_numbers,
            compliance=self._compliance,
        )

    def _parse(self, delivery_id: int, body: bytes) -> ParsedDelivery:
        return parse_delivery(delivery_id, body, self._foreign_numbers.phone_number_id)

    def _process_one_by_one(self) -> ProcessingResult:
        """After a failed batch: apply each body alone, and set aside the ones that fail on their own."""
        total = ProcessingResult()
        with self._database.reader() as session:
            ids = list(session.scalars(self._pending_ids_query()))
        for delivery_id in ids:
            try:
                with self._database.transaction() as session:
                    query = select(WebhookDelivery.id, WebhookDelivery.body).where(
                        WebhookDelivery.id == delivery_id, WebhookDelivery.processed_at.is_(None)
                    )
                    if not self._database.is_sqlite:
                        query = query.with_for_update(skip_locked=True)
                    row = session.execute(query).first()
                    if row is None:
                        continue
                    delivery = self._parse(row.id, bytes(row.body))
                    total.add(self._apply(session, [delivery]))
            except OperationalError as error:
                log.warning("webhook processing paused, the database is unavailable: %s", error)
                total.failed_deliveries += 1
                return total
            except Exception as error:
                log.exception("webhook body %s cannot be processed; set aside for replay", delivery_id)
                self._set_aside(delivery_id, error)
                total.failed_deliveries += 1
        return total

    def _pending_ids_query(self) -> Any:
        return (
            select(WebhookDelivery.id)
            .where(WebhookDelivery.processed_at.is_(None))
            .order_by(WebhookDelivery.id)
            .limit(self.batch_size)
        )

    def _set_aside(self, delivery_id: int, error: Exception) -> None:
        with self._database.transaction() as session:
            session.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.id == delivery_id)
                .values(processed_at=self._clock(), parse_error=_cut(f"processing failed: {error!r}"))
            )
            counters.bump(session, counters.WEBHOOK_PARSE_FAILURES)


def replay_since(
    database: Database,
    since: datetime,
    *,
    phone_number_id: str | None,
    clock: Clock = utc_now,
    batch_size: int = DEFAULT_BATCH_SIZE,
    on_window_opened: WindowOpenedHook | None = None,
    compliance: Compliance | None = None,
) -> ProcessingResult:
    """Process again every body received since `since` (our number's events, as the processor does)."""
    total = ProcessingResult()
    foreign_numbers = ForeignNumbers(phone_number_id or None)
    last_id = 0
    while True:
        with database.transaction() as session:
            rows = session.execute(
                select(WebhookDelivery.id, WebhookDelivery.body)
                .where(WebhookDelivery.received_at >= since, WebhookDelivery.id > last_id)
                .order_by(WebhookDelivery.id)
                .limit(batch_size)
            ).all()
            if not rows:
                return total
            last_id = rows[-1].id
            deliveries = [
                parse_delivery(row.id, bytes(row.body), foreign_numbers.phone_number_id) for row in rows
            ]
            total.add(
                apply_deliveries(
                    session,
                    deliveries,
                    clock(),
                    on_window_opened=on_window_opened,
                    foreign_numbers=foreign_numbers,
                    replay=True,
                    compliance=compliance,
                )
            )
