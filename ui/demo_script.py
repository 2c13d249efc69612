"""What the demo does on screen: pick the tab and a row to show, then save a screenshot and quit."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

from ui.app import save_screenshot
from ui.views.main_window import MainWindow

PREPARE_BEFORE_MS = 2500


class ScreenshotPlan(QObject):
    """Shows a tab with something selected, and (when given a file) saves the window after N seconds."""

    def __init__(
        self,
        window: MainWindow,
        path: Path | None,
        tab: str,
        seconds: float,
        *,
        showcase_number: str | None = None,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._path = path
        self._tab = tab
        self._seconds = seconds
        self._showcase_number = showcase_number
        self.saved = False

    def start(self) -> None:
        """Arm the timers."""
        total_ms = int(self._seconds * 1000)
        QTimer.singleShot(max(0, total_ms - PREPARE_BEFORE_MS), self._prepare)
        if self._path is not None:
            QTimer.singleShot(total_ms, self._save)

    def _prepare(self) -> None:
        window = self._window
        window.show_tab(self._tab)
        if self._tab == "inbox":
            model = window.inbox.conversations
            showcase = [
                row
                for row, item in enumerate(model.items)
                if self._showcase_number is not None and item.contact.number == self._showcase_number
            ]
            # Else the conversation with the most going on makes the best first view.
            best = max(range(len(model.items)), key=lambda row: model.items[row].unread, default=None)
            chosen = showcase[0] if showcase else best
            if chosen is not None:
                window.inbox.select_conversation_id(model.items[chosen].id)
                QTimer.singleShot(PREPARE_BEFORE_MS // 2, self._select_newest_message)
        elif self._tab == "work-queue" and window.work_queue.model.items:
            # The real doubt: the reply with the most messages it may answer.
            items = window.work_queue.model.items
            window.work_queue.select_wamid(max(items, key=lambda item: len(item.candidates)).wamid)
        elif self._tab == "supervisor" and window.supervisor.model.items:
            window.supervisor.select_key(window.supervisor.model.items[0].key)
        elif self._tab == "health":
            window.health.refresh_metrics()

    def _select_newest_message(self) -> None:
        inbox = self._window.inbox
        keys = inbox.outbound_keys()
        if keys:
            inbox.thread_view.setCurrentIndex(inbox.thread_model.index_of_key(keys[-1]))

    def _save(self) -> None:
        assert self._path is not None
        window = self._window
        if self._tab == "health":
            window.health.redraw()
        window.repaint()
        QApplication.processEvents()
        save_screenshot(window, self._path)
        self.saved = True
        window.close()
        QApplication.quit()
