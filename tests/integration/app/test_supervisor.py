"""The supervisor of `inbox serve` and `inbox worker`, with small spawned children standing in for roles."""

from __future__ import annotations

import multiprocessing
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli_errors import FAILURE_STATUS, CommandError
from app.processes import FAILURES_BEFORE_GIVING_UP, JournalWakeRelay, Supervisor
from backend.journal import LocalJournalSignal
from backend.settings import Settings
from tests.integration.app.process_support import process_gone
from tests.integration.app.tiny_roles import (
    BROKEN_AFTER_CRASH,
    CRASH_EXIT_CODE,
    CRASH_ON_CUE,
    CRASH_ONCE,
    NEVER_READY,
    SLOW_READY,
    STUBBORN,
    cue_file,
    notify_after,
    starts_file,
    tiny_child,
)

pytestmark = [pytest.mark.processes, pytest.mark.timeout(60)]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'unused.db'}")


class Supervised:
    """A supervisor running on a thread, as `inbox serve` runs it on its main thread."""

    def __init__(self, supervisor: Supervisor) -> None:
        self.supervisor = supervisor
        self.status: int | None = None
        self.described = supervisor.start()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self.status = self.supervisor.run()

    def finish(self, timeout: float = 20.0) -> dict[str, int | None]:
        """Ask for the stop, wait for `run` to return, stop the children."""
        self.supervisor.request_stop()
        self._thread.join(timeout)
        assert not self._thread.is_alive()
        return self.supervisor.stop()

    def wait_until_finished(self, timeout: float) -> None:
        """Wait for `run` to return on its own."""
        self._thread.join(timeout)
        assert not self._thread.is_alive()


@pytest.fixture
def supervised() -> Iterator[list[Supervised]]:
    running: list[Supervised] = []
    yield running
    for each in running:
        each.finish()


def starts(settings: Settings, role: str) -> list[int]:
    """The pids that started `role`, in order."""
    path = starts_file(settings.data_dir, role)
    return [int(line) for line in path.read_text(encoding="utf-8").split()] if path.exists() else []


def wait_for(condition: object, timeout: float) -> None:
    """Poll a callable until it is true."""
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        time.sleep(0.05)


def test_a_crashed_child_is_started_again_after_a_backoff_and_the_others_keep_running(
    settings: Settings, supervised: list[Supervised]
) -> None:
    lines: list[str] = []
    # It crashes on cue, once start has returned: a timer could fire while a slow machine still starts
    # the other child, which is another test's case.
    supervisor = Supervisor(
        settings, ["steady", CRASH_ON_CUE], target=tiny_child, first_backoff=0.3, announce=lines.append
    )
    running = Supervised(supervisor)
    supervised.append(running)
    first = starts(settings, CRASH_ON_CUE)[0]
    steady = supervisor.pids()["steady"]
    cued = time.monotonic()
    cue_file(settings.data_dir, CRASH_ON_CUE).touch()
    wait_for(lambda: len(starts(settings, CRASH_ON_CUE)) == 2, timeout=30)
    # Started again no sooner than the backoff after the crash.
    assert time.monotonic() - cued >= 0.3
    wait_for(lambda: supervisor.pids().get(CRASH_ON_CUE) == starts(settings, CRASH_ON_CUE)[1], timeout=5)
    second = supervisor.pids()[CRASH_ON_CUE]
    assert second != first and process_gone(first)
    assert supervisor.pids()["steady"] == steady
    assert lines == [
        f"child steady pid {steady}",
        f"child {CRASH_ON_CUE} pid {first}",
        f"child {CRASH_ON_CUE} pid {second}",
    ]
    assert running.described == {"steady": f"steady {steady}", CRASH_ON_CUE: f"{CRASH_ON_CUE} {first}"}
    supervised.clear()
    assert running.finish() == {"steady": 0, CRASH_ON_CUE: 0}
    assert running.status == 0
    assert process_gone(steady) and process_gone(second)


def test_a_child_that_crashes_while_the_others_get_ready_is_started_again_before_start_returns(
    settings: Settings,
) -> None:
    supervisor = Supervisor(settings, [SLOW_READY, CRASH_ONCE], target=tiny_child, first_backoff=0.1)
    try:
        described = supervisor.start()
        first, second = starts(settings, CRASH_ONCE)
        assert described == {
            SLOW_READY: f"{SLOW_READY} {supervisor.pids()[SLOW_READY]}",
            CRASH_ONCE: f"{CRASH_ONCE} {second}",
        }
        assert process_gone(first)
    finally:
        assert supervisor.stop() == {SLOW_READY: 0, CRASH_ONCE: 0}


def test_stop_tells_every_child_at_once_and_kills_one_that_does_not_stop_by_the_deadline(
    settings: Settings,
) -> None:
    supervisor = Supervisor(settings, ["steady", "steady-too", STUBBORN], target=tiny_child)
    supervisor.start()
    pids = supervisor.pids()
    began = time.monotonic()
    codes = supervisor.stop(timeout=1.5)
    took = time.monotonic() - began
    assert codes == {"steady": 0, "steady-too": 0, STUBBORN: -signal.SIGKILL}
    assert 1.5 <= took < 4.0
    assert all(process_gone(pid) for pid in pids.values())


def test_a_child_that_cannot_start_ends_the_start_with_its_reason_and_stops_the_others(
    settings: Settings,
) -> None:
    supervisor = Supervisor(settings, ["steady", NEVER_READY], target=tiny_child)
    with pytest.raises(CommandError) as raised:
        supervisor.start()
    assert raised.value.exit_status == FAILURE_STATUS
    assert str(raised.value) == (
        f"the {NEVER_READY} process could not start: no database at the configured address"
    )
    assert all(process_gone(pid) for pid in starts(settings, "steady") + starts(settings, NEVER_READY))
    assert len(starts(settings, NEVER_READY)) == 1  # not started again


def test_a_role_that_keeps_failing_before_it_is_ready_stops_everything_with_exit_status_1(
    settings: Settings, supervised: list[Supervised]
) -> None:
    supervisor = Supervisor(settings, ["steady", BROKEN_AFTER_CRASH], target=tiny_child, first_backoff=0.01)
    running = Supervised(supervisor)
    supervised.append(running)
    cue_file(settings.data_dir, BROKEN_AFTER_CRASH).touch()
    running.wait_until_finished(timeout=45)
    supervised.clear()
    assert running.status == FAILURE_STATUS
    # One good start that crashed, then the failures before ready that made it give up.
    assert len(starts(settings, BROKEN_AFTER_CRASH)) == 1 + FAILURES_BEFORE_GIVING_UP
    assert supervisor.failure == (
        f"the {BROKEN_AFTER_CRASH} process failed {FAILURES_BEFORE_GIVING_UP} times in a row before it "
        "was ready (last: no database at the configured address); stopping everything"
    )
    steady = supervisor.pids()["steady"]
    assert supervisor.stop() == {"steady": 0}
    assert process_gone(steady)


def test_a_crash_exit_code_is_what_the_supervisor_saw(settings: Settings) -> None:
    supervisor = Supervisor(settings, [CRASH_ONCE], target=tiny_child, first_backoff=30.0)
    supervisor.start()
    first = supervisor.pids()[CRASH_ONCE]
    # run() is not running: the crash is only noticed by stop, which reports the exit code as it is.
    wait_for(lambda: process_gone(first), timeout=10)
    assert supervisor.stop() == {CRASH_ONCE: CRASH_EXIT_CODE}


def test_a_commit_in_another_process_wakes_waiters_here_through_the_relay() -> None:
    reader, writer = socket.socketpair()
    stamps_here, stamps_there = socket.socketpair()
    signal_here = LocalJournalSignal()
    relay = JournalWakeRelay(reader, signal_here)
    relay.start()
    context = multiprocessing.get_context("spawn")
    child = context.Process(target=notify_after, args=(writer, 1.0, stamps_there))
    try:
        generation = signal_here.generation()
        child.start()
        # Far longer than the 0.5 s the long-polls would otherwise wait before looking again.
        signal_here.wait(generation, timeout=20.0)
        woken_at = time.monotonic()
        assert signal_here.generation() != generation
        stamps_here.settimeout(10)
        notified_at = float(stamps_here.recv(64).decode("ascii"))
        assert woken_at - notified_at < 0.1
    finally:
        child.join(10)
        relay.stop()
        for end in (reader, writer, stamps_here, stamps_there):
            end.close()
