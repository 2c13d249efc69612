"""Pacing plans: throughput slots, the pair limit, quiet hours, the tier and the 24 h window."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from itertools import pairwise

import pytest

from backend.domain.pacing import (
    DEFER_MESSAGING_TIER,
    DEFER_PAIR_LIMIT,
    DEFER_QUIET_HOURS,
    Candidate,
    PacingRules,
    PacingState,
    plan_claim,
    send_interval,
)
from backend.domain.quiet_hours import QuietHours
from backend.domain.window import needs_open_window, window_is_open

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)  # 12:00 in London, 04:00 in Los Angeles
LONDON = "+447911123456"
LONDON_2 = "+447911123457"
LOS_ANGELES = "+16505551234"
RULES = PacingRules(rate=10, pair_interval=6, horizon_seconds=1.0)


def _candidate(row_id: int, number: str = LONDON, **fields: object) -> Candidate:
    values: dict[str, object] = {
        "id": row_id,
        "to_number": number,
        "kind": "template",
        "urgent": False,
        "business_initiated": True,
        "window_closes_at": None,
    }
    values.update(fields)
    return Candidate(**values)  # type: ignore[arg-type]


def test_slots_are_spaced_by_the_rate_and_stop_at_the_horizon() -> None:
    candidates = [_candidate(i, f"+4479111234{i:02d}") for i in range(30)]
    plan = plan_claim(candidates, PacingState(rate_next_at=NOW), RULES, NOW, limit=100)
    moments = [at for _, at in plan.dispatch]
    assert len(moments) == 10
    assert moments[0] == NOW
    assert all(b - a == timedelta(seconds=0.1) for a, b in pairwise(moments))
    assert plan.rate_next_at == NOW + timedelta(seconds=1)


def test_a_busy_number_slot_in_the_future_delays_the_first_send() -> None:
    plan = plan_claim([_candidate(1)], PacingState(rate_next_at=NOW + timedelta(seconds=0.5)), RULES, NOW, 10)
    assert plan.dispatch == [(1, NOW + timedelta(seconds=0.5))]


def test_limit_caps_the_batch() -> None:
    candidates = [_candidate(i, f"+4479111234{i:02d}") for i in range(5)]
    assert len(plan_claim(candidates, PacingState(rate_next_at=NOW), RULES, NOW, limit=2).dispatch) == 2


def test_second_message_to_a_customer_waits_for_the_pair_interval() -> None:
    plan = plan_claim(
        [_candidate(1), _candidate(2), _candidate(3, LONDON_2)], PacingState(NOW), RULES, NOW, 10
    )
    assert [row_id for row_id, _ in plan.dispatch] == [1, 3]
    assert plan.deferred == [(2, NOW + timedelta(seconds=6), DEFER_PAIR_LIMIT)]
    assert plan.customer_next_at[LONDON] == NOW + timedelta(seconds=6)


def test_a_customer_slot_from_the_database_is_respected() -> None:
    state = PacingState(NOW, customer_next_at={LONDON: NOW + timedelta(seconds=4)})
    plan = plan_claim([_candidate(1)], state, RULES, NOW, 10)
    assert plan.deferred == [(1, NOW + timedelta(seconds=4), DEFER_PAIR_LIMIT)]


def test_quiet_hours_defer_unless_urgent() -> None:
    rules = PacingRules(rate=10, pair_interval=6, horizon_seconds=1, quiet=QuietHours(time(21), time(8)))
    plan = plan_claim(
        [_candidate(1, LOS_ANGELES), _candidate(2, LOS_ANGELES, urgent=True), _candidate(3)],
        PacingState(NOW),
        rules,
        NOW,
        10,
    )
    assert plan.deferred == [(1, datetime(2026, 11, 29, 16, 0, tzinfo=UTC), DEFER_QUIET_HOURS)]
    assert [row_id for row_id, _ in plan.dispatch] == [2, 3]


def test_free_text_to_a_closed_window_is_held_and_templates_go() -> None:
    open_until = NOW + timedelta(hours=1)
    candidates = [
        _candidate(1, kind="text"),
        _candidate(2, LONDON_2, kind="text", window_closes_at=open_until),
        _candidate(3, "+447911123458", kind="buttons", window_closes_at=NOW - timedelta(seconds=1)),
        _candidate(4, "+447911123459", kind="template"),
    ]
    plan = plan_claim(candidates, PacingState(NOW), RULES, NOW, 10)
    assert plan.held == [1, 3]
    assert [row_id for row_id, _ in plan.dispatch] == [2, 4]


def test_tier_full_defers_new_customers_but_not_ones_already_reached() -> None:
    rules = PacingRules(rate=10, pair_interval=6, horizon_seconds=1, tier_limit=250)
    frees_at = NOW + timedelta(hours=3)
    state = PacingState(NOW, reached_count=249, tier_frees_at=frees_at)
    candidates = [
        _candidate(1, LONDON),  # takes the last place
        _candidate(2, LONDON_2),  # tier now full
        _candidate(3, "+447911123458", already_reached=True),  # no new place needed
        _candidate(4, "+447911123459", business_initiated=False),  # replies inside a window never count
    ]
    plan = plan_claim(candidates, state, rules, NOW, 10)
    assert [row_id for row_id, _ in plan.dispatch] == [1, 3, 4]
    assert plan.deferred == [(2, frees_at, DEFER_MESSAGING_TIER)]


def test_tier_full_without_a_known_free_time_rechecks_later() -> None:
    rules = PacingRules(rate=10, pair_interval=6, horizon_seconds=1, tier_limit=250)
    plan = plan_claim([_candidate(1)], PacingState(NOW, reached_count=250), rules, NOW, 10)
    assert plan.deferred[0][1] > NOW
    assert plan.deferred[0][2] == DEFER_MESSAGING_TIER


@pytest.mark.parametrize("rate", [1, 3, 7, 80, 333, 1000])
def test_no_second_holds_more_than_the_rate(rate: float) -> None:
    interval = send_interval(rate)
    moments = [NOW + interval * i for i in range(int(rate) * 3)]
    # Two pointers: the busiest half-open 1 s window starting at any send.
    busiest, end = 0, 0
    for start_index, start in enumerate(moments):
        while end < len(moments) and moments[end] < start + timedelta(seconds=1):
            end += 1
        busiest = max(busiest, end - start_index)
    assert busiest == int(rate)


@pytest.mark.parametrize(("kind", "needs"), [("text", True), ("buttons", True), ("template", False)])
def test_which_kinds_need_the_window(kind: str, needs: bool) -> None:
    assert needs_open_window(kind) is needs


@pytest.mark.parametrize(
    ("closes_at", "is_open"),
    [(None, False), (NOW - timedelta(seconds=1), False), (NOW, False), (NOW + timedelta(seconds=1), True)],
)
def test_window_is_open(closes_at: datetime | None, is_open: bool) -> None:
    assert window_is_open(closes_at, NOW) is is_open


def test_tier_filled_by_this_claim_frees_up_a_day_later() -> None:
    rules = PacingRules(rate=10, pair_interval=6, horizon_seconds=1, tier_limit=1)
    plan = plan_claim([_candidate(1), _candidate(2, LONDON_2)], PacingState(NOW), rules, NOW, 10)
    assert plan.dispatch == [(1, NOW)]
    assert plan.deferred == [(2, NOW + timedelta(hours=24), DEFER_MESSAGING_TIER)]
