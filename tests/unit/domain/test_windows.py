"""Window arithmetic and business hours."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from backend.domain.windows import closing_warning_at, opens_a_window, window_closes_at, within_business_hours

AT = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def test_the_window_closes_24_hours_after_the_message_and_warns_an_hour_before() -> None:
    closes = window_closes_at(AT)
    assert closes == AT + timedelta(hours=24)
    assert closing_warning_at(closes) == AT + timedelta(hours=23)


@pytest.mark.parametrize(
    ("previous_closes_at", "sent_at", "opens"),
    [
        (None, AT, True),
        (AT, AT, True),
        (AT + timedelta(seconds=1), AT, False),
        (AT - timedelta(hours=1), AT, True),
    ],
)
def test_a_message_opens_a_window_when_none_was_open(
    previous_closes_at: datetime | None, sent_at: datetime, opens: bool
) -> None:
    assert opens_a_window(previous_closes_at, sent_at) is opens


@pytest.mark.parametrize(
    ("moment", "hours", "zone", "inside"),
    [
        (AT, "09:00-17:00", "UTC", True),
        (AT - timedelta(minutes=1), "09:00-17:00", "UTC", False),
        (AT.replace(hour=17), "09:00-17:00", "UTC", False),
        (AT, "09:00-17:00", "America/Los_Angeles", False),
        (AT.replace(hour=17), "09:00-17:00", "America/Los_Angeles", True),
        (AT.replace(hour=23), "22:00-06:00", "UTC", True),
        (AT.replace(hour=7), "22:00-06:00", "UTC", False),
    ],
)
def test_business_hours(moment: datetime, hours: str, zone: str, inside: bool) -> None:
    assert within_business_hours(moment, hours, zone) is inside
