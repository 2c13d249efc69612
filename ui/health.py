"""Health history computed from the event journal: send rate and sent→delivered gap over time."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from ui.api.client import ApiClient
from ui.api.resources import MESSAGE_STATE_CHANGED, Event

BUCKET_SECONDS = 10
HISTORY = timedelta(hours=3)
HISTORY_EVENTS = 20_000
_AT_META = {"accepted", "sent", "delivered", "read"}
_BEFORE_META = {"queued", "sending", "unknown", "held"}


@dataclass
class _Bucket:
    sends: int = 0
    gaps: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Point:
    """One point of a chart: a moment and a value."""

    at: datetime
    value: float


class HealthHistory:
    """Folds `message.state_changed` events into time buckets of sends and delivery gaps."""

    def __init__(self) -> None:
        self._buckets: dict[int, _Bucket] = {}
        self._sent_at: dict[str, datetime] = {}
        self._seen: set[int] = set()

    def add(self, events: list[Event]) -> None:
        """Take in events (each seq counts once, whatever order they come in)."""
        for event in events:
            if event.seq in self._seen or event.type != MESSAGE_STATE_CHANGED:
                continue
            self._seen.add(event.seq)
            key = event.key or ""
            state = event.state
            previous = event.previous_state
            bucket = self._buckets.setdefault(int(event.at.timestamp()) // BUCKET_SECONDS, _Bucket())
            if state in _AT_META and previous in _BEFORE_META:
                bucket.sends += 1
            if state == "sent" or (state == "accepted" and key not in self._sent_at):
                self._sent_at[key] = event.at
            if state == "delivered" or (state == "read" and previous in ("sent", "accepted")):
                sent = self._sent_at.pop(key, None)
                if sent is not None:
                    bucket.gaps.append(max(0.0, (event.at - sent).total_seconds()))
        self._prune()

    def _prune(self) -> None:
        oldest = int((datetime.now(UTC) - HISTORY).timestamp()) // BUCKET_SECONDS
        for bucket in [number for number in self._buckets if number < oldest]:
            del self._buckets[bucket]
        if len(self._sent_at) > 50_000:
            # Sends whose delivery never came: keep the newest half.
            for key in list(self._sent_at)[:25_000]:
                del self._sent_at[key]
        if len(self._seen) > 200_000:
            newest = sorted(self._seen)[-100_000:]
            self._seen = set(newest)

    def _grouped(self) -> tuple[int, list[tuple[int, _Bucket]]]:
        if not self._buckets:
            return BUCKET_SECONDS, []
        numbers = sorted(self._buckets)
        span = (numbers[-1] - numbers[0]) * BUCKET_SECONDS
        size = BUCKET_SECONDS if span <= 1200 else (60 if span <= 4 * 3600 else 300)
        factor = size // BUCKET_SECONDS
        merged: dict[int, _Bucket] = {}
        for number in numbers:
            target = merged.setdefault(number // factor, _Bucket())
            source = self._buckets[number]
            target.sends += source.sends
            target.gaps.extend(source.gaps)
        return size, sorted(merged.items())

    def send_rate(self) -> list[Point]:
        """Messages handed to WhatsApp per minute, per bucket."""
        size, buckets = self._grouped()
        return [
            Point(datetime.fromtimestamp(number * size, UTC), bucket.sends * 60.0 / size)
            for number, bucket in buckets
        ]

    def delivery_gap(self) -> list[Point]:
        """Median seconds from sent to delivered, per bucket that saw a delivery."""
        size, buckets = self._grouped()
        return [
            Point(datetime.fromtimestamp(number * size, UTC), statistics.median(bucket.gaps))
            for number, bucket in buckets
            if bucket.gaps
        ]


def load_history(api: ApiClient, latest_seq: int) -> list[Event]:
    """Runs on a worker thread: up to the last HISTORY_EVENTS events before `latest_seq`."""
    after = max(0, latest_seq - HISTORY_EVENTS)
    events: list[Event] = []
    while after < latest_seq:
        batch = api.events(after=after, limit=1000)
        if not batch.events:
            break
        events.extend(batch.events)
        after = batch.next
    return events
