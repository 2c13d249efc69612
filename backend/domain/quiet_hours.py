"""Quiet hours in the customer's own time zone, found from the number's country and area."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import phonenumbers
from phonenumbers import timezone as phone_timezone

UNKNOWN_ZONE = "Etc/Unknown"
# Numbers spanning several zones are re-checked at most this many times, so odd data cannot loop.
_MAX_ZONE_ROUNDS = 6


@dataclass(frozen=True)
class QuietHours:
    """A daily local window (start inclusive, end exclusive); it may wrap past midnight."""

    start: time
    end: time

    def contains(self, local: time) -> bool:
        """Whether a local time of day falls inside the window."""
        if self.start == self.end:
            return False
        if self.start < self.end:
            return self.start <= local < self.end
        return local >= self.start or local < self.end


def parse_quiet_hours(text: str | None) -> QuietHours | None:
    """`21:00-08:00` as QuietHours; None or empty text means no quiet hours."""
    if not text:
        return None
    start_text, end_text = text.split("-")
    return QuietHours(time.fromisoformat(start_text.strip()), time.fromisoformat(end_text.strip()))


@lru_cache(maxsize=65536)
def time_zones_for(number: str, fallback: str = "UTC") -> tuple[str, ...]:
    """The IANA zones a number may be in, from phonenumbers' data; the fallback when it knows none."""
    try:
        parsed = phonenumbers.parse(number, None)
    except phonenumbers.NumberParseException:
        return (fallback,)
    zones = tuple(zone for zone in phone_timezone.time_zones_for_number(parsed) if zone != UNKNOWN_ZONE)
    return zones or (fallback,)


@lru_cache(maxsize=1024)
def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except ZoneInfoNotFoundError:
        return ZoneInfo("UTC")


def _end_in_zone(quiet: QuietHours, zone: ZoneInfo, now: datetime) -> datetime | None:
    local = now.astimezone(zone)
    if not quiet.contains(local.time()):
        return None
    end_date = local.date()
    if quiet.start > quiet.end and local.time() >= quiet.start:
        end_date = end_date + timedelta(days=1)
    end_local = datetime.combine(end_date, quiet.end, tzinfo=zone)
    return end_local.astimezone(now.tzinfo)


def quiet_until(quiet: QuietHours | None, zones: tuple[str, ...], now: datetime) -> datetime | None:
    """When quiet hours end for a customer who may be in any of `zones`, or None if sending is fine now.

    A number with several candidate zones is treated as quiet while any of them is quiet.
    """
    if quiet is None:
        return None
    moment = now
    for _ in range(_MAX_ZONE_ROUNDS):
        ends = [
            end for end in (_end_in_zone(quiet, _zone(name), moment) for name in zones) if end is not None
        ]
        if not ends:
            return None if moment == now else moment
        moment = max(ends)
    return moment
