"""Lease expiry and unknown resolution: every decision recorded with its reason."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import httpx
from sqlalchemy import select

from app.composition import build_parts
from backend.database import Database
from backend.database.models import OutboxMessage, SendDecision, StatusEvent
from backend.outbox.sender import OutboxSender
from backend.outbox.workers import OutboxSweeper
from backend.settings import PurposeRule, Settings
from tests.conftest import journal_entries
from tests.integration.outbox.conftest import (
    START,
    FakeClock,
    RecordingGraph,
    enqueue_all,
    number,
    rows,
    template_request,
)


def _make_unknown(
    database: Database, settings: Settings, clock: FakeClock, keys_and_purposes: list[tuple[str, str]]
) -> RecordingGraph:
    enqueue_all(
        database,
        settings,
        [
            template_request(key, number(i), purpose=purpose)
            for i, (key, purpose) in enumerate(keys_and_purposes)
        ],
        START,
    )

    def timeout(body: dict[str, object]) -> httpx.Response:
        raise httpx.ReadTimeout("simulated")

    graph = RecordingGraph(timeout)
    OutboxSender(
        build_parts(settings, database, clock=clock),
        transport=graph.transport(),
        sleep_until=clock.sleep_until,
    ).run_once()
    assert {row.state for row in rows(database).values()} == {"unknown"}
    return graph


def _decisions(database: Database) -> dict[str, tuple[str, str, str]]:
    with database.reader() as session:
        found = session.execute(
            select(
                OutboxMessage.dedupe_key, SendDecision.actor, SendDecision.action, SendDecision.reason
            ).join(OutboxMessage, OutboxMessage.id == SendDecision.message_id)
        )
        return {key: (actor, action, reason) for key, actor, action, reason in found}


def test_expired_leases_become_unknown_and_are_journaled(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for()
    clock = FakeClock()
    enqueue_all(
        database, settings, [template_request("k1", number(1)), template_request("k2", number(2))], START
    )
    from backend.outbox.claim import claim_batch, pacing_rules

    with database.transaction() as session:
        claimed = claim_batch(
            session, rules=pacing_rules(settings), lease_seconds=30, now=START, limit=1, worker_id="gone"
        )
    assert len(claimed) == 1
    sweeper = OutboxSweeper(build_parts(settings, database, clock=clock))
    clock.set(claimed[0].lease_expires_at)
    assert sweeper.run_once().expired == 0  # at the lease's end, not past it
    clock.advance(0.001)
    assert sweeper.run_once().expired == 1
    after = rows(database)
    assert after[claimed[0].dedupe_key].state == "unknown"
    assert after[claimed[0].dedupe_key].unknown_since == clock()
    assert [row.state for key, row in after.items() if key != claimed[0].dedupe_key] == ["queued"]
    last = journal_entries(database)[-1]
    assert last.data == {
        "key": claimed[0].dedupe_key,
        "conversation_id": claimed[0].conversation_id,
        "state": "unknown",
        "previous_state": "sending",
        "wamid": None,
    }


def test_unknown_rows_wait_then_follow_their_purpose_rule(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(
        unknown_wait_seconds=300.0,
        purposes={
            "table_ready": PurposeRule(unknown_rule="resend"),
            "payment_request": PurposeRule(unknown_rule="review"),
        },
    )
    clock = FakeClock()
    graph = _make_unknown(
        database,
        settings,
        clock,
        [("table-7", "table_ready"), ("pay-1", "payment_request"), ("ship-1", "order_shipped")],
    )
    sweeper = OutboxSweeper(build_parts(settings, database, clock=clock))
    clock.advance(299)
    assert sweeper.run_once().decisions == []
    clock.advance(2)
    decisions = {decision.key: decision.action for decision in sweeper.run_once().decisions}
    assert decisions == {"table-7": "resend", "pay-1": "review", "ship-1": "review"}
    after = rows(database)
    assert after["table-7"].state == "queued"
    assert after["pay-1"].state == "unknown"
    assert after["ship-1"].state == "unknown"
    recorded = _decisions(database)
    assert recorded["table-7"][:2] == ("rule", "resend")
    assert "rule: resend" in recorded["table-7"][2]
    assert "rule: review" in recorded["pay-1"][2]
    # Review rows are decided once, not at every sweep.
    clock.advance(600)
    assert sweeper.run_once().decisions == []
    # The resent row goes again as a new attempt under the same key.
    OutboxSender(
        build_parts(settings, database, clock=clock),
        transport=RecordingGraph().transport(),
        sleep_until=clock.sleep_until,
    ).run_once()
    after = rows(database)
    assert (after["table-7"].state, after["table-7"].attempts) == ("accepted", 2)
    assert graph.keys["pay-1"] == 1


def test_resend_rule_stops_at_max_attempts(database: Database, settings_for: Callable[..., Settings]) -> None:
    settings = settings_for(
        max_attempts=1,
        unknown_wait_seconds=10.0,
        purposes={"table_ready": PurposeRule(unknown_rule="resend")},
    )
    clock = FakeClock()
    _make_unknown(database, settings, clock, [("table-7", "table_ready")])
    clock.advance(11)
    decisions = OutboxSweeper(build_parts(settings, database, clock=clock)).run_once().decisions
    assert [(d.key, d.action) for d in decisions] == [("table-7", "review")]
    assert "limit of 1" in decisions[0].reason


def test_a_status_already_received_is_evidence(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(unknown_wait_seconds=10.0)
    clock = FakeClock()
    _make_unknown(database, settings, clock, [("ship-1", "order_shipped")])
    with database.transaction() as session:
        session.add(
            StatusEvent(
                wamid="wamid.EVIDENCE",
                status="sent",
                occurred_at=clock(),
                callback_data="ship-1",
                received_at=clock(),
            )
        )
    clock.advance(11)
    decisions = OutboxSweeper(build_parts(settings, database, clock=clock)).run_once().decisions
    assert [(d.key, d.action) for d in decisions] == [("ship-1", "accepted")]
    row = rows(database)["ship-1"]
    assert (row.state, row.wamid) == ("accepted", "wamid.EVIDENCE")


def test_stale_customer_slots_are_pruned(database: Database, settings_for: Callable[..., Settings]) -> None:
    settings = settings_for()
    clock = FakeClock()
    enqueue_all(database, settings, [template_request("k1", number(1))], START)
    OutboxSender(
        build_parts(settings, database, clock=clock),
        transport=RecordingGraph().transport(),
        sleep_until=clock.sleep_until,
    ).run_once()
    clock.advance(timedelta(hours=2).total_seconds())
    assert OutboxSweeper(build_parts(settings, database, clock=clock)).run_once().pruned_slots == 1
