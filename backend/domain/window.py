"""The 24 h customer-service window: which messages need it and whether it is open."""

from __future__ import annotations

from datetime import datetime

from backend.domain.messages import KIND_TEMPLATE


def needs_open_window(kind: str) -> bool:
    """Whether a message of this kind may only go while the customer's window is open (all but templates)."""
    return kind != KIND_TEMPLATE


def window_is_open(closes_at: datetime | None, now: datetime) -> bool:
    """Whether the window that closes at `closes_at` is still open at `now` (None: never opened)."""
    return closes_at is not None and now < closes_at
