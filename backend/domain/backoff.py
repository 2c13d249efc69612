"""Retry delays: exponential with jitter, and the pair-limit wait for one customer."""

from __future__ import annotations

FIRST_DELAY_SECONDS = 1.0
MAX_DELAY_SECONDS = 300.0
# Jitter spreads retries of a burst over +-25% so they do not all come back in the same second.
JITTER_SPREAD = 0.5


def retry_delay(
    attempts: int,
    jitter: float,
    *,
    first: float = FIRST_DELAY_SECONDS,
    maximum: float = MAX_DELAY_SECONDS,
) -> float:
    """Seconds to wait after the `attempts`-th failed try; `jitter` is a uniform number in [0, 1)."""
    exponent = max(attempts, 1) - 1
    base = first * 2.0 ** min(exponent, 30)
    jittered = base * (1.0 - JITTER_SPREAD / 2 + JITTER_SPREAD * jitter)
    return min(maximum, jittered)


def pair_limit_delay(attempts: int, pair_interval: float, *, maximum: float = MAX_DELAY_SECONDS) -> float:
    """Seconds one customer waits after a pair-limit answer: 4^X s (Meta's advice), at least the interval."""
    exponent = max(attempts, 1) - 1
    return min(maximum, max(pair_interval, 4.0 ** min(exponent, 10)))
