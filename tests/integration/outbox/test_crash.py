"""kill -9 of a sender mid-send: its rows become `unknown` after the lease, and nothing is sent twice."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.composition import build_parts
from backend.database import Database
from backend.outbox.sender import OutboxSender
from backend.outbox.workers import OutboxSweeper
from backend.settings import Settings
from bench.fake_graph import FakeGraph
from tests.integration.outbox.conftest import count_in_state, enqueue_all, number, rows, template_request
from tests.integration.outbox.test_claim_race import _wait_for, _worker_environment, start_worker

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
