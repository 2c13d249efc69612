"""Chaos through the sandbox at CI sizes: kill -9, repeated kills, cut connections, scale-out, SIGTERM,
webhook storms and read timeouts. The sandbox ledger says what customers received; the database what
the backend believes. bench/chaos.py runs the same scenarios at large sizes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from backend.database.models import OutboxMessage
from bench import chaos
from bench.harness import GRAPH_TOKEN, PHONE_NUMBER_ID, Rig, SendRecord, Verdict, customer_number
from tests.conftest import postgres_server_url

pytestmark = [pytest.mark.processes, pytest.mark.slow, pytest.mark.timeout(150)]

SIZES = replace(chaos.SMALL, sends=80, inbound=40, storm=80, backlog=200, scale=200)
postgres_only = pytest.mark.skipif(postgres_server_url() is None, reason="PostgreSQL-only scenario")


def assert_promises_held(verdict: Verdict) -> None:
    """No customer got a message twice; nothing answered 202/200 went missing; states match the ledger."""
    assert verdict.drained, f"the backend did not drain: {verdict}"
    assert verdict.duplicates == 0, verdict
    assert verdict.lost_detail == [], verdict
    assert verdict.mismatched == [], verdict
    assert verdict.in_sending == 0, verdict
    # Rows left unknown are exactly those the customer never got and Meta never reported on.
    for row in verdict.left_unknown:
        assert not row["customer_has_it"] and row["status_webhooks"] == 0, row
        assert row["hold_reason"] is not None, row


def test_kill_9_during_sends_and_webhooks_loses_nothing(database_url: str, tmp_path: Path) -> None:
    result = chaos.crash_during_traffic(database_url, tmp_path, SIZES, kills=3, back_to_back=False)
    assert_promises_held(result.verdict)
    # Only requests in flight at a kill (8 client threads) may stay unanswered past the client's patience.
    assert result.verdict.messages >= SIZES.sends - 3 * 8, result.notes
    assert result.verdict.inbound == SIZES.inbound


def test_ten_kills_in_a_row(database_url: str, tmp_path: Path) -> None:
    result = chaos.crash_during_traffic(database_url, tmp_path, SIZES, kills=10, back_to_back=True)
    assert_promises_held(result.verdict)
    assert result.verdict.messages >= SIZES.sends // 2, result.notes


@postgres_only
def test_terminated_connections_are_reopened_and_the_queue_drains(database_url: str, tmp_path: Path) -> None:
    result = chaos.cut_connections(database_url, tmp_path, SIZES, cuts=4)
    assert_promises_held(result.verdict)
    assert result.extra["alive"] == 3  # serve and both workers survived and reconnected
    assert result.extra["terminated"] > 0


@postgres_only
@pytest.mark.parametrize("workers", [1, 4])
def test_worker_processes_share_the_queue_without_duplicates_or_pair_limit_hits(
    workers: int, database_url: str, tmp_path: Path
) -> None:
    result = chaos.scale_out(database_url, tmp_path, SIZES, workers)
    assert_promises_held(result.verdict)
    assert result.verdict.messages == SIZES.scale
    assert result.verdict.pair_limit_rejections == 0
    assert result.verdict.left_unknown == []  # no crash, so every row reached the customer
    assert result.extra["rate"] > 0


def test_sigterm_under_a_backlog_stops_within_10_seconds_leaving_nothing_sending(
    database_url: str, tmp_path: Path
) -> None:
    result = chaos.stop_under_backlog(database_url, tmp_path, SIZES)
    assert result.extra["slowest"] <= 10.0
    assert result.extra["sending_at_stop"] == 0
    assert result.extra["queued_at_stop"] > 0  # the stop really came under a backlog
    assert_promises_held(result.verdict)


def test_a_webhook_storm_ends_in_the_ledger_s_truth(database_url: str, tmp_path: Path) -> None:
    result = chaos.webhook_storm(database_url, tmp_path, SIZES)
    assert_promises_held(result.verdict)
    stats = result.extra["stats"]
    assert stats["webhooks_duplicated"] > 0 and stats["webhook_failures_injected"] > 0


def test_read_timeouts_resolve_by_status_and_unanswered_sends_follow_their_purpose_s_rule(
    database_url: str, tmp_path: Path
) -> None:
    result = chaos.read_timeouts(database_url, tmp_path, SIZES)
    assert_promises_held(result.verdict)
    stats = result.extra["stats"]
    assert stats["timeouts_injected"] > 0
    # Accepted sends whose answer timed out were resolved by their status webhook: none waits.
    # Dropped sends (never accepted): `review` ones wait for a supervisor, `resend` ones went again once.
    waiting = result.verdict.left_unknown
    assert all(row["purpose"] == "order_update" and row["hold_reason"] == "review" for row in waiting), (
        waiting
    )
    assert len(waiting) + result.extra["resent"] == stats["drops_injected"]
    assert stats["accepted"] == SIZES.storm - len(waiting)


def test_kill_9_at_the_cap_leaves_unknown_only_the_calls_in_flight(database_url: str, tmp_path: Path) -> None:
    result = chaos.kill_at_the_cap(database_url, tmp_path, replace(SIZES, at_cap=900))
    assert_promises_held(result.verdict)
    # Rows only reserved at the kill went out after the restart; only calls that had left can be unknown.
    assert result.extra["unknown_never_reached"] <= result.extra["sending_at_kill"], result.notes
    # At 0 ms Graph latency that is a few tens of milliseconds of calls, far from the booked second.
    assert result.extra["sending_at_kill"] <= 150, result.notes


@pytest.mark.timeout(60)
def test_the_counts_catch_a_duplicate_a_loss_and_a_state_the_ledger_contradicts(
    database_url: str, tmp_path: Path
) -> None:
    rig = Rig(database_url, tmp_path)
    try:
        chaos.enqueue_backlog(rig, "check", 3)
        template: dict[str, Any] = {"name": "order_shipped", "language": {"code": "en"}}
        template["components"] = [{"type": "body", "parameters": [{"type": "text", "text": "x"}]}]
        # A customer receives check-0 twice and check-1 once, straight from the Graph API.
        for key, to in (
            ("check-0", customer_number(0)),
            ("check-0", customer_number(0)),
            ("check-1", customer_number(1)),
        ):
            response = httpx.post(
                f"{rig.sandbox.graph_url}/{PHONE_NUMBER_ID}/messages",
                headers={"Authorization": f"Bearer {GRAPH_TOKEN}"},
                json={
                    "messaging_product": "whatsapp",
                    "to": to,
                    "type": "template",
                    "template": template,
                    "biz_opaque_callback_data": key,
                },
            )
            assert response.status_code == 200, response.text
        # The backend believes check-2 was read, though nobody received it; check-1 it thinks queued.
        with rig.database.transaction() as session:
            session.execute(
                update(OutboxMessage).where(OutboxMessage.dedupe_key == "check-2").values(state="read")
            )
        record = SendRecord(acknowledged={"check-0", "check-1", "check-2", "check-9"})
        verdict = rig.verdict(record, drained=True, recovery_seconds=0.0)
    finally:
        rig.close()
    assert verdict.duplicates == 1
    assert sorted(verdict.lost_detail) == [
        "check-2: read but no customer received it",
        "check-9: answered 202 but has no row",
    ]
    assert len(verdict.mismatched) == 2  # check-0 and check-1 reached customers but are not read
    assert not verdict.ok
