"""Retry delays: about 1 s first, doubling, jittered, never over 5 minutes."""

from __future__ import annotations

import pytest

from backend.domain.backoff import MAX_DELAY_SECONDS, pair_limit_delay, retry_delay


@pytest.mark.parametrize(
    ("attempts", "low", "high"),
    [
        (1, 0.75, 1.25),
        (2, 1.5, 2.5),
        (3, 3.0, 5.0),
        (5, 12.0, 20.0),
        (9, 192.0, 300.0),
        (10, 300.0, 300.0),
        (60, 300.0, 300.0),
    ],
)
def test_delay_doubles_within_the_jitter_band(attempts: int, low: float, high: float) -> None:
    for jitter in (0.0, 0.5, 0.999999):
        assert low <= retry_delay(attempts, jitter) <= high


def test_jitter_spreads_delays() -> None:
    assert retry_delay(3, 0.0) < retry_delay(3, 0.5) < retry_delay(3, 0.99)


def test_never_over_five_minutes() -> None:
    assert max(retry_delay(n, 0.999) for n in range(1, 100)) == MAX_DELAY_SECONDS


@pytest.mark.parametrize(
    ("attempts", "expected"), [(1, 6.0), (2, 6.0), (3, 16.0), (4, 64.0), (5, 256.0), (6, 300.0)]
)
def test_pair_limit_waits_four_to_the_x_and_at_least_the_interval(attempts: int, expected: float) -> None:
    assert pair_limit_delay(attempts, 6.0) == expected
