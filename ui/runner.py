"""The one way the client runs blocking work: off the GUI thread, results to bound slots on it."""

from __future__ import annotations

import inspect
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject, Signal, Slot

log = logging.getLogger(__name__)

T = TypeVar("T")
Receiver = Callable[[Any], None]


def _check_bound_slot(callback: Callable[..., Any]) -> None:
    """Refuse anything but a bound method of a QObject, so results never run outside the GUI thread."""
    owner = getattr(callback, "__self__", None)
    if not inspect.ismethod(callback) or not isinstance(owner, QObject):
        raise TypeError("results go to a bound method of a QObject, not a function or lambda")


class BackgroundRunner(QObject):
    """Runs blocking calls on a small pool of daemon threads and delivers each outcome on the GUI thread."""

    # A call finished: its request id and its return value (emitted on a worker thread, queued to ours).
    _call_finished = Signal(int, object)
    # A call raised: its request id and the exception.
    _call_failed = Signal(int, object)
    # The number of calls in flight changed; tests and the status bar watch it.
    pending_changed = Signal(int)

    def __init__(self, parent: QObject | None = None, *, threads: int = 6) -> None:
        super().__init__(parent)
        self._ids = itertools.count(1)
        self._callbacks: dict[int, tuple[Receiver, Receiver | None]] = {}
        # The longest time one delivered result held the GUI thread, and who got it (for benchmarks).
        self.longest_delivery: tuple[float, str] = (0.0, "")
        self._work: queue.SimpleQueue[tuple[int, Callable[[], Any]] | None] = queue.SimpleQueue()
        self._call_finished.connect(self._deliver_result)
        self._call_failed.connect(self._deliver_error)
        # Daemon threads: a long poll in flight must never keep the application from quitting.
        self._threads = [
            threading.Thread(target=self._work_loop, name=f"ui-background-{number}", daemon=True)
            for number in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    @property
    def pending_count(self) -> int:
        """How many calls have not delivered their outcome yet."""
        return len(self._callbacks)

    def submit(
        self,
        call: Callable[[], T],
        on_done: Callable[[T], None],
        on_error: Callable[[Exception], None] | None = None,
    ) -> int:
        """Run `call` off the GUI thread; its result goes to `on_done`, an exception to `on_error`."""
        _check_bound_slot(on_done)
        if on_error is not None:
            _check_bound_slot(on_error)
        request_id = next(self._ids)
        self._callbacks[request_id] = (on_done, on_error)
        self._work.put((request_id, call))
        self.pending_changed.emit(len(self._callbacks))
        return request_id

    def shutdown(self, wait_seconds: float = 0.0) -> None:
        """Stop taking work; calls in flight are abandoned and their outcomes dropped.

        With `wait_seconds`, wait that long at most for the calls in flight to end, so the API client
        they use can be closed after them (a call still connecting would otherwise open a socket that
        the closed client never closes).
        """
        self._callbacks.clear()
        for _thread in self._threads:
            self._work.put(None)
        deadline = time.monotonic() + wait_seconds
        for thread in self._threads:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            thread.join(remaining)

    def _work_loop(self) -> None:
        while True:
            item = self._work.get()
            if item is None:
                return
            request_id, call = item
            try:
                result = call()
            except Exception as error:  # every failure goes back to the caller as data
                if shiboken6.isValid(self):
                    self._call_failed.emit(request_id, error)
                continue
            if shiboken6.isValid(self):
                self._call_finished.emit(request_id, result)

    def _take(self, request_id: int) -> tuple[Receiver, Receiver | None] | None:
        callbacks = self._callbacks.pop(request_id, None)
        self.pending_changed.emit(len(self._callbacks))
        return callbacks

    @Slot(int, object)
    def _deliver_result(self, request_id: int, result: object) -> None:
        callbacks = self._take(request_id)
        if callbacks is None:
            return
        on_done = callbacks[0]
        if shiboken6.isValid(getattr(on_done, "__self__", None)):
            started = time.perf_counter()
            on_done(result)
            elapsed = time.perf_counter() - started
            if elapsed > self.longest_delivery[0]:
                self.longest_delivery = (elapsed, getattr(on_done, "__qualname__", "?"))

    @Slot(int, object)
    def _deliver_error(self, request_id: int, error: object) -> None:
        callbacks = self._take(request_id)
        if callbacks is None:
            return
        on_error = callbacks[1]
        if on_error is None:
            log.warning("background call failed: %s", error)
            return
        if shiboken6.isValid(getattr(on_error, "__self__", None)):
            on_error(error)
