"""The webhook dispatcher: journal events to subscribed endpoints, signed, in seq order, retried for 3 days.

Two named steps. `fan_out` copies each enabled subscription's new journal entries (after its cursor)
into deliveries, each with a body and webhook-id fixed for all its attempts. `start_due` gives every
subscription whose oldest pending delivery is due a task on a thread pool; the task sends that
subscription's deliveries one at a time in seq order and stops at the first failure, which waits
for its retry. One subscription never waits for another's endpoint: each has its own task, and a
task holds nothing but its own subscription's next delivery. A delivery is claimed by moving its
next attempt a lease ahead, so worker processes on PostgreSQL never send the same one at once.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

import httpx
from sqlalchemy import CursorResult, func, or_, select, update
from sqlalchemy.exc import OperationalError

from backend.database.models import OutgoingDelivery, WebhookSubscription
from backend.dispatch.subscriptions import DELIVERED, FAILED, PENDING
from backend.domain.outgoing_webhooks import new_webhook_id, next_attempt, sign, wants
from backend.inbox.queries import iso
from backend.journal import entries_after, last_seq
from backend.parts import BackendParts

log = logging.getLogger(__name__)

REQUEST_TIMEOUT_SECONDS = 10.0
# A claimed delivery is due again after this (its worker died mid-call): longer than any call takes.
CLAIM_LEASE = timedelta(seconds=REQUEST_TIMEOUT_SECONDS * 3)
DEFAULT_PARALLEL = 32
FAN_OUT_BATCH = 500
USER_AGENT = "whatsapp-shared-inbox-webhooks/1"
MAX_ERROR_TEXT = 255
MIN_PASS_SECONDS = 0.1


def outgoing_client() -> httpx.Client:
    """The HTTP client for endpoints: follows no redirects, gives up on a silent endpoint after 10 s."""
    return httpx.Client(follow_redirects=False, timeout=REQUEST_TIMEOUT_SECONDS)


def delivery_body(event_type: str, at: datetime, seq: int, data: dict[str, Any]) -> str:
    """The JSON body of one event: {"type", "timestamp", "seq", "data"}."""
    document = {
        "type": event_type,
        "timestamp": iso(at),
        "seq": seq,
        "data": data,
    }
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class _Claimed:
    """A delivery this worker is sending now, with what signing and sending it needs."""

    id: int
    subscription_id: int
    url: str
    secret: str
    webhook_id: str
    body: str
    attempts: int
    retry_since: datetime


@dataclass
class DispatchResult:
    """What one pass did."""

    fanned_out: int = 0
    delivered: int = 0
    failed_attempts: int = 0
    disabled: int = 0


class WebhookDispatcher:
    """Worker pushing journal events to webhook subscriptions."""

    name = "webhook-dispatcher"

    def __init__(
        self,
        parts: BackendParts,
        *,
        client: httpx.Client | None = None,
        parallel: int = DEFAULT_PARALLEL,
        interval_seconds: float = 1.0,
    ) -> None:
        self._database = parts.database
        self._clock = parts.clock
        self._turns = parts.write_turns
        self._signal = parts.journal_signal
        # Made on first use when not given, so a process that never runs this worker opens nothing.
        self._client = client
        self._owns_client = client is None
        self._executor = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="webhook-dispatch")
        self.interval_seconds = interval_seconds
        self._lock = threading.Lock()
        self._busy: set[int] = set()
        self._stopping = threading.Event()
        self._result = DispatchResult()

    # Step 1: new journal entries become deliveries.

    def fan_out(self) -> int:
        """Turn each enabled subscription's journal entries after its cursor into deliveries; how many."""
        with self._database.reader() as session:
            newest = last_seq(session)
            behind = list(
                session.scalars(
                    select(WebhookSubscription.id).where(
                        WebhookSubscription.enabled.is_(True), WebhookSubscription.cursor_seq < newest
                    )
                )
            )
        return sum(self._fan_out_all(subscription_id) for subscription_id in behind)

    def _fan_out_all(self, subscription_id: int) -> int:
        """Every entry after the subscription's cursor, a batch per short transaction."""
        total = 0
        while True:
            created, read = self._fan_out_one(subscription_id)
            total += created
            if read < FAN_OUT_BATCH:
                return total

    def _fan_out_one(self, subscription_id: int) -> tuple[int, int]:
        """One batch: (deliveries made, journal entries read)."""
        created = 0
        with self._turns.background(), self._database.transaction() as session:
            # Locked, so two workers on PostgreSQL never copy the same entries twice.
            row = session.scalar(
                select(WebhookSubscription).where(WebhookSubscription.id == subscription_id).with_for_update()
            )
            if row is None or not row.enabled:
                return 0, 0
            entries = entries_after(session, row.cursor_seq, FAN_OUT_BATCH)
            if not entries:
                return 0, 0
            now = self._clock()
            events = list(row.events)
            for entry in entries:
                if not wants(events, entry.type):
                    continue
                session.add(
                    OutgoingDelivery(
                        subscription_id=row.id,
                        seq=entry.seq,
                        type=entry.type,
                        webhook_id=new_webhook_id(),
                        body=delivery_body(entry.type, entry.at, entry.seq, entry.data),
                        state=PENDING,
                        attempts=0,
                        next_attempt_at=now,
                        created_at=now,
                    )
                )
                created += 1
            row.cursor_seq = entries[-1].seq
        return created, len(entries)

    # Step 2: each subscription with a due delivery gets a task sending its deliveries in order.

    def start_due(self) -> list[Future[None]]:
        """Start a sending task for every subscription whose next delivery is due and has none running."""
        now = self._clock()
        with self._database.reader() as session:
            head = (
                select(
                    OutgoingDelivery.subscription_id,
                    func.min(OutgoingDelivery.seq).label("seq"),
                )
                .where(OutgoingDelivery.state == PENDING)
                .group_by(OutgoingDelivery.subscription_id)
                .subquery()
            )
            due = list(
                session.scalars(
                    select(OutgoingDelivery.subscription_id)
                    .join(
                        head,
                        (head.c.subscription_id == OutgoingDelivery.subscription_id)
                        & (head.c.seq == OutgoingDelivery.seq),
                    )
                    .join(WebhookSubscription, WebhookSubscription.id == OutgoingDelivery.subscription_id)
                    .where(WebhookSubscription.enabled.is_(True), OutgoingDelivery.next_attempt_at <= now)
                )
            )
        started: list[Future[None]] = []
        for subscription_id in due:
            with self._lock:
                if subscription_id in self._busy or self._stopping.is_set():
                    continue
                self._busy.add(subscription_id)
            started.append(self._executor.submit(self._send_in_order, subscription_id))
        return started

    def _send_in_order(self, subscription_id: int) -> None:
        try:
            while not self._stopping.is_set():
                claimed = self._claim_next(subscription_id)
                if claimed is None:
                    return
                status, error = self._post(claimed)
                if not self._record(claimed, status, error):
                    return
        except OperationalError as error:
            log.warning("webhook dispatch for subscription %s paused: %s", subscription_id, error)
        except Exception:  # a task must never die silently: the loop goes on with the next pass
            log.exception("webhook dispatch for subscription %s failed", subscription_id)
        finally:
            with self._lock:
                self._busy.discard(subscription_id)

    def _claim_next(self, subscription_id: int) -> _Claimed | None:
        """The subscription's oldest pending delivery if it is due, its next attempt moved a lease ahead."""
        with self._turns.background(), self._database.transaction() as session:
            now = self._clock()
            found = session.execute(
                select(OutgoingDelivery, WebhookSubscription)
                .join(WebhookSubscription, WebhookSubscription.id == OutgoingDelivery.subscription_id)
                .where(
                    OutgoingDelivery.subscription_id == subscription_id,
                    OutgoingDelivery.state == PENDING,
                    WebhookSubscription.enabled.is_(True),
                )
                .order_by(OutgoingDelivery.seq)
                .limit(1)
            ).first()
            if found is None:
                return None
            delivery, owner = found
            if delivery.next_attempt_at is not None and delivery.next_attempt_at > now:
                return None
            retry_since = delivery.retry_since or now
            claimed = session.execute(
                update(OutgoingDelivery)
                .where(
                    OutgoingDelivery.id == delivery.id,
                    OutgoingDelivery.state == PENDING,
                    or_(OutgoingDelivery.next_attempt_at.is_(None), OutgoingDelivery.next_attempt_at <= now),
                )
                .values(
                    next_attempt_at=now + CLAIM_LEASE,
                    attempts=OutgoingDelivery.attempts + 1,
                    retry_since=retry_since,
                )
                .execution_options(synchronize_session=False)
            )
            if cast("CursorResult[Any]", claimed).rowcount != 1:
                return None  # another worker took it
            return _Claimed(
                id=delivery.id,
                subscription_id=subscription_id,
                url=owner.url,
                secret=owner.secret,
                webhook_id=delivery.webhook_id,
                body=delivery.body,
                attempts=delivery.attempts + 1,
                retry_since=retry_since,
            )

    def _post(self, claimed: _Claimed) -> tuple[int | None, str | None]:
        """POST the delivery, signed for this attempt's timestamp; (status, None) or (None, what failed)."""
        body = claimed.body.encode("utf-8")
        timestamp = int(self._clock().timestamp())
        headers = {
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            "webhook-id": claimed.webhook_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": sign(claimed.secret, claimed.webhook_id, timestamp, body),
        }
        try:
            # Streamed and never read: an endpoint's answer is its status, whatever body it sends.
            with self._http().stream(
                "POST",
                claimed.url,
                content=body,
                headers=headers,
                follow_redirects=False,
                timeout=REQUEST_TIMEOUT_SECONDS,
            ) as response:
                return response.status_code, None
        except Exception as error:  # a refused, silent or malformed endpoint is an outcome, not a crash
            return None, f"{type(error).__name__}: {error}"[:MAX_ERROR_TEXT]

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = outgoing_client()
            return self._client

    def _record(self, claimed: _Claimed, status: int | None, error: str | None) -> bool:
        """Store the attempt's outcome; True when it was delivered and the next one may go."""
        delivered = status is not None and 200 <= status < 300
        with self._turns.background(), self._database.transaction() as session:
            now = self._clock()
            row = session.scalar(
                select(OutgoingDelivery).where(OutgoingDelivery.id == claimed.id).with_for_update()
            )
            if row is None or row.state != PENDING:  # deleted with its subscription meanwhile
                return False
            row.last_status = status
            row.last_error = None if delivered else (error or f"HTTP {status}")
            if delivered:
                row.state = DELIVERED
                row.delivered_at = now
                row.next_attempt_at = None
                self._count(delivered=1)
                return True
            self._count(failed_attempts=1)
            retry_at = next_attempt(claimed.attempts, now, claimed.retry_since)
            if retry_at is not None:
                row.next_attempt_at = retry_at
                return False
            row.state = FAILED
            row.next_attempt_at = None
            owner = session.scalar(
                select(WebhookSubscription)
                .where(WebhookSubscription.id == claimed.subscription_id)
                .with_for_update()
            )
            if owner is not None and owner.enabled:
                owner.enabled = False
                owner.disabled_at = now
                owner.disabled_reason = f"Delivery {row.id} failed for 3 days ({row.last_error})."[:255]
                self._count(disabled=1)
                log.warning("webhook subscription %s disabled: %s", owner.id, owner.disabled_reason)
            return False

    def _count(self, **amounts: int) -> None:
        with self._lock:
            for name, amount in amounts.items():
                setattr(self._result, name, getattr(self._result, name) + amount)

    def _take_result(self) -> DispatchResult:
        with self._lock:
            result, self._result = self._result, DispatchResult()
        return result

    # The loop.

    def run_once(self) -> DispatchResult:
        """Fan out, then send every due delivery and wait for those sends: a whole pass, for tests."""
        fanned_out = self.fan_out()
        wait(self.start_due())
        result = self._take_result()
        result.fanned_out = fanned_out
        return result

    def run(self, stop: threading.Event) -> None:
        """Pass again on every journal commit or interval until stop is set; sends run on the pool."""
        try:
            while not stop.is_set():
                generation = self._signal.generation()
                began = time.monotonic()
                try:
                    self.fan_out()
                    self.start_due()
                except OperationalError as error:
                    log.warning("webhook dispatcher paused, the database is unavailable: %s", error)
                self._signal.wait(generation, self.interval_seconds)
                # Commits come by the hundred a second under load: one pass per tenth of a second is enough.
                stop.wait(max(0.0, MIN_PASS_SECONDS - (time.monotonic() - began)))
        finally:
            self.close()

    def close(self) -> None:
        """Start no more sends; calls in flight finish (or time out) on their own, and are retried if cut."""
        self._stopping.set()
        self._executor.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            if self._owns_client and self._client is not None:
                self._client.close()
