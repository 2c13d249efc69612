"""Python's cyclic garbage collection run on the GUI thread only, on a timer.

Left automatic, a collection starts on whichever thread happens to allocate: a server or
runner thread can then destroy a Qt object that belongs to the GUI thread, and Qt crashes.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

DEFAULT_INTERVAL_MS = 500


class GuiThreadGarbageCollector(QObject):
    """Turns automatic collection off and collects from a GUI-thread timer instead."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = DEFAULT_INTERVAL_MS) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect)
        self._timer.start()

    def collect(self) -> None:
        """Collect the generations whose thresholds were passed, as automatic collection would."""
        young, middle, old = gc.get_count()
        young_limit, middle_limit, old_limit = gc.get_threshold()
        if old > old_limit:
            gc.collect(2)
        elif middle > middle_limit:
            gc.collect(1)
        elif young > young_limit:
            gc.collect(0)

    def stop(self) -> None:
        """Stop the timer, collect once more here, and give collection back to Python."""
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()
