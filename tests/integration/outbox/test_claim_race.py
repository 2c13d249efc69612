"""Several senders on one database: every row is sent exactly once, counted where it arrives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from app.composition import build_parts
from backend.database import Database, create_database
from backend.outbox.claim import claim_batch, pacing_rules
from backend.outbox.sender import OutboxSender
from backend.settings import Settings
from tests.integration.outbox.conftest import (
    START,
    RecordingGraph,
    count_in_state,
    enqueue_all,
    number,
    rows,
    template_request,
)

ROOT = Path(__file__).resolve().parents[3]
ROWS = 300


def _wait_for(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _enqueue_rows(database: Database, settings: Settings, count: int, now: datetime = START) -> list[str]:
    keys = [f"order-{i}:shipped" for i in range(count)]
    enqueue_all(database, settings, [template_request(key, number(i)) for i, key in enumerate(keys)], now)
    return keys


def test_concurrent_claims_never_share_a_row(
    database_url: str, database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=100_000.0)
    _enqueue_rows(database, settings, ROWS)
    rules = pacing_rules(settings, horizon_seconds=60)
    databases = [create_database(database_url) for _ in range(4)]

    def claim_all(index: int) -> list[int]:
        mine: list[int] = []
        while True:
            with databases[index].transaction() as session:
                batch = claim_batch(
                    session, rules=rules, lease_seconds=30, now=START, limit=7, worker_id=f"w{index}"
                )
            if not batch:
                return mine
            mine.extend(message.id for message in batch)

    with ThreadPoolExecutor(4) as pool:
        claimed = list(pool.map(claim_all, range(4)))
    for extra in databases:
        extra.dispose()
    every = [row_id for ids in claimed for row_id in ids]
    assert len(every) == ROWS
    assert len(set(every)) == ROWS


@pytest.mark.timeout(60)
def test_two_sender_threads_send_each_row_once(
    database_url: str, database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=200.0, send_concurrency=32)
    keys = _enqueue_rows(database, settings, ROWS, _now())
    graph = RecordingGraph()
    stop = threading.Event()
    senders = [
        OutboxSender(
            build_parts(settings, create_database(database_url)),
            transport=graph.transport(),
            worker_id=f"thread-{i}",
        )
        for i in range(2)
    ]
    threads = [threading.Thread(target=sender.run, args=(stop,)) for sender in senders]
    for thread in threads:
        thread.start()
    try:
        assert _wait_for(lambda: count_in_state(database, "accepted") == ROWS, 40)
    finally:
        stop.set()
        for thread in threads:
            thread.join(15)
        for sender in senders:
            sender.database.dispose()
    assert all(not thread.is_alive() for thread in threads)
    assert {key: graph.keys[key] for key in keys} == dict.fromkeys(keys, 1)
    assert sum(graph.keys.values()) == ROWS
    assert _senders_seen(database) == {"thread-0", "thread-1"}


def _worker_environment(database_url: str, graph_url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith(("INBOX_", "WHATSAPP_"))
    }
    environment.update(
        {
            "INBOX_DATA_DIR": str(data_dir),
            "INBOX_DATABASE_URL": database_url,
            "WHATSAPP_GRAPH_URL": graph_url,
            "WHATSAPP_TOKEN": "test-token",
            "WHATSAPP_PHONE_NUMBER_ID": "106540352242922",
            "INBOX_SEND_RATE": "150",
            "INBOX_SEND_CONCURRENCY": "64",
            "PYTHONPATH": str(ROOT),
            **extra,
        }
    )
    return environment


def start_worker(environment: dict[str, str], log_path: Path) -> subprocess.Popen[bytes]:
    """Start `inbox worker` as its own process."""
    with log_path.open("wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "app", "worker"],
            cwd=ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


@pytest.mark.timeout(90)
@pytest.mark.processes
def test_two_worker_processes_send_each_row_once_and_stop_on_sigterm(
    database_url: str,
    database: Database,
    settings_for: Callable[..., Settings],
    fake_graph: Any,
    tmp_path: Path,
) -> None:
    settings = settings_for()
    keys = _enqueue_rows(database, settings, ROWS, _now())
    environment = _worker_environment(database_url, fake_graph.url, tmp_path)
    workers = [start_worker(environment, tmp_path / f"worker-{i}.log") for i in range(2)]
    try:
        began = time.monotonic()
        done = _wait_for(lambda: count_in_state(database, "accepted") == ROWS, 60)
        print(f"drained in {time.monotonic() - began:.1f} s")
        logs = "\n".join((tmp_path / f"worker-{i}.log").read_text(errors="replace") for i in range(2))
        assert done, logs
    finally:
        for process in workers:
            process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        codes = [process.wait(20) for process in workers]
    print(f"stopped in {time.monotonic() - started:.1f} s")
    assert time.monotonic() - started < 10
    assert codes == [0, 0]
    counts = fake_graph.snapshot()["keys"]
    assert {key: counts.get(key, 0) for key in keys} == dict.fromkeys(keys, 1)
    assert fake_graph.snapshot()["requests"] == ROWS
    assert count_in_state(database, "sending") == 0
    assert len(_senders_seen(database)) == 2, "both processes should have claimed rows"


def _senders_seen(database: Database) -> set[str]:
    """The workers that sent rows: each row names the claim that sent it, `<worker id>/<claim>`."""
    return {row.claimed_by.rsplit("/", 1)[0] for row in rows(database).values() if row.claimed_by}


def _now() -> datetime:
    return datetime.now(UTC)
