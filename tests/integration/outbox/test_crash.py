"""kill -9 of a sender mid-send: rows whose call left become `unknown` after the lease, rows it only
reserved are simply due again, and nothing is sent twice."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.composition import build_parts
from backend.database import Database
from backend.outbox.claim import START_LEAD_SECONDS, claim_batch, pacing_rules
from backend.outbox.sender import TICK_SECONDS, OutboxSender
from backend.outbox.workers import OutboxSweeper
from backend.settings import Settings
from bench.fake_graph import FakeGraph
from tests.integration.outbox.conftest import count_in_state, enqueue_all, number, rows, template_request
from tests.integration.outbox.test_claim_race import ROOT, _wait_for, _worker_environment, start_worker

pytestmark = pytest.mark.processes

ROWS = 20


@pytest.fixture
def hanging_graph() -> Iterator[FakeGraph]:
    """A Graph stand-in that takes every request and never answers."""
    graph = FakeGraph(mode="hang").start()
    yield graph
    graph.stop()


@pytest.mark.timeout(60)
def test_killed_sender_leaves_unknown_rows_that_are_never_resent(
    database_url: str,
    database: Database,
    settings_for: Callable[..., Settings],
    hanging_graph: FakeGraph,
    tmp_path: Path,
) -> None:
    settings = settings_for()
    keys = [f"order-{i}:shipped" for i in range(ROWS)]
    enqueue_all(
        database,
        settings,
        [template_request(key, number(i)) for i, key in enumerate(keys)],
        datetime.now(UTC),
    )
    worker = start_worker(
        _worker_environment(database_url, hanging_graph.url, tmp_path), tmp_path / "worker.log"
    )
    try:
        arrived = _wait_for(lambda: hanging_graph.snapshot()["requests"] == ROWS, 30)
        assert arrived, (tmp_path / "worker.log").read_text(errors="replace")
        assert count_in_state(database, "sending") == ROWS
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
    killed_at = datetime.now(UTC)

    # Within the lease nothing moves: the worker might only be slow.
    assert OutboxSweeper(build_parts(settings, database, clock=lambda: killed_at)).run_once().expired == 0
    assert count_in_state(database, "sending") == ROWS

    after_lease = killed_at + timedelta(seconds=settings.send_lease_seconds + 2)
    report = OutboxSweeper(build_parts(settings, database, clock=lambda: after_lease)).run_once()
    assert report.expired == ROWS
    after = rows(database)
    assert {row.state for row in after.values()} == {"unknown"}
    assert all(row.last_error_title == "lease expired" for row in after.values())

    # Another sender finds nothing to send: unknown rows wait for evidence, a rule or a person.
    resumed = OutboxSender(build_parts(settings, database, clock=lambda: after_lease + timedelta(seconds=1)))
    assert resumed.run_once() == 0
    time.sleep(0.2)
    counts = hanging_graph.snapshot()["keys"]
    assert {key: counts.get(key, 0) for key in keys} == dict.fromkeys(keys, 1)


DRAIN_ROWS = 100
DRAIN_RATE = 20
# Rows a sender may have started whose call had not left yet: those due within a start lead plus a tick.
STARTED_NOT_LEFT = int(DRAIN_RATE * (START_LEAD_SECONDS + TICK_SECONDS)) + 1


@pytest.mark.timeout(90)
def test_a_sender_killed_mid_drain_leaves_unknown_only_the_rows_whose_call_left(
    database_url: str,
    database: Database,
    settings_for: Callable[..., Settings],
    hanging_graph: FakeGraph,
    tmp_path: Path,
) -> None:
    settings = settings_for(send_rate=float(DRAIN_RATE))
    keys = [f"order-{i}:shipped" for i in range(DRAIN_ROWS)]
    enqueue_all(
        database,
        settings,
        [template_request(key, number(i)) for i, key in enumerate(keys)],
        datetime.now(UTC),
    )
    environment = _worker_environment(
        database_url, hanging_graph.url, tmp_path, INBOX_SEND_RATE=str(DRAIN_RATE)
    )
    log_path = tmp_path / "sender.log"
    with log_path.open("wb") as log:
        sender = subprocess.Popen(
            [sys.executable, "-m", "tests.integration.outbox.sender_child"],
            cwd=ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        # Mid-drain at the cap: calls have left, and the claim has booked moments up to a second ahead.
        arrived = _wait_for(lambda: hanging_graph.snapshot()["requests"] >= 15, 40)
        assert arrived, log_path.read_text(errors="replace")
    finally:
        sender.send_signal(signal.SIGKILL)
        sender.wait(10)
    killed_at = datetime.now(UTC)
    left = {key for key, count in hanging_graph.snapshot()["keys"].items() if count}
    at_kill = rows(database)
    sending = {key for key, row in at_kill.items() if row.state == "sending"}
    reserved = {key for key, row in at_kill.items() if row.state == "queued" and row.claimed_by}
    # Every call that left is `sending`; beyond them only rows due within the start lead are.
    assert left <= sending
    assert len(sending - left) <= STARTED_NOT_LEFT, (len(sending), len(left))
    # The rest of the booked horizon is only reserved: still `queued`, no attempt counted.
    assert len(reserved) >= 5
    assert all(at_kill[key].attempts == 0 for key in reserved)

    after_lease = killed_at + timedelta(seconds=settings.send_lease_seconds + 2)
    report = OutboxSweeper(build_parts(settings, database, clock=lambda: after_lease)).run_once()
    assert report.expired == len(sending)
    after = rows(database)
    unknown = {key for key, row in after.items() if row.state == "unknown"}
    assert unknown == sending
    assert left <= unknown
    never_started = set(keys) - sending
    assert {after[key].state for key in never_started} == {"queued"}
    assert all(after[key].attempts == 0 for key in never_started)

    # Rows reserved but never started are due again for the next claim, none of them `unknown`.
    with database.transaction() as session:
        claimed = claim_batch(
            session,
            rules=pacing_rules(replace(settings, send_rate=100_000.0), horizon_seconds=60),
            lease_seconds=30,
            now=after_lease,
            limit=DRAIN_ROWS,
            worker_id="next",
            start_lead_seconds=0,
        )
    assert {message.dedupe_key for message in claimed} == never_started
    time.sleep(0.2)
    assert all(hanging_graph.snapshot()["keys"].get(key, 0) <= 1 for key in keys)
