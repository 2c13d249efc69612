"""Cyclic garbage is collected on the GUI thread, from a timer, never on a backend thread."""

from __future__ import annotations

import gc
import threading
from typing import Any

from PySide6.QtWidgets import QApplication

from ui.garbage import GuiThreadGarbageCollector


class _Cycle:
    """An object that refers to itself, so only the cyclic collector can free it."""

    def __init__(self, freed_on: list[threading.Thread]) -> None:
        self.itself = self
        self.freed_on = freed_on

    def __del__(self) -> None:
        self.freed_on.append(threading.current_thread())


def test_cycles_are_freed_by_the_timer_on_the_gui_thread(qtbot: Any, qapp: QApplication) -> None:
    collector = GuiThreadGarbageCollector(qapp, interval_ms=10)
    freed_on: list[threading.Thread] = []
    try:
        assert not gc.isenabled()
        worker = threading.Thread(target=lambda: [_Cycle(freed_on) for _ in range(2000)])
        worker.start()
        worker.join()
        assert freed_on == []  # nothing collects on the thread that made the garbage
        qtbot.waitUntil(lambda: len(freed_on) == 2000, timeout=5000)
        assert {thread.name for thread in freed_on} == {threading.main_thread().name}
    finally:
        collector.stop()
