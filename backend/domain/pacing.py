"""Pacing math: which due rows may go now and at which moment, and which must wait and until when.

The outbox loads the candidates and the pacing slots inside its claim transaction, asks `plan_claim`,
and writes the plan back, so the limits hold across every worker sharing the database.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from backend.domain.quiet_hours import QuietHours, quiet_until, time_zones_for
from backend.domain.window import needs_open_window, window_is_open

RATE_SLOT_KEY = "number"
CUSTOMER_SLOT_PREFIX = "customer:"
TIER_WINDOW = timedelta(hours=24)
# When the tier is full and we cannot tell when a place frees up, look again after this long.
TIER_RECHECK = timedelta(minutes=15)

# Calls are paced this far under the number's cap, so no sliding second carries more than the cap: a
# sender catching up after a stall may run 10 ms ahead (1 % of a second at 1,000/s), and the network
# and a busy receiver bunch arrivals by up to 2-4 % more (bench.e2e: a bare client paced at exactly
# 1,000/s shows 1,005 to 1,039 arrivals in its busiest second; at 3 % under the cap the sender's
# busiest second reached 1,002 and 1,051 in two runs of seven).
PACE_MARGIN = 0.04

DEFER_PAIR_LIMIT = "pair_limit"
DEFER_QUIET_HOURS = "quiet_hours"
DEFER_MESSAGING_TIER = "messaging_tier"


def customer_slot_key(number: str) -> str:
    """The pacing slot key of one customer."""
    return CUSTOMER_SLOT_PREFIX + number


def paced_rate(cap: float) -> float:
    """The rate calls are booked at under a per-second cap: the cap less the margin jitter needs."""
    return cap * (1 - PACE_MARGIN)


def send_interval(rate: float) -> timedelta:
    """The spacing between two sends at `rate` per second, rounded up so no second holds more."""
    return timedelta(microseconds=math.ceil(1_000_000 / rate))


@dataclass(frozen=True)
class PacingRules:
    """The limits one claim applies."""

    rate: float
    pair_interval: float
    horizon_seconds: float
    quiet: QuietHours | None = None
    tier_limit: int | None = None
    fallback_zone: str = "UTC"


@dataclass(frozen=True)
class Candidate:
    """A due row as pacing sees it."""

    id: int
    to_number: str
    kind: str
    urgent: bool
    business_initiated: bool
    window_closes_at: datetime | None
    # Whether a business-initiated send reached this customer in the last 24 h (no new tier place).
    already_reached: bool = False


@dataclass
class PacingState:
    """What the database says about the limits right now."""

    rate_next_at: datetime
    customer_next_at: dict[str, datetime] = field(default_factory=dict)
    reached_count: int = 0
    tier_frees_at: datetime | None = None


@dataclass
class ClaimPlan:
    """The result: rows to send and when, rows to defer and until when, rows to hold."""

    dispatch: list[tuple[int, datetime]] = field(default_factory=list)
    deferred: list[tuple[int, datetime, str]] = field(default_factory=list)
    held: list[int] = field(default_factory=list)
    customer_next_at: dict[str, datetime] = field(default_factory=dict)
    rate_next_at: datetime | None = None
    # By dispatched row: its customer's slot before this row booked it (None: the customer had none)
    # and as the booking left it, so a row never sent can hand the slot back.
    customer_slot_change: dict[int, tuple[datetime | None, datetime]] = field(default_factory=dict)


def plan_claim(
    candidates: list[Candidate], state: PacingState, rules: PacingRules, now: datetime, limit: int
) -> ClaimPlan:
    """Give each candidate, in order, a send moment, a later not_before, or a hold."""
    plan = ClaimPlan()
    interval = send_interval(rules.rate)
    pair_interval = timedelta(seconds=rules.pair_interval)
    horizon_end = now + timedelta(seconds=rules.horizon_seconds)
    slot = max(now, state.rate_next_at)
    customer_next = dict(state.customer_next_at)
    reached_count = state.reached_count
    reached_now: set[str] = set()
    tier_frees_at = state.tier_frees_at if state.tier_frees_at and state.tier_frees_at > now else None
    for candidate in candidates:
        if len(plan.dispatch) >= limit:
            break
        if needs_open_window(candidate.kind) and not window_is_open(candidate.window_closes_at, now):
            plan.held.append(candidate.id)
            continue
        if rules.quiet is not None and not candidate.urgent:
            zones = time_zones_for(candidate.to_number, rules.fallback_zone)
            quiet_end = quiet_until(rules.quiet, zones, max(now, slot))
            if quiet_end is not None:
                plan.deferred.append((candidate.id, quiet_end, DEFER_QUIET_HOURS))
                continue
        takes_tier_place = (
            rules.tier_limit is not None
            and candidate.business_initiated
            and not candidate.already_reached
            and candidate.to_number not in reached_now
        )
        if takes_tier_place and reached_count >= (rules.tier_limit or 0):
            plan.deferred.append((candidate.id, tier_frees_at or now + TIER_RECHECK, DEFER_MESSAGING_TIER))
            continue
        if slot >= horizon_end:
            break
        customer_free = customer_next.get(candidate.to_number)
        if customer_free is not None and customer_free > slot:
            plan.deferred.append((candidate.id, customer_free, DEFER_PAIR_LIMIT))
            continue
        plan.dispatch.append((candidate.id, slot))
        booked = slot + pair_interval
        plan.customer_slot_change[candidate.id] = (customer_free, booked)
        customer_next[candidate.to_number] = booked
        plan.customer_next_at[candidate.to_number] = booked
        if takes_tier_place:
            reached_count += 1
            reached_now.add(candidate.to_number)
            # The first place taken frees up 24 h after this claim.
            tier_frees_at = tier_frees_at or now + TIER_WINDOW
        slot += interval
    plan.rate_next_at = slot if plan.dispatch else None
    return plan
