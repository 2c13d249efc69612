"""The work-queue tab: replies nobody could place, to link to a message or mark as a new topic."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtWidgets import QGroupBox, QListView, QSplitter, QVBoxLayout, QWidget

from ui.api.client import ApiClient
from ui.api.resources import WorkItem
from ui.i18n import translate
from ui.models.paged import ItemRole
from ui.models.work_queue import WorkQueueModel
from ui.presentation import short_time
from ui.runner import BackgroundRunner
from ui.views.linking import LinkChooser
from ui.views.plain_text import plain_label


class WorkQueueView(QWidget):
    """The list of unattributed replies and the chooser that places the selected one."""

    # The number shown in the tab title changed: the text to show.
    count_changed = Signal(str)
    # A reply was placed: its wamid, its conversation and the message key (empty for a new topic).
    reply_placed = Signal(str, int, str)

    def __init__(
        self, api: ApiClient | None, runner: BackgroundRunner | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._selected: WorkItem | None = None
        self.model = WorkQueueModel(api, runner, self)
        self.model.count_changed.connect(self._count_changed)
        self.list_view = QListView()
        self.list_view.setAccessibleName(translate("WorkQueueView", "Unattributed replies"))
        self.list_view.setModel(self.model)
        self.list_view.setAlternatingRowColors(True)
        self.list_view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.model.modelReset.connect(self._nothing_selected)

        self.reply_label = plain_label(translate("WorkQueueView", "Select a reply on the left."))
        self.reply_label.setObjectName("quote")
        self.reply_label.setWordWrap(True)
        self.from_label = plain_label("")
        self.chooser = LinkChooser(api, runner)
        self.chooser.attributed.connect(self._placed)
        detail_box = QGroupBox(translate("WorkQueueView", "Reply"))
        detail_layout = QVBoxLayout(detail_box)
        detail_layout.addWidget(self.from_label)
        detail_layout.addWidget(self.reply_label)
        detail_layout.addSpacing(12)
        detail_layout.addWidget(self.chooser)
        detail_layout.addStretch(1)
        explanation = plain_label(
            translate(
                "WorkQueueView",
                "These replies quote none of our messages and came after messages nobody answered yet, "
                "so nobody knows which one they answer. Link each to the message it answers (the newest "
                "is chosen), or mark it as a new topic.",
            )
        )
        explanation.setWordWrap(True)
        explanation.setObjectName("hint")
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addWidget(explanation)
        left_layout.addWidget(self.list_view, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(detail_box)
        splitter.setSizes([520, 680])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

    def start(self) -> None:
        """Load the queue."""
        self.model.start()

    def refresh(self) -> None:
        """Load the queue again (a reply arrived or was placed elsewhere)."""
        self.model.refresh()

    def _count_changed(self) -> None:
        self.count_changed.emit(self.model.count_text())

    def _nothing_selected(self) -> None:
        # After a reload the same entry is selected again if it is still there.
        if self._selected is None or not self.select_wamid(self._selected.wamid):
            self._show(None)

    def _selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        item = indexes[0].data(ItemRole) if indexes else None
        if isinstance(item, WorkItem) and self._selected is not None and item.wamid == self._selected.wamid:
            return  # the same reply, selected again after a reload
        self._show(item if isinstance(item, WorkItem) else None)

    def select_wamid(self, wamid: str) -> bool:
        """Select a reply by wamid; False when it is not loaded."""
        row = self.model.row_of(wamid)
        if row is None:
            return False
        self.list_view.setCurrentIndex(self.model.index(row, 0))
        return True

    def _show(self, item: WorkItem | None) -> None:
        self._selected = item
        if item is None:
            self.reply_label.setText(translate("WorkQueueView", "Select a reply on the left."))
            self.from_label.setText("")
            self.chooser.show_reply(None, None)
            return
        when = short_time(item.received_at, datetime.now(UTC))
        self.from_label.setText(
            translate("WorkQueueView", "From {sender} at {time}").format(
                sender=item.sender or translate("WorkQueueView", "customer"), time=when
            )
        )
        self.reply_label.setText(f"“{item.text or translate('WorkQueueView', '(no text)')}”")
        self.chooser.show_reply(item.wamid, item.conversation_id, item.candidates)

    def _placed(self, wamid: str, key: str) -> None:
        conversation_id = self._selected.conversation_id if self._selected else 0
        self.model.remove_key(wamid)
        self.reply_placed.emit(wamid, conversation_id, key)
