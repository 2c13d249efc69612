"""Small child processes for the supervisor's tests: each behaves as its role's name says.

Spawned children import this module by name, so it holds only top-level functions.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

from app.processes import FAILED, READY, ChildPlan, ProcessJournalSignal, exit_child, report, watch_supervisor
from backend.journal import LocalJournalSignal

# A role that ignores the stop it is asked for; the supervisor has to kill it.
STUBBORN = "stubborn"
# Ready, then crashes with exit code 3 the first time it runs; steady afterwards.
CRASH_ONCE = "crash-once"
# Ready, then crashes with exit code 3 once its cue file appears, the first time it runs; steady afterwards.
CRASH_ON_CUE = "crash-on-cue"
# Ready, then crashes once its cue file appears, the first time; every later start fails before it is ready.
BROKEN_AFTER_CRASH = "broken-after-crash"
# Never ready: says why and ends.
NEVER_READY = "never-ready"
# Ready only after SLOW_READY_SECONDS.
SLOW_READY = "slow-ready"
SLOW_READY_SECONDS = 1.5
CRASH_EXIT_CODE = 3


def starts_file(data_dir: Path, role: str) -> Path:
    """One line per start of `role`, each the pid that started."""
    return data_dir / f"{role}.starts"


def cue_file(data_dir: Path, role: str) -> Path:
    """The file whose appearance tells `role` to act."""
    return data_dir / f"{role}.cue"


def _count_start(plan: ChildPlan) -> int:
    path = starts_file(plan.settings.data_dir, plan.role)
    with path.open("a", encoding="utf-8") as file:
        file.write(f"{os.getpid()}\n")
    return len(path.read_text(encoding="utf-8").splitlines())


def tiny_child(plan: ChildPlan) -> None:
    """A child whose behaviour is chosen by its role's name; any other role is steady."""
    starts = _count_start(plan)
    stop = threading.Event()
    watch_supervisor(plan, stop)
    if plan.role == NEVER_READY or (plan.role == BROKEN_AFTER_CRASH and starts > 1):
        report(plan, FAILED, "no database at the configured address")
        exit_child(1)
    if plan.role == SLOW_READY:
        time.sleep(SLOW_READY_SECONDS)
    report(plan, READY, f"{plan.role} {os.getpid()}")
    if plan.role == CRASH_ONCE and starts == 1:
        time.sleep(0.2)
        exit_child(CRASH_EXIT_CODE)
    # On a cue, not a timer: a timer could fire before the supervisor's start returned, on a busy machine.
    if plan.role in (CRASH_ON_CUE, BROKEN_AFTER_CRASH) and starts == 1:
        cue = cue_file(plan.settings.data_dir, plan.role)
        while not cue.exists() and not stop.wait(0.02):
            pass
        if not stop.is_set():
            exit_child(CRASH_EXIT_CODE)
    if plan.role == STUBBORN:
        while True:
            time.sleep(1.0)
    stop.wait()
    exit_child(0)


def notify_after(wake: socket.socket, delay: float, stamps: socket.socket) -> None:
    """Notify the journal signal of the other process `delay` seconds from now; send when it did."""
    time.sleep(delay)
    notified_at = time.monotonic()
    ProcessJournalSignal(wake, LocalJournalSignal()).notify()
    stamps.sendall(f"{notified_at!r}\n".encode("ascii"))
