"""Signed webhook deliveries like Meta's: ASCII-escaped JSON, HMAC over the exact bytes, retries."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import heapq
import hmac
import itertools
import json
import logging
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from backend.sandbox.faults import Faults
from backend.sandbox.poster import PostError, RawPoster, Target

log = logging.getLogger(__name__)


def serialize(payload: dict[str, Any]) -> bytes:
    """The body as Meta sends it: compact, non-ASCII as \\uXXXX, '/' as '\\/'."""
    return json.dumps(payload, ensure_ascii=True, separators=(",", ":")).replace("/", "\\/").encode("ascii")


def signature(app_secret: str, body: bytes) -> str:
    """The X-Hub-Signature-256 header value for these exact bytes."""
    return "sha256=" + hmac.new(app_secret.encode(), body, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Business:
    """Who the webhooks are about: the business account and its phone number."""

    account_id: str
    phone_number_id: str
    display_phone_number: str

    def envelope(self, value: dict[str, Any]) -> dict[str, Any]:
        """Wrap one change value in the whatsapp_business_account envelope."""
        return {
            "object": "whatsapp_business_account",
            "entry": [
                {
                    "id": self.account_id,
                    "changes": [
                        {
                            "value": {
                                "messaging_product": "whatsapp",
                                "metadata": {
                                    "display_phone_number": self.display_phone_number,
                                    "phone_number_id": self.phone_number_id,
                                },
                                **value,
                            },
                            "field": "messages",
                        }
                    ],
                }
            ],
        }

    def account_envelope(self, field_name: str, value: dict[str, Any], time: int) -> dict[str, Any]:
        """Wrap one change of an account field (template reviews, quality) as Meta does: no metadata."""
        return {
            "object": "whatsapp_business_account",
            "entry": [
                {"id": self.account_id, "time": time, "changes": [{"value": value, "field": field_name}]}
            ],
        }


@dataclass
class Event:
    """One update waiting to be sent: a status of our message, a customer's message, or an account change."""

    kind: str  # "status", "message" or "account"
    data: dict[str, Any]
    contact: dict[str, Any] | None = None
    # The webhook field of an account change (message_template_status_update, phone_number_quality_update).
    field: str | None = None


@dataclass
class Delivery:
    """One POST: the exact bytes, how many times it was tried, when it was first made."""

    body: bytes
    events: int
    created_at: float
    attempts: int = 0
    duplicate: bool = False


@dataclass
class WebhookStats:
    """Counts the control API reports."""

    sent: int = 0
    events_sent: int = 0
    retried: int = 0
    duplicated: int = 0
    failures_injected: int = 0
    given_up: int = 0
    non_200: int = 0


@dataclass
class EmitterSettings:
    """Knobs of the delivery loop (time-compressed defaults)."""

    batch_size: int = 100
    # Due updates are gathered for this long before a flush, so a busy sandbox sends full batches
    # (as Meta does) instead of one POST per status.
    flush_interval_seconds: float = 0.01
    concurrency: int = 16
    retry_base_seconds: float = 0.5
    retry_max_seconds: float = 15.0
    give_up_seconds: float = 3600.0
    request_timeout_seconds: float = 10.0
    duplicate_delay_seconds: float = 0.2


class WebhookEmitter:
    """Schedules updates, batches them into signed POSTs and retries until they get a 200."""

    def __init__(
        self,
        business: Business,
        *,
        app_secret: str,
        webhook_url: str | None,
        settings: EmitterSettings,
        faults: Callable[[], Faults],
        timestamp: Callable[[], str],
        rng: random.Random,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.business = business
        self.app_secret = app_secret
        self.webhook_url = webhook_url
        self.settings = settings
        self.stats = WebhookStats()
        self._faults = faults
        self._timestamp = timestamp
        self._rng = rng
        self._transport = transport
        # Events wait in one FIFO per delay: with a fixed delay each FIFO is already in due order, so
        # scheduling costs O(1). Retried and duplicated deliveries wait in a heap.
        self._queues: dict[float, deque[tuple[float, Event]]] = {}
        self._retries: list[tuple[float, int, Delivery]] = []
        self._sequence = itertools.count()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sleeping_until: float | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._client: httpx.AsyncClient | None = None
        self._poster: tuple[str, RawPoster] | None = None
        self._slots: asyncio.Semaphore | None = None
        self._in_flight: set[asyncio.Task[None]] = set()
        self._waiting_for_url: list[Delivery] = []

    async def start(self) -> None:
        """Begin the delivery loop on the running event loop."""
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._slots = asyncio.Semaphore(self.settings.concurrency)
        self._client = httpx.AsyncClient(
            transport=self._transport,
            timeout=self.settings.request_timeout_seconds,
            limits=httpx.Limits(
                max_connections=self.settings.concurrency, max_keepalive_connections=self.settings.concurrency
            ),
        )
        self._task = asyncio.create_task(self._run(), name="sandbox-webhooks")

    async def stop(self) -> None:
        """Stop delivering; what is still queued is dropped."""
        for task in [self._task, *self._in_flight]:
            if task is not None:
                task.cancel()
        for task in [self._task, *self._in_flight]:
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self._client is not None:
            await self._client.aclose()
        if self._poster is not None:
            await self._poster[1].close()

    @property
    def pending(self) -> int:
        """Updates and deliveries not yet answered with a 200."""
        queued = sum(len(queue) for queue in self._queues.values())
        return queued + len(self._retries) + len(self._waiting_for_url) + len(self._in_flight)

    def schedule(self, event: Event, delay: float) -> None:
        """Send `event` in about `delay` seconds."""
        assert self._loop is not None
        due = self._loop.time() + delay
        queue = self._queues.get(delay)
        if queue is None:
            queue = self._queues[delay] = deque()
        queue.append((due, event))
        self._poke_if_sooner(due)

    def _push_delivery(self, due: float, delivery: Delivery) -> None:
        heapq.heappush(self._retries, (due, next(self._sequence), delivery))
        self._poke_if_sooner(due)

    def set_webhook_url(self, url: str | None) -> None:
        """Point deliveries somewhere else; what waited for a URL (or a retry) goes now."""
        self.webhook_url = url
        if url is None:
            return
        assert self._loop is not None
        now = self._loop.time()
        waiting = [(now, next(self._sequence), delivery) for delivery in self._waiting_for_url]
        self._waiting_for_url.clear()
        self._retries = [(min(due, now), sequence, delivery) for due, sequence, delivery in self._retries]
        self._retries.extend(waiting)
        heapq.heapify(self._retries)
        self._poke()

    def release(self) -> None:
        """Wake the loop (after a fault change such as un-pausing)."""
        self._poke()

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _poke_if_sooner(self, due: float) -> None:
        # Waking the loop for every status would cost more than sending them: only wake it when
        # this update is due before the time it already sleeps until.
        if self._sleeping_until is None or due < self._sleeping_until:
            self._poke()

    def _next_due(self) -> float | None:
        heads = [queue[0][0] for queue in self._queues.values() if queue]
        if self._retries:
            heads.append(self._retries[0][0])
        return min(heads) if heads else None

    async def _run(self) -> None:
        assert self._wake is not None and self._loop is not None
        loop = self._loop
        while True:
            faults = self._faults()
            next_due = None if faults.webhooks_paused else self._next_due()
            now = loop.time()
            if next_due is not None and next_due <= now:
                self._flush_due(now, faults)
                # Updates due before the next flush need no wake-up call.
                self._sleeping_until = now + self.settings.flush_interval_seconds
                await asyncio.sleep(self.settings.flush_interval_seconds)
                continue
            self._wake.clear()
            self._sleeping_until = next_due
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), None if next_due is None else next_due - now)
            self._sleeping_until = None

    def _flush_due(self, now: float, faults: Faults) -> None:
        statuses: list[Event] = []
        messages: list[Event] = []
        for queue in self._queues.values():
            while queue and queue[0][0] <= now:
                event = queue.popleft()[1]
                (statuses if event.kind == "status" else messages).append(event)
        deliveries: list[Delivery] = []
        while self._retries and self._retries[0][0] <= now:
            deliveries.append(heapq.heappop(self._retries)[2])
        if faults.webhook_shuffle:
            self._rng.shuffle(statuses)
            self._rng.shuffle(messages)
            self._rng.shuffle(deliveries)
        for delivery in deliveries:
            self._launch(delivery)
        for message in messages:
            if message.kind == "account":
                self._launch(self._account_delivery(message, now))
            else:
                self._launch(self._delivery_for([message], now))
        size = max(1, self.settings.batch_size)
        for start in range(0, len(statuses), size):
            self._launch(self._delivery_for(statuses[start : start + size], now))

    def _account_delivery(self, event: Event, now: float) -> Delivery:
        assert event.field is not None
        body = self.business.account_envelope(event.field, event.data, int(self._timestamp() or now))
        return Delivery(serialize(body), 1, now)

    def _delivery_for(self, events: list[Event], now: float) -> Delivery:
        timestamp = self._timestamp()
        if events[0].kind == "message":
            event = events[0]
            message = {**event.data, "timestamp": event.data.get("timestamp", timestamp)}
            value: dict[str, Any] = {"contacts": [event.contact], "messages": [message]}
        else:
            statuses = []
            for event in events:
                # Each status is sent once (a duplicate reuses the bytes), so fill it in place.
                event.data["timestamp"] = timestamp
                statuses.append(event.data)
            value = {"statuses": statuses}
        return Delivery(serialize(self.business.envelope(value)), len(events), now)

    async def _post(self, url: str, body: bytes, headers: dict[str, str]) -> int:
        """POST with the lean client for plain-http URLs, httpx for the rest (or an injected transport)."""
        poster = self._poster
        if poster is None or poster[0] != url:
            target = Target.of(url) if self._transport is None else None
            if poster is not None:
                poster[1].abandon()
            self._poster = poster = (
                (url, RawPoster(target, self.settings.request_timeout_seconds)) if target else None
            )
        if poster is not None:
            return await poster[1].post(body, headers)
        assert self._client is not None
        response = await self._client.post(url, content=body, headers=headers)
        return response.status_code

    def _launch(self, delivery: Delivery) -> None:
        task = asyncio.create_task(self._deliver(delivery))
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)

    async def _deliver(self, delivery: Delivery) -> None:
        assert self._slots is not None
        url = self.webhook_url
        if url is None:
            self._waiting_for_url.append(delivery)
            return
        faults = self._faults()
        delivery.attempts += 1
        if delivery.attempts > 1:
            self.stats.retried += 1
        if faults.webhook_failure_rate and self._rng.random() < faults.webhook_failure_rate:
            # The delivery is lost on the way; Meta sees a failure and tries again later.
            self.stats.failures_injected += 1
            self._retry_later(delivery)
            return
        headers = {
            "Content-Type": "application/json",
            "X-Hub-Signature-256": signature(self.app_secret, delivery.body),
            "User-Agent": "facebookexternalua",
        }
        ok = False
        async with self._slots:
            try:
                status = await self._post(url, delivery.body, headers)
                ok = status == 200
                if not ok:
                    self.stats.non_200 += 1
            except (httpx.HTTPError, PostError) as error:
                log.debug("webhook delivery to %s failed: %s", url, error)
        if not ok:
            self._retry_later(delivery)
            return
        self.stats.sent += 1
        self.stats.events_sent += delivery.events
        if delivery.duplicate:
            self.stats.duplicated += 1
        elif faults.webhook_duplicate_rate and self._rng.random() < faults.webhook_duplicate_rate:
            copy = Delivery(delivery.body, delivery.events, delivery.created_at, duplicate=True)
            delay = self._rng.uniform(0.0, self.settings.duplicate_delay_seconds)
            self._push_delivery(asyncio.get_running_loop().time() + delay, copy)

    def _retry_later(self, delivery: Delivery) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        if now - delivery.created_at > self.settings.give_up_seconds:
            self.stats.given_up += 1
            log.warning("webhook delivery given up after %d attempts", delivery.attempts)
            return
        backoff = min(
            self.settings.retry_max_seconds,
            self.settings.retry_base_seconds * 2 ** max(0, delivery.attempts - 1),
        )
        self._push_delivery(now + backoff, delivery)
