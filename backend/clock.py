"""Time as the product sees it: aware UTC, injectable for tests."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)
