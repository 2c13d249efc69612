"""Stopping a sender under a backlog: bounded, and nothing is left in `sending`."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

import httpx
import pytest

from app.composition import build_parts
from backend.database import Database
from backend.outbox.sender import OutboxSender
from backend.settings import Settings
from tests.integration.outbox.conftest import (
    RecordingGraph,
    count_in_state,
    enqueue_all,
    number,
    rows,
    template_request,
)

ROWS = 120


@pytest.mark.timeout(60)
def test_stop_finishes_in_flight_calls_and_gives_back_the_rest(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    # 20 per second with 0.5 s answers: at any moment some rows wait for their moment, some are in flight.
    settings = settings_for(send_rate=20.0, send_concurrency=40)
    enqueue_all(
        database, settings, [template_request(f"k{i}", number(i)) for i in range(ROWS)], datetime.now(UTC)
    )

    def slow(body: dict[str, object]) -> httpx.Response:
        time.sleep(0.5)
        return httpx.Response(
            200, json={"messages": [{"id": "wamid." + str(body["biz_opaque_callback_data"])}]}
        )

    graph = RecordingGraph(slow)
    sender = OutboxSender(
        build_parts(settings, database), transport=_ThreadedMock(graph), shutdown_grace_seconds=2.0
    )
    stop = threading.Event()
    thread = threading.Thread(target=sender.run, args=(stop,))
    thread.start()
    time.sleep(1.5)
    stop.set()
    began = time.monotonic()
    thread.join(15)
    assert not thread.is_alive()
    assert time.monotonic() - began < 4
    assert count_in_state(database, "sending") == 0
    after = rows(database)
    accepted = {key for key, row in after.items() if row.state == "accepted"}
    queued = {key for key, row in after.items() if row.state == "queued"}
    assert accepted and queued
    assert accepted | queued == set(after)
    # Every accepted row was sent once; rows given back were never sent and their claim is not counted.
    assert {key for key, count in graph.keys.items() if count} == accepted
    assert all(after[key].attempts == 0 for key in queued)
    # Reservations were given up at the stop, not left to run out: another worker may take the rows now.
    stopped_at = datetime.now(UTC)
    assert all(after[key].claimed_by is None and after[key].not_before <= stopped_at for key in queued)


@pytest.mark.timeout(60)
def test_calls_still_unanswered_after_the_grace_are_unknown(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(send_rate=1000.0)
    enqueue_all(
        database, settings, [template_request(f"k{i}", number(i)) for i in range(5)], datetime.now(UTC)
    )
    release = threading.Event()

    def never(body: dict[str, object]) -> httpx.Response:
        release.wait(10)
        return httpx.Response(200, json={"messages": [{"id": "wamid.late"}]})

    graph = RecordingGraph(never)
    sender = OutboxSender(
        build_parts(settings, database), transport=_ThreadedMock(graph), shutdown_grace_seconds=0.5
    )
    stop = threading.Event()
    thread = threading.Thread(target=sender.run, args=(stop,))
    thread.start()
    deadline = time.monotonic() + 10
    while sum(graph.keys.values()) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    began = time.monotonic()
    thread.join(10)
    stopped_after = time.monotonic() - began
    release.set()
    assert not thread.is_alive()
    assert stopped_after < 3
    assert count_in_state(database, "sending") == 0
    assert {row.state for row in rows(database).values()} == {"unknown"}


class _ThreadedMock(httpx.BaseTransport):
    """A synchronous mock transport (so a blocking handler runs off the sender's loop)."""

    def __init__(self, handler: Callable[[httpx.Request], httpx.Response]) -> None:
        self._mock = httpx.MockTransport(handler)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._mock.handle_request(request)
