"""Quiet hours in the customer's zone, from the number."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from backend.domain.quiet_hours import QuietHours, parse_quiet_hours, quiet_until, time_zones_for

NIGHT = QuietHours(time(21, 0), time(8, 0))


@pytest.mark.parametrize(
    ("number", "zone"),
    [
        ("+16505551234", "America/Los_Angeles"),
        ("+12125551234", "America/New_York"),
        ("+447911123456", "Europe/London"),
    ],
)
def test_zone_comes_from_the_number(number: str, zone: str) -> None:
    assert zone in time_zones_for(number)


def test_unparseable_number_uses_the_fallback() -> None:
    assert time_zones_for("not a number", "Europe/Paris") == ("Europe/Paris",)


@pytest.mark.parametrize(
    ("window", "local", "inside"),
    [
        (NIGHT, time(21, 0), True),
        (NIGHT, time(23, 59), True),
        (NIGHT, time(7, 59), True),
        (NIGHT, time(8, 0), False),
        (NIGHT, time(12, 0), False),
        (QuietHours(time(12, 0), time(13, 0)), time(12, 30), True),
        (QuietHours(time(12, 0), time(13, 0)), time(13, 0), False),
        (QuietHours(time(12, 0), time(12, 0)), time(12, 0), False),
    ],
)
def test_window_contains(window: QuietHours, local: time, inside: bool) -> None:
    assert window.contains(local) is inside


@pytest.mark.parametrize(
    ("now", "zones", "expected"),
    [
        # 09:00 UTC is 01:00 in Los Angeles (winter, UTC-8): quiet until 08:00 local = 16:00 UTC.
        (
            datetime(2026, 11, 29, 9, 0, tzinfo=UTC),
            ("America/Los_Angeles",),
            datetime(2026, 11, 29, 16, 0, tzinfo=UTC),
        ),
        # 09:00 UTC is 09:00 in London: not quiet.
        (datetime(2026, 11, 29, 9, 0, tzinfo=UTC), ("Europe/London",), None),
        # 22:30 in London: quiet until 08:00 the next day.
        (
            datetime(2026, 11, 29, 22, 30, tzinfo=UTC),
            ("Europe/London",),
            datetime(2026, 11, 30, 8, 0, tzinfo=UTC),
        ),
        # Several zones: quiet while any is; 15:30 UTC is 07:30 in LA and 10:30 in New York.
        (
            datetime(2026, 11, 29, 15, 30, tzinfo=UTC),
            ("America/New_York", "America/Los_Angeles"),
            datetime(2026, 11, 29, 16, 0, tzinfo=UTC),
        ),
    ],
)
def test_quiet_until(now: datetime, zones: tuple[str, ...], expected: datetime | None) -> None:
    assert quiet_until(NIGHT, zones, now) == expected


def test_no_quiet_hours_configured() -> None:
    assert quiet_until(None, ("Europe/London",), datetime(2026, 11, 29, 23, 0, tzinfo=UTC)) is None


@pytest.mark.parametrize(("text", "expected"), [(None, None), ("", None), ("21:00-08:00", NIGHT)])
def test_parse(text: str | None, expected: QuietHours | None) -> None:
    assert parse_quiet_hours(text) == expected
