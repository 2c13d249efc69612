"""A claim reserves its booked horizon; only the claim holding a reservation starts a row, just before
its call leaves; a reservation given up or run out leaves the row simply due again."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event, text

from app.composition import build_parts
from backend.clock import utc_now
from backend.database import Database, create_database
from backend.database.models import PacingSlot
from backend.domain.pacing import RATE_SLOT_KEY, customer_slot_key, paced_rate, send_interval
from backend.outbox.claim import (
    RESERVATION_MARGIN_SECONDS,
    ClaimedMessage,
    claim_batch,
    pacing_rules,
    release_reserved,
    start_reserved,
    upsert_slots,
)
from backend.outbox.outcomes import give_back_unsent
from backend.outbox.resolution import resolve_by_supervisor
from backend.outbox.sender import OutboxSender
from backend.settings import Settings
from tests.conftest import journal_entries
from tests.integration.outbox.conftest import (
    START,
    RecordingGraph,
    count_in_state,
    enqueue_all,
    number,
    rows,
    template_request,
)

LEASE = 30.0
RESERVED_UNTIL = START + timedelta(seconds=1 + RESERVATION_MARGIN_SECONDS)


def _enqueue(database: Database, settings: Settings, count: int) -> list[str]:
    keys = [f"order-{i}:shipped" for i in range(count)]
    enqueue_all(database, settings, [template_request(key, number(i)) for i, key in enumerate(keys)], START)
    return keys


def _claim(database: Database, settings: Settings, now: datetime, worker: str, limit: int = 100) -> list[Any]:
    with database.transaction() as session:
        return claim_batch(
            session, rules=pacing_rules(settings), lease_seconds=LEASE, now=now, limit=limit, worker_id=worker
        )


def _start(database: Database, messages: list[ClaimedMessage], now: datetime) -> list[ClaimedMessage]:
    with database.transaction() as session:
        return start_reserved(session, messages, now=now, lease_seconds=LEASE)


def _number_busy_until(database: Database, moment: datetime) -> None:
    """The business number's next free moment: a claim now books every row after it."""
    with database.transaction() as session:
        upsert_slots(session, {RATE_SLOT_KEY: moment})


def _started_entries(database: Database) -> list[tuple[str, str, str]]:
    return [
        (entry.data["key"], entry.data["previous_state"], entry.data["state"])
        for entry in journal_entries(database, "message.state_changed")
    ]


def test_a_claim_reserves_its_horizon_and_starts_only_the_rows_about_to_leave(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=10.0)
    keys = _enqueue(database, settings, 12)
    claimed = _claim(database, settings, START, "w")
    # Ten moments fit the one-second horizon at 10/s (paced under the cap); only the first is due
    # within the start lead.
    interval = send_interval(paced_rate(10.0))
    assert [message.dispatch_at - START for message in claimed] == [i * interval for i in range(10)]
    assert [message.lease_expires_at is not None for message in claimed] == [True] + [False] * 9
    token = claimed[0].token
    assert token.startswith("w/") and {message.token for message in claimed} == {token}
    after = rows(database)
    first, *others = (after[message.dedupe_key] for message in claimed)
    assert (first.state, first.attempts, first.claimed_by) == ("sending", 1, token)
    assert first.lease_expires_at == START + timedelta(seconds=LEASE)
    for row in others:
        # Reserved: still queued, no attempt, not due again before the reservation ends.
        assert (row.state, row.attempts, row.claimed_by, row.not_before) == (
            "queued",
            0,
            token,
            RESERVED_UNTIL,
        )
        assert row.last_attempt_at == START
        assert row.lease_expires_at is None
    # The feed says a row is sending only when it is.
    assert _started_entries(database) == [(keys[0], "queued", "sending")]
    # Another claim finds only the rows nobody reserved.
    later = _claim(database, settings, START + timedelta(seconds=0.5), "other")
    assert sorted(message.dedupe_key for message in later) == sorted(keys[10:])

    started = _start(database, claimed[1:4], START + timedelta(seconds=0.27))
    assert [message.id for message in started] == [message.id for message in claimed[1:4]]
    assert [message.attempts for message in started] == [1, 1, 1]
    assert {message.lease_expires_at for message in started} == {START + timedelta(seconds=0.27 + LEASE)}
    assert [rows(database)[message.dedupe_key].state for message in claimed[:5]] == ["sending"] * 4 + [
        "queued"
    ]
    assert _started_entries(database)[1:] == [(key, "queued", "sending") for key in keys[1:4]]


def _race(database_url: str, calls: list[Callable[[Database], list[ClaimedMessage]]]) -> list[list[int]]:
    """Run each call at the same time on its own connection; the ids each one started."""
    databases = [create_database(database_url) for _ in calls]
    barrier = threading.Barrier(len(calls))
    results: list[list[int]] = [[] for _ in calls]

    def run(index: int) -> None:
        barrier.wait()
        results[index] = [message.id for message in calls[index](databases[index])]

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    for extra in databases:
        extra.dispose()
    return results


@pytest.mark.timeout(60)
def test_two_workers_racing_for_rows_whose_reservation_ran_out_start_each_once(
    database_url: str, database: Database, settings_for: Callable[..., Settings]
) -> None:
    # No pair limit: the moments the first claim booked for each customer do not hold the second back.
    settings = settings_for(send_rate=10.0, pair_interval_seconds=0.0)
    _enqueue(database, settings, 5)
    _number_busy_until(database, START + timedelta(seconds=0.5))
    stalled = _claim(database, settings, START, "a")
    assert len(stalled) == 5 and all(message.lease_expires_at is None for message in stalled)
    # Worker a stalls past its reservation; worker b's claim finds the rows due and reserves them.
    after_reservation = RESERVED_UNTIL + timedelta(milliseconds=1)
    assert _claim(database, settings, RESERVED_UNTIL - timedelta(milliseconds=1), "b") == []
    fresh = _claim(database, settings, after_reservation, "b")
    assert sorted(message.id for message in fresh) == sorted(message.id for message in stalled)
    due = [message for message in fresh if message.lease_expires_at is None]

    # Both start at once, a with its stale reservation: only b's start moves the rows.
    a_started, b_started = _race(
        database_url,
        [
            lambda db: _start(db, stalled, after_reservation),
            lambda db: _start(db, due, after_reservation),
        ],
    )
    assert a_started == []
    assert sorted(b_started) == sorted(message.id for message in due)
    after = rows(database)
    assert {(row.state, row.attempts, row.claimed_by.split("/")[0]) for row in after.values()} == {
        ("sending", 1, "b")
    }
    assert len(_started_entries(database)) == 5
    # a giving its reservations up now changes nothing either.
    with database.transaction() as session:
        assert release_reserved(session, stalled, after_reservation) == 0
    assert rows(database).keys() == after.keys()
    assert {row.state for row in rows(database).values()} == {"sending"}


def test_a_late_start_before_another_claim_reserved_the_rows_keeps_them(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=10.0)
    _enqueue(database, settings, 3)
    _number_busy_until(database, START + timedelta(seconds=0.5))
    stalled = _claim(database, settings, START, "a")
    after_reservation = RESERVED_UNTIL + timedelta(milliseconds=1)
    # The reservation ran out, but nobody else reserved the rows: they are still a's to start.
    assert len(_start(database, stalled, after_reservation)) == 3
    assert _claim(database, settings, after_reservation, "b") == []
    assert {row.state for row in rows(database).values()} == {"sending"}


def test_a_released_reservation_is_due_again_at_once_without_an_attempt_or_a_journal_entry(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=10.0, pair_interval_seconds=0.0)
    keys = _enqueue(database, settings, 3)
    _number_busy_until(database, START + timedelta(seconds=0.5))
    reserved = _claim(database, settings, START, "a")
    stop = START + timedelta(seconds=0.2)
    with database.transaction() as session:
        assert release_reserved(session, reserved, stop) == 3
    after = rows(database)
    assert {(row.state, row.attempts, row.claimed_by, row.not_before) for row in after.values()} == {
        ("queued", 0, None, stop)
    }
    assert _started_entries(database) == []
    # Another worker takes them at once.
    again = _claim(database, settings, stop, "b")
    assert sorted(message.dedupe_key for message in again) == sorted(keys)


def _customer_slot(database: Database, to_number: str) -> datetime | None:
    with database.reader() as session:
        slot = session.get(PacingSlot, customer_slot_key(to_number))
        return None if slot is None else slot.next_at


def test_rows_never_sent_hand_their_customers_slots_back_so_the_next_claim_takes_them_at_once(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=10.0)
    keys = _enqueue(database, settings, 2)
    # The first customer had a message six seconds ago: their slot frees a tenth of a second from now.
    earlier_send_frees_at = START + timedelta(seconds=0.1)
    with database.transaction() as session:
        upsert_slots(session, {customer_slot_key(number(0)): earlier_send_frees_at})
    # Booked half a second on, so the claim reserves them rather than starting them.
    _number_busy_until(database, START + timedelta(seconds=0.5))
    reserved = _claim(database, settings, START + timedelta(seconds=0.2), "a")
    assert len(reserved) == 2
    assert all(
        _customer_slot(database, message.to_number) == message.customer_slot_booked for message in reserved
    )
    # One reservation is given up, the other started and given back unsent (its moment slipped by).
    released, started = sorted(reserved, key=lambda message: message.dispatch_at)
    later = START + timedelta(seconds=0.4)
    started = _start(database, [started], later)[0]
    with database.transaction() as session:
        assert release_reserved(session, [released], later) == 1
        assert give_back_unsent(session, [started], later) == 1
    # Each slot is as it was before the booking: the earlier send's, or none at all.
    assert _customer_slot(database, number(0)) == earlier_send_frees_at
    assert _customer_slot(database, number(1)) is None
    # Both are booked again at once, not six seconds on.
    again = _claim(database, settings, later, "b")
    assert sorted(message.dedupe_key for message in again) == sorted(keys)
    assert max(message.dispatch_at for message in again) < later + timedelta(seconds=1)


def test_a_slot_booked_again_since_is_not_handed_back(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=10.0)
    _enqueue(database, settings, 1)
    _number_busy_until(database, START + timedelta(seconds=0.5))
    (reserved,) = _claim(database, settings, START, "a")
    booked_since = START + timedelta(seconds=30)
    with database.transaction() as session:
        upsert_slots(session, {customer_slot_key(reserved.to_number): booked_since})
        assert release_reserved(session, [reserved], START + timedelta(seconds=0.1)) == 1
    assert _customer_slot(database, reserved.to_number) == booked_since


def test_reserved_rows_take_their_place_in_the_messaging_tier(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=10.0, messaging_tier=1)
    enqueue_all(database, settings, [template_request("first", number(1))], START)
    _number_busy_until(database, START + timedelta(seconds=0.5))
    assert [message.dedupe_key for message in _claim(database, settings, START, "a")] == ["first"]
    assert rows(database)["first"].state == "queued"  # reserved, not started
    # Another claim counts the reservation: a second new customer would exceed the tier of one.
    enqueue_all(database, settings, [template_request("second", number(2))], START)
    assert _claim(database, settings, START + timedelta(seconds=0.1), "b") == []
    second = rows(database)["second"]
    assert (second.state, second.attempts, second.claimed_by) == ("queued", 0, None)
    assert second.not_before > START + timedelta(hours=23)


def test_the_due_query_walks_its_index_past_reserved_rows(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    if not database.is_sqlite:
        pytest.skip("the plan is checked on SQLite; PostgreSQL's depends on its statistics")
    settings = settings_for(send_rate=1000.0)
    _enqueue(database, settings, 300)
    _claim(database, settings, START, "a", limit=200)
    with database.reader() as session:
        reserved = session.execute(
            text("SELECT count(*) FROM outbox_messages WHERE state = 'queued' AND claimed_by IS NOT NULL")
        ).scalar_one()
    assert reserved >= 150
    seen: list[tuple[str, Any]] = []

    def capture(_connection: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().startswith("SELECT") and "not_before <=" in statement:
            seen.append((statement, parameters))

    event.listen(database.engine, "before_cursor_execute", capture)
    try:
        later = _claim(database, settings, START + timedelta(seconds=0.5), "b")
    finally:
        event.remove(database.engine, "before_cursor_execute", capture)
    assert len(later) == 100  # exactly the rows nobody reserved
    assert seen
    with database.reader() as session:
        for statement, parameters in seen:
            plan = " ".join(
                row[-1]
                for row in session.connection().exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
            )
            # A range on not_before inside the index: reserved rows are never read, let alone filtered.
            assert "USING INDEX ix_outbox_messages_due (state=? AND priority=? AND not_before<?)" in plan, (
                plan
            )


@pytest.mark.timeout(60)
def test_a_running_sender_records_the_last_answer_without_waiting_for_more_work(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    # At 5 per second each row is started by a tick shortly before its moment, the last one included.
    settings = settings_for(send_rate=5.0)
    keys = [f"k{i}" for i in range(4)]
    enqueue_all(
        database, settings, [template_request(key, number(i)) for i, key in enumerate(keys)], utc_now()
    )
    graph = RecordingGraph()
    sender = OutboxSender(build_parts(settings, database), transport=graph.transport())
    stop = threading.Event()
    thread = threading.Thread(target=sender.run, args=(stop,))
    thread.start()
    try:
        # Recorded while the sender runs on, idle: nothing else (a claim, the stop) has to come first.
        deadline = time.monotonic() + 10
        while count_in_state(database, "accepted") < len(keys) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert {row.state for row in rows(database).values()} == {"accepted"}
    finally:
        stop.set()
        thread.join(15)
    assert not thread.is_alive()
    assert sum(graph.keys.values()) == len(keys)


def test_a_supervisor_cancelling_a_reserved_row_keeps_it_from_starting(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=10.0)
    keys = _enqueue(database, settings, 2)
    _number_busy_until(database, START + timedelta(seconds=0.5))
    reserved = _claim(database, settings, START, "a")
    with database.transaction() as session:
        resolve_by_supervisor(session, keys[0], "cancel", "sam", START + timedelta(seconds=0.1))
    started = _start(database, reserved, START + timedelta(seconds=0.5))
    assert [message.dedupe_key for message in started] == [keys[1]]
    after = rows(database)
    assert (after[keys[0]].state, after[keys[0]].attempts, after[keys[0]].claimed_by) == (
        "cancelled",
        0,
        None,
    )
