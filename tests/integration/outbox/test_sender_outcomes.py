"""Each outcome class through the real sender and a mock transport, recorded on the row and in the journal."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

import httpx
import pytest

from app.composition import build_parts
from backend.database import Database
from backend.database.models import PacingSlot
from backend.domain.pacing import customer_slot_key
from backend.outbox.sender import OutboxSender
from backend.settings import Settings
from tests.conftest import journal_entries
from tests.integration.outbox.conftest import (
    START,
    FakeClock,
    RecordingGraph,
    enqueue_all,
    graph_error,
    number,
    rows,
    template_request,
    text_request,
)


def _sender(database: Database, settings: Settings, transport: Any, clock: FakeClock) -> OutboxSender:
    return OutboxSender(
        build_parts(settings, database, clock=clock),
        transport=transport,
        sleep_until=clock.sleep_until,
        jitter=lambda: 0.5,
    )


def _raising(error: type[httpx.HTTPError]) -> Callable[[httpx.Request], httpx.Response]:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error("simulated", request=request)

    return handler


def test_2xx_is_accepted_with_its_wamid_and_journaled(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for()
    clock = FakeClock()
    enqueue_all(database, settings, [template_request("k1", number(1))], START)
    graph = RecordingGraph()
    assert _sender(database, settings, graph.transport(), clock).run_once() == 1
    row = rows(database)["k1"]
    assert (row.state, row.wamid, row.attempts, row.lease_expires_at) == (
        "accepted",
        "wamid.T00000001",
        1,
        None,
    )
    assert graph.bodies[0]["biz_opaque_callback_data"] == "k1"
    changes = [entry.data for entry in journal_entries(database, "message.state_changed")]
    assert [(c["previous_state"], c["state"]) for c in changes] == [
        ("queued", "sending"),
        ("sending", "accepted"),
    ]
    assert changes[-1] == {
        "key": "k1",
        "conversation_id": row.conversation_id,
        "state": "accepted",
        "previous_state": "sending",
        "wamid": "wamid.T00000001",
    }


@pytest.mark.parametrize("error", [httpx.ConnectTimeout, httpx.ConnectError, httpx.PoolTimeout])
def test_request_that_never_left_is_queued_with_backoff(
    database: Database, settings_for: Callable[..., Settings], error: type[httpx.HTTPError]
) -> None:
    settings = settings_for()
    clock = FakeClock()
    enqueue_all(database, settings, [template_request("k1", number(1))], START)
    _sender(database, settings, httpx.MockTransport(_raising(error)), clock).run_once()
    row = rows(database)["k1"]
    assert row.state == "queued"
    assert row.attempts == 1
    # About one second, jittered.
    assert timedelta(seconds=0.75) <= row.not_before - clock() <= timedelta(seconds=1.25)
    assert row.last_error_title == "request not sent"


@pytest.mark.parametrize(
    "error", [httpx.ReadTimeout, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteTimeout]
)
def test_no_answer_after_the_request_left_is_unknown_and_never_resent(
    database: Database, settings_for: Callable[..., Settings], error: type[httpx.HTTPError]
) -> None:
    settings = settings_for()
    clock = FakeClock()
    enqueue_all(database, settings, [template_request("k1", number(1))], START)
    calls = RecordingGraph(answer=lambda body: (_ for _ in ()).throw(error("simulated")))
    sender = _sender(database, settings, calls.transport(), clock)
    sender.run_once()
    row = rows(database)["k1"]
    assert row.state == "unknown"
    assert row.unknown_since == clock()
    clock.advance(3600)
    assert sender.run_once() == 0
    assert calls.keys["k1"] == 1


def test_5xx_without_a_known_code_is_unknown(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for()
    clock = FakeClock()
    enqueue_all(database, settings, [template_request("k1", number(1))], START)
    _sender(
        database,
        settings,
        RecordingGraph(lambda body: httpx.Response(502, text="bad gateway")).transport(),
        clock,
    ).run_once()
    assert rows(database)["k1"].state == "unknown"


def test_pair_limit_reschedules_only_that_customer(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(pair_interval_seconds=6.0)
    clock = FakeClock()
    limited, other = number(1), number(2)
    enqueue_all(
        database,
        settings,
        [template_request("a1", limited), template_request("b1", other), template_request("b2", other)],
        START,
    )
    graph = RecordingGraph(
        lambda body: (
            graph_error(131056)
            if body["to"] == limited
            else httpx.Response(200, json={"messages": [{"id": "wamid." + body["biz_opaque_callback_data"]}]})
        )
    )
    sender = _sender(database, settings, graph.transport(), clock)
    sender.run_once()
    after_first = rows(database)
    assert after_first["a1"].state == "queued"
    assert after_first["a1"].not_before >= clock() + timedelta(seconds=6)
    assert after_first["a1"].last_error_code == 131056
    with database.reader() as session:
        slot = session.get_one(PacingSlot, customer_slot_key(limited))
        assert slot.next_at >= after_first["a1"].not_before
    assert after_first["b1"].state == "accepted"
    # The other customer only waits its own pair interval, measured from its own last send.
    assert after_first["b2"].state == "queued"
    assert timedelta(seconds=6) <= after_first["b2"].not_before - START < timedelta(seconds=7)
    clock.set(after_first["b2"].not_before)
    sender.run_once()
    after = rows(database)
    assert after["b2"].state == "accepted"
    assert graph.keys == {"a1": 2, "b1": 1, "b2": 1}


def test_permanent_code_fails_with_code_title_and_details(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for()
    clock = FakeClock()
    enqueue_all(database, settings, [template_request("k1", number(1))], START)
    graph = RecordingGraph(lambda body: graph_error(131026, details="Message Undeliverable."))
    _sender(database, settings, graph.transport(), clock).run_once()
    row = rows(database)["k1"]
    assert (row.state, row.last_error_code, row.last_error_title, row.last_error_details) == (
        "failed",
        131026,
        "Message undeliverable",
        "Message Undeliverable.",
    )
    assert row.failed_at == clock()


def test_window_closed_answer_holds_the_row(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for()
    clock = FakeClock()
    # A template (the claim sends it; Meta still says the window is closed).
    enqueue_all(database, settings, [template_request("k1", number(1))], START)
    _sender(
        database, settings, RecordingGraph(lambda body: graph_error(131047)).transport(), clock
    ).run_once()
    row = rows(database)["k1"]
    assert (row.state, row.hold_reason, row.last_error_code) == ("held", "window_closed", 131047)


def test_free_text_to_a_closed_window_is_held_without_a_call(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for()
    clock = FakeClock()
    enqueue_all(database, settings, [text_request("k1", number(1))], START)
    graph = RecordingGraph()
    _sender(database, settings, graph.transport(), clock).run_once()
    assert (rows(database)["k1"].state, rows(database)["k1"].hold_reason) == ("held", "window_closed")
    assert graph.keys["k1"] == 0


def test_throttling_backs_off_doubling_then_fails_after_max_attempts(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(max_attempts=4, pair_interval_seconds=0.0)
    clock = FakeClock()
    enqueue_all(database, settings, [template_request("k1", number(1))], START)
    graph = RecordingGraph(lambda body: graph_error(130429))
    sender = _sender(database, settings, graph.transport(), clock)
    waits = []
    for _ in range(3):
        assert sender.run_once() == 1
        row = rows(database)["k1"]
        assert row.state == "queued"
        waits.append((row.not_before - clock()).total_seconds())
        clock.set(row.not_before)
    assert waits == [1.0, 2.0, 4.0]  # jitter 0.5 is the middle of the band
    sender.run_once()
    row = rows(database)["k1"]
    assert (row.state, row.attempts, row.last_error_code) == ("failed", 4, 130429)
    assert graph.keys["k1"] == 4


def test_an_answer_arriving_after_the_lease_ran_out_still_counts(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    from backend.outbox.sweepers import expire_leases

    settings = settings_for()
    clock = FakeClock()
    enqueue_all(database, settings, [template_request("k1", number(1))], START)

    def slow_answer(body: dict[str, Any]) -> httpx.Response:
        clock.advance(settings.send_lease_seconds + 5)
        with database.transaction() as session:
            assert expire_leases(session, clock()) == 1
        return httpx.Response(200, json={"messages": [{"id": "wamid.LATE"}]})

    _sender(database, settings, RecordingGraph(slow_answer).transport(), clock).run_once()
    row = rows(database)["k1"]
    assert (row.state, row.wamid) == ("accepted", "wamid.LATE")


def test_priority_goes_first_then_due_time(database: Database, settings_for: Callable[..., Settings]) -> None:
    settings = settings_for(send_rate=1.0)
    clock = FakeClock()
    enqueue_all(
        database,
        settings,
        [
            template_request("old-low", number(1)),
            template_request("new-high", number(2), priority=5, not_before=START - timedelta(seconds=-0.0)),
            template_request("older-low", number(3), not_before=START - timedelta(seconds=60)),
        ],
        START,
    )
    graph = RecordingGraph()
    sender = _sender(database, settings, graph.transport(), clock)
    for _ in range(3):
        sender.run_once()
        clock.advance(1)
    assert [body["biz_opaque_callback_data"] for body in graph.bodies] == ["new-high", "older-low", "old-low"]


def _stalled_sender(
    database: Database, settings: Settings, clock: FakeClock, graph: RecordingGraph, stall: float
) -> OutboxSender:
    async def stalled_sleep_until(moment: datetime) -> None:
        # The machine stalls before the first send: booked moments slip into the past.
        if clock() == START:
            clock.advance(stall)
        await clock.sleep_until(moment)

    graph.clock = clock
    return OutboxSender(
        build_parts(settings, database, clock=clock),
        transport=graph.transport(),
        sleep_until=stalled_sleep_until,
    )


def test_a_sender_that_falls_behind_spaces_late_sends_instead_of_bursting(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=10.0)
    clock = FakeClock()
    enqueue_all(database, settings, [template_request(f"k{i}", number(i)) for i in range(10)], START)
    graph = RecordingGraph()
    assert _stalled_sender(database, settings, clock, graph, 0.3).run_once() == 10
    sent_at = [at for _key, _to, at in graph.times]
    assert len(sent_at) == 10
    assert sent_at[0] == START + timedelta(seconds=0.3)
    # The interval, less the local tolerance for timer granularity.
    assert all(b - a >= timedelta(seconds=0.08) for a, b in pairwise(sent_at))  # type: ignore[operator]
    assert sent_at[-1] - sent_at[0] >= timedelta(seconds=0.81)  # type: ignore[operator]


def test_rows_that_would_go_too_late_are_given_back_unclaimed(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=10.0)
    clock = FakeClock()
    enqueue_all(database, settings, [template_request(f"k{i}", number(i)) for i in range(10)], START)
    graph = RecordingGraph()
    _stalled_sender(database, settings, clock, graph, 0.8).run_once()
    assert graph.times == []
    after = rows(database)
    assert {(row.state, row.attempts) for row in after.values()} == {("queued", 0)}
