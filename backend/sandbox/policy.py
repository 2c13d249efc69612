"""Meta's policy limits on sends: the 24 h customer-service window, the pair limit, the throughput cap."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Final

WINDOW: Final = timedelta(hours=24)


@dataclass
class CustomerWindows:
    """When each customer (by wa_id) last wrote to the business."""

    last_inbound: dict[str, float] = field(default_factory=dict)

    def customer_wrote(self, wa_id: str, now: float) -> None:
        """A message from the customer opens (or renews) the 24 h window."""
        self.last_inbound[wa_id] = max(now, self.last_inbound.get(wa_id, now))

    def is_open(self, wa_id: str, now: float) -> bool:
        """Whether free-form messages may go to this customer at `now` (seconds since the epoch)."""
        last = self.last_inbound.get(wa_id)
        return last is not None and now - last < WINDOW.total_seconds()


@dataclass
class PairLimiter:
    """Per-customer token bucket: a burst of `burst` messages, then one every `interval` seconds."""

    burst: float = 45.0
    interval: float = 6.0
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)

    def allows(self, wa_id: str, now: float) -> bool:
        """Whether one more message to this customer fits right now (does not take it)."""
        return self._tokens(wa_id, now) >= 1.0

    def take(self, wa_id: str, now: float) -> None:
        """Spend one message of this customer's allowance."""
        self._buckets[wa_id] = (self._tokens(wa_id, now) - 1.0, now)

    def _tokens(self, wa_id: str, now: float) -> float:
        bucket = self._buckets.get(wa_id)
        if bucket is None:
            return self.burst
        tokens, at = bucket
        if self.interval <= 0:
            return self.burst
        return min(self.burst, tokens + max(0.0, now - at) / self.interval)


@dataclass
class ThroughputLimiter:
    """At most `per_second` accepted messages in any one-second sliding window."""

    per_second: int = 80
    _accepted: deque[float] = field(default_factory=deque)

    def allows(self, now: float) -> bool:
        """Whether one more message fits in the second ending at `now` (does not take it)."""
        accepted = self._accepted
        while accepted and now - accepted[0] >= 1.0:
            accepted.popleft()
        return len(accepted) < self.per_second

    def take(self, now: float) -> None:
        """Count one accepted message at `now`."""
        self._accepted.append(now)
