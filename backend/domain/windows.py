"""The 24 h customer-service window and business hours, as pure time arithmetic."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

WINDOW_LENGTH = timedelta(hours=24)
CLOSING_WARNING_BEFORE = timedelta(hours=1)


def window_closes_at(last_inbound_at: datetime) -> datetime:
    """When the window opened (or reopened) by a customer message at `last_inbound_at` closes."""
    return last_inbound_at + WINDOW_LENGTH


def closing_warning_at(closes_at: datetime) -> datetime:
    """When to warn that the window closes soon."""
    return closes_at - CLOSING_WARNING_BEFORE


def opens_a_window(previous_closes_at: datetime | None, message_sent_at: datetime) -> bool:
    """Whether a customer message sent at `message_sent_at` opens a new window (none was open then)."""
    return previous_closes_at is None or previous_closes_at <= message_sent_at


def parse_hours(hours: str) -> tuple[time, time]:
    """`09:00-17:00` as (start, end) times of day."""
    start_text, end_text = hours.split("-", 1)
    return time.fromisoformat(start_text), time.fromisoformat(end_text)


def within_business_hours(moment: datetime, hours: str, timezone: str) -> bool:
    """Whether `moment` falls inside `hours` (e.g. 09:00-17:00, may wrap midnight) in `timezone`."""
    start, end = parse_hours(hours)
    local = moment.astimezone(ZoneInfo(timezone)).time().replace(tzinfo=None)
    if start <= end:
        return start <= local < end
    return local >= start or local < end
