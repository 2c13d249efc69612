"""`inbox serve` as supervised processes, through the sandbox: crashes of one child, a stop under a
backlog, the supervisor's own death, and long-polls woken by another process's commits."""

from __future__ import annotations

import signal
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from backend.database.models import OutboxMessage
from backend.domain import states
from backend.journal import last_seq
from bench.chaos import enqueue_backlog
from bench.harness import BackendProcess, Rig, SendRecord, customer_number
from tests.integration.app.process_support import process_gone

pytestmark = [pytest.mark.processes, pytest.mark.slow, pytest.mark.timeout(120)]


@pytest.fixture
def make_rig(database_url: str, tmp_path: Path) -> Iterator[list[Rig]]:
    """Rigs (sandbox + `inbox serve` processes on this test's database), closed at the end."""
    rigs: list[Rig] = []
    yield rigs
    for rig in rigs:
        rig.close()


def new_rig(rigs: list[Rig], database_url: str, tmp_path: Path, **options: object) -> Rig:
    rig = Rig(database_url, tmp_path, **options)  # type: ignore[arg-type]
    rigs.append(rig)
    return rig


def count_in(rig: Rig, *wanted: str) -> int:
    """Outbox rows in any of these states."""
    with rig.database.reader() as session:
        query = select(func.count()).select_from(OutboxMessage).where(OutboxMessage.state.in_(wanted))
        return int(session.scalar(query) or 0)


def wait_for(condition: object, timeout: float, what: str) -> None:
    """Poll a callable until it is true."""
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.05)


def new_child(serve: BackendProcess, role: str, old_pid: int) -> int:
    """The pid of the child the supervisor started after `old_pid` (waits for its line in the log)."""
    wait_for(lambda: serve.children().get(role, old_pid) != old_pid, 30, f"a new {role} process")
    return serve.children()[role]


def test_a_killed_sender_is_started_again_and_the_backlog_drains_without_a_duplicate(
    make_rig: list[Rig], database_url: str, tmp_path: Path
) -> None:
    # 300 rows at 100/s: the kill comes mid-drain.
    rig = new_rig(make_rig, database_url, tmp_path, settings={"INBOX_SEND_RATE": "100"})
    enqueue_backlog(rig, "crash", 300)
    serve = rig.start_serve()
    wait_for(lambda: count_in(rig, *states.AT_META_STATES) >= 40, 30, "the first sends")
    killed = serve.kill_child("sender")
    others = {role: pid for role, pid in serve.children().items() if role != "sender"}
    replacement = new_child(serve, "sender", killed)
    assert process_gone(killed)
    assert count_in(rig, states.QUEUED) > 0  # the kill came with work left to do
    rig.last_restart = time.monotonic()
    drained, recovery = rig.drain(60)
    verdict = rig.verdict(SendRecord(acknowledged={f"crash-{i}" for i in range(300)}), drained, recovery)
    assert drained, verdict
    assert verdict.duplicates == 0 and verdict.lost_detail == [] and verdict.mismatched == [], verdict
    assert verdict.in_sending == 0
    # What stays unknown is a call that left when the sender died, with nobody saying it arrived.
    assert all(not row["customer_has_it"] and row["hold_reason"] for row in verdict.left_unknown)
    assert f"child sender pid {killed} ended (killed by SIGKILL)" in serve.log()
    # Only the sender was started again.
    assert {role: pid for role, pid in serve.children().items() if role != "sender"} == others
    assert serve.children()["sender"] == replacement and serve.alive


def test_a_killed_http_process_is_replaced_on_the_same_port_and_a_request_made_meanwhile_is_answered(
    make_rig: list[Rig], database_url: str, tmp_path: Path
) -> None:
    rig = new_rig(make_rig, database_url, tmp_path)
    serve = rig.start_serve()
    killed = serve.kill_child("http")
    wait_for(lambda: process_gone(killed), 5, "the HTTP process ending")
    assert "is ready again" not in serve.log()
    # Sent while no HTTP process runs: the connection waits in the supervisor's socket backlog.
    answer = httpx.get(f"http://127.0.0.1:{serve.port}/healthz", timeout=30)
    assert answer.status_code == 200
    replacement = new_child(serve, "http", killed)
    assert replacement != killed
    # The new child may answer before the supervisor has read its ready message and said so.
    ready_line = f"child http pid {replacement} is ready again"
    wait_for(lambda: ready_line in serve.log(), 10, "the supervisor saying the new HTTP process is ready")


def test_sigterm_under_a_backlog_ends_every_process_within_10_seconds_leaving_nothing_sending(
    make_rig: list[Rig], database_url: str, tmp_path: Path
) -> None:
    # Slow answers, so calls are in flight at the stop and most of the backlog is still queued.
    rig = new_rig(
        make_rig,
        database_url,
        tmp_path,
        sandbox_options={"latency_ms": 1000.0},
        settings={"INBOX_SEND_RATE": "200", "INBOX_READ_TIMEOUT_SECONDS": "3"},
    )
    enqueue_backlog(rig, "stop", 2000)
    serve = rig.start_serve()
    wait_for(lambda: rig.sandbox.stats()["accepted"] >= 50, 30, "sends under way")
    children = serve.children()
    began = time.monotonic()
    serve.process.send_signal(signal.SIGTERM)
    assert serve.process.wait(15) == 0
    took = time.monotonic() - began
    assert took <= 10.0, serve.log()
    assert count_in(rig, states.SENDING) == 0
    assert count_in(rig, states.QUEUED) > 0
    wait_for(lambda: all(process_gone(pid) for pid in children.values()), 2, "every child ending")
    assert "did not stop within" not in serve.log()


def test_children_stop_when_the_supervisor_is_killed_and_the_port_is_free_again(
    make_rig: list[Rig], database_url: str, tmp_path: Path
) -> None:
    rig = new_rig(make_rig, database_url, tmp_path)
    serve = rig.start_serve()
    children = serve.children()
    assert sorted(children) == ["background", "http", "sender"]
    serve.kill(group=False)
    wait_for(lambda: all(process_gone(pid) for pid in children.values()), 3, "the children ending")
    assert serve.port is not None
    with socket.create_server(("127.0.0.1", serve.port)):
        pass  # bound: nothing holds the port any more


def test_a_long_poll_wakes_within_milliseconds_of_a_commit_in_the_background_process(
    make_rig: list[Rig], database_url: str, tmp_path: Path
) -> None:
    rig = new_rig(make_rig, database_url, tmp_path)
    serve = rig.start_serve()
    api = httpx.Client(
        base_url=f"http://127.0.0.1:{serve.port}",
        headers={"Authorization": f"Bearer {rig.token}"},
        timeout=30,
    )
    delays: list[float] = []
    try:
        for index in range(7):
            with rig.database.reader() as session:
                after = last_seq(session)
            answered: list[float] = []

            def long_poll(after: int = after, answered: list[float] = answered) -> None:
                page = api.get("/v1/events", params={"after": after, "wait": 20}).json()
                assert page["events"], page
                answered.append(time.monotonic())

            waiter = threading.Thread(target=long_poll)
            waiter.start()
            # The long-poll waits in the HTTP process, which would look at the journal again 0.5 s
            # and 1 s after it began; the commit below comes between the two (the processor looks
            # for bodies every 0.2 s), so a missing wake-up would cost about 0.2 to 0.4 s here.
            time.sleep(0.6)
            # A customer writes: the HTTP process stores the body, the background process commits
            # the message and its journal entry.
            rig.sandbox.inbound(customer_number(index), f"hello {index}")
            while True:
                with rig.database.reader() as session:
                    if last_seq(session) > after:
                        visible = time.monotonic()
                        break
                time.sleep(0.002)
            waiter.join(25)
            assert answered, "the long-poll did not answer"
            delays.append(answered[0] - visible)
    finally:
        api.close()
    assert statistics.median(delays) < 0.1, delays
