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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from backend.sandbox.faults import Faults

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


@dataclass
class Event:
    """One update waiting to be sent: a status of our message, or a customer's message."""

    kind: str  # "status" or "message"
    data: dict[str, Any]
    contact: dict[str, Any] | None = None


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

    batch_size: int = 50
    concurrency: int = 16
    retry_base_seconds: float = 0.5
    retry_max_seconds: float = 15.0
    give_up_seconds: float = 3600.0
    request_timeout_seconds: float = 10.0
    duplicate_delay_seconds: float = 0.2


@dataclass(order=True)
class _Item:
    due: float
    sequence: int
    event: Event | None = field(compare=False, default=None)
    delivery: Delivery | None = field(compare=False, default=None)


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
        self._heap: list[_Item] = []
        self._sequence = itertools.count()
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._client: httpx.AsyncClient | None = None
        self._slots: asyncio.Semaphore | None = None
        self._in_flight: set[asyncio.Task[None]] = set()
        self._waiting_for_url: list[Delivery] = []

    async def start(self) -> None:
        """Begin the delivery loop on the running event loop."""
        self._wake = asyncio.Event()
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

    @property
    def pending(self) -> int:
        """Updates and deliveries not yet answered with a 200."""
        return len(self._heap) + len(self._waiting_for_url) + len(self._in_flight)

    def schedule(self, event: Event, delay: float) -> None:
        """Send `event` in about `delay` seconds."""
        loop = asyncio.get_running_loop()
        heapq.heappush(self._heap, _Item(loop.time() + max(0.0, delay), next(self._sequence), event=event))
        self._poke()

    def set_webhook_url(self, url: str | None) -> None:
        """Point deliveries somewhere else; what waited for a URL (or a retry) goes now."""
        self.webhook_url = url
        if url is None:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        for delivery in self._waiting_for_url:
            heapq.heappush(self._heap, _Item(now, next(self._sequence), delivery=delivery))
        self._waiting_for_url.clear()
        for item in self._heap:
            if item.delivery is not None and item.due > now:
                item.due = now
        heapq.heapify(self._heap)
        self._poke()

    def release(self) -> None:
        """Wake the loop (after a fault change such as un-pausing)."""
        self._poke()

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    async def _run(self) -> None:
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        while True:
            faults = self._faults()
            timeout: float | None = None
            if not faults.webhooks_paused and self._heap:
                timeout = self._heap[0].due - loop.time()
                if timeout <= 0:
                    self._flush_due(loop.time(), faults)
                    await asyncio.sleep(0)
                    continue
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    def _flush_due(self, now: float, faults: Faults) -> None:
        statuses: list[Event] = []
        others: list[_Item] = []
        while self._heap and self._heap[0].due <= now:
            item = heapq.heappop(self._heap)
            if item.event is not None and item.event.kind == "status":
                statuses.append(item.event)
            else:
                others.append(item)
        if faults.webhook_shuffle:
            self._rng.shuffle(statuses)
            self._rng.shuffle(others)
        for item in others:
            if item.delivery is not None:
                self._launch(item.delivery)
            elif item.event is not None:
                self._launch(self._delivery_for([item.event], now))
        size = max(1, self.settings.batch_size)
        for start in range(0, len(statuses), size):
            self._launch(self._delivery_for(statuses[start : start + size], now))

    def _delivery_for(self, events: list[Event], now: float) -> Delivery:
        timestamp = self._timestamp()
        if events[0].kind == "message":
            event = events[0]
            message = {**event.data, "timestamp": event.data.get("timestamp", timestamp)}
            value: dict[str, Any] = {"contacts": [event.contact], "messages": [message]}
        else:
            value = {"statuses": [{**e.data, "timestamp": timestamp} for e in events]}
            # Keep Meta's field order: id, status, timestamp, recipient_id, ...
            value["statuses"] = [_ordered_status(status) for status in value["statuses"]]
        return Delivery(serialize(self.business.envelope(value)), len(events), now)

    def _launch(self, delivery: Delivery) -> None:
        task = asyncio.create_task(self._deliver(delivery))
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)

    async def _deliver(self, delivery: Delivery) -> None:
        assert self._slots is not None and self._client is not None
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
        ok = False
        async with self._slots:
            try:
                response = await self._client.post(
                    url,
                    content=delivery.body,
                    headers={
                        "Content-Type": "application/json",
                        "X-Hub-Signature-256": signature(self.app_secret, delivery.body),
                        "User-Agent": "facebookexternalua",
                    },
                )
                ok = response.status_code == 200
                if not ok:
                    self.stats.non_200 += 1
            except httpx.HTTPError as error:
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
            loop = asyncio.get_running_loop()
            heapq.heappush(self._heap, _Item(loop.time() + delay, next(self._sequence), delivery=copy))
            self._poke()

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
        heapq.heappush(self._heap, _Item(now + backoff, next(self._sequence), delivery=delivery))
        self._poke()


_STATUS_ORDER = (
    "id",
    "status",
    "timestamp",
    "recipient_id",
    "biz_opaque_callback_data",
    "conversation",
    "pricing",
    "errors",
)


def _ordered_status(status: dict[str, Any]) -> dict[str, Any]:
    return {key: status[key] for key in _STATUS_ORDER if key in status}
