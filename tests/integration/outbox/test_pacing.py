"""Pacing through the database with an injected clock: pair limit, throughput cap, quiet hours, tier."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select, update

from app.composition import build_parts
from backend.database import Database
from backend.database.models import Contact, OutboxMessage
from backend.outbox.sender import OutboxSender
from backend.settings import PurposeRule, Settings
from tests.integration.outbox.conftest import (
    START,
    FakeClock,
    RecordingGraph,
    count_in_state,
    enqueue_all,
    number,
    rows,
    template_request,
    text_request,
)

CUSTOMERS = 50
SENDS = 2000
RATE = 8.0


def _sender(
    database: Database, settings: Settings, graph: RecordingGraph, clock: FakeClock, **extra: object
) -> OutboxSender:
    graph.clock = clock
    return OutboxSender(
        build_parts(settings, database, clock=clock),
        transport=graph.transport(),
        sleep_until=clock.sleep_until,
        jitter=lambda: 0.5,
        **extra,  # type: ignore[arg-type]
    )


def _next_due(database: Database) -> datetime | None:
    with database.reader() as session:
        return session.scalar(
            select(func.min(OutboxMessage.not_before)).where(OutboxMessage.state == "queued")
        )


def _drain(database: Database, sender: OutboxSender, clock: FakeClock, total: int, max_rounds: int) -> None:
    for _ in range(max_rounds):
        if sender.run_once() == 0:
            if count_in_state(database, "accepted") == total:
                return
            due = _next_due(database)
            clock.set(due if due is not None and due > clock() else clock() + timedelta(seconds=0.25))
    raise AssertionError(
        f"not drained after {max_rounds} rounds: {count_in_state(database, 'accepted')} of {total}"
    )


@pytest.mark.timeout(120)
def test_two_thousand_sends_to_fifty_customers_keep_the_pair_limit_and_the_cap(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=RATE, pair_interval_seconds=6.0, send_concurrency=100)
    clock = FakeClock()
    enqueue_all(
        database,
        settings,
        [
            template_request(f"event-{i}", number(i % CUSTOMERS), purpose=("a", "b", "c")[i % 3])
            for i in range(SENDS)
        ],
        START,
    )
    graph = RecordingGraph()
    _drain(database, _sender(database, settings, graph, clock, horizon_seconds=5.0), clock, SENDS, 2000)

    assert sum(graph.keys.values()) == SENDS
    assert set(graph.keys.values()) == {1}
    by_customer: dict[str, list[datetime]] = defaultdict(list)
    moments: list[datetime] = []
    for _key, to, at in graph.times:
        assert at is not None
        by_customer[to].append(at)
        moments.append(at)
    closest = min(
        b - a
        for times in by_customer.values()
        for a, b in zip(sorted(times), sorted(times)[1:], strict=False)
    )
    assert closest >= timedelta(seconds=6), closest
    moments.sort()
    busiest, end = 0, 0
    for start_index, start in enumerate(moments):
        while end < len(moments) and moments[end] < start + timedelta(seconds=1):
            end += 1
        busiest = max(busiest, end - start_index)
    assert busiest <= RATE
    # Both limits really bound: the pair limit alone would allow 8.3 per second, the cap 8.
    span = (moments[-1] - moments[0]).total_seconds()
    assert SENDS / RATE * 0.95 <= span <= SENDS / (CUSTOMERS / 6.0) * 1.1


def test_quiet_hours_defer_through_not_before_and_urgent_purposes_go(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(quiet_hours="21:00-08:00", purposes={"one_time_code": PurposeRule(urgent=True)})
    clock = FakeClock()  # 12:00 UTC: 04:00 in Los Angeles, 12:00 in London
    los_angeles, london = "+16505551234", "+447911123456"
    enqueue_all(
        database,
        settings,
        [
            template_request("la-shipped", los_angeles),
            template_request("la-code", "+16505551235", purpose="one_time_code"),
            template_request("london-shipped", london),
        ],
        START,
    )
    graph = RecordingGraph()
    sender = _sender(database, settings, graph, clock)
    sender.run_once()
    after = rows(database)
    assert after["la-shipped"].state == "queued"
    assert after["la-shipped"].attempts == 0
    assert after["la-shipped"].not_before == START.replace(hour=16)  # 08:00 in Los Angeles
    assert after["la-code"].state == "accepted"
    assert after["london-shipped"].state == "accepted"
    clock.set(START.replace(hour=16))
    sender.run_once()
    assert rows(database)["la-shipped"].state == "accepted"


def test_the_messaging_tier_defers_new_customers_instead_of_failing(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(messaging_tier=3)
    clock = FakeClock()
    enqueue_all(database, settings, [template_request(f"campaign-{i}", number(i)) for i in range(5)], START)
    graph = RecordingGraph()
    sender = _sender(database, settings, graph, clock)
    sender.run_once()
    after = rows(database)
    sent = sorted(key for key, row in after.items() if row.state == "accepted")
    waiting = sorted(key for key, row in after.items() if row.state == "queued")
    assert sent == ["campaign-0", "campaign-1", "campaign-2"]
    assert waiting == ["campaign-3", "campaign-4"]
    assert all(after[key].not_before == START + timedelta(hours=24) for key in waiting)
    assert all(after[key].attempts == 0 and after[key].last_error_code is None for key in waiting)

    # A customer already reached today takes no new place; a reply inside the window never counts.
    with database.transaction() as session:
        session.execute(update(Contact).values(window_closes_at=START + timedelta(hours=2)))
    clock.advance(7)
    enqueue_all(
        database,
        settings,
        [template_request("campaign-0-again", number(0)), text_request("reply-4", number(4))],
        clock(),
    )
    sender.run_once()
    after = rows(database)
    assert after["campaign-0-again"].state == "accepted"
    assert after["reply-4"].state == "accepted"
    assert after["campaign-4"].state == "queued"

    clock.set(START + timedelta(hours=24, seconds=1))
    sender.run_once()
    assert count_in_state(database, "accepted") == 7
