"""The supervisor tab: unknown, stuck and held sends, with evidence, and the decision about each."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QListView,
    QListWidget,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ui.api.client import ApiClient, ApiError
from ui.api.resources import Conversation, MessageStatus, SupervisorItem
from ui.i18n import QT_TRANSLATE_NOOP, translate
from ui.models.paged import ItemRole
from ui.models.supervisor import SupervisorQueueModel
from ui.presentation import age_text, evidence_text, plain_error, queue_reason_text, state_name, status_mark
from ui.runner import BackgroundRunner
from ui.views.plain_text import plain_label, plain_message_box


def confirmation_text(action: str, customer: str, state: str) -> tuple[str, str]:
    """The title and text that name the customer and the duplicate risk of a decision."""
    if action == "resend":
        risk = (
            translate(
                "SupervisorView",
                "If the first attempt did reach {customer}, they will get this message twice.",
            )
            if state != "held"
            else translate("SupervisorView", "{customer} has not received it: it was held, not sent.")
        ).format(customer=customer)
        question = translate("SupervisorView", "Send this message to {customer} again?").format(
            customer=customer
        )
        return translate("SupervisorView", "Resend?"), f"{question}\n\n{risk}"
    if action == "mark_sent":
        return (
            translate("SupervisorView", "Mark as sent?"),
            translate(
                "SupervisorView",
                "Record the message to {customer} as sent, without sending anything?\n\n"
                "Choose this only if you know {customer} received it; otherwise they will never get it.",
            ).format(customer=customer),
        )
    return (
        translate("SupervisorView", "Cancel the message?"),
        translate(
            "SupervisorView",
            "Cancel the message to {customer}? It will not be sent again.\n\n"
            "If an earlier attempt reached {customer}, they keep that one copy.",
        ).format(customer=customer),
    )


class SupervisorView(QWidget):
    """The supervisor queue with Mark sent / Resend / Cancel behind a confirmation."""

    # The queue's size changed: the text for the tab title.
    count_changed = Signal(str)
    # A decision was recorded: the message as it now is.
    resolved = Signal(object)
    # Something worth a line in the status bar happened.
    status_message = Signal(str)

    def __init__(
        self, api: ApiClient | None, runner: BackgroundRunner | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._selected: SupervisorItem | None = None
        self._customer_names: dict[int, str] = {}
        self._pending_action = ""
        self.confirmation: QMessageBox | None = None
        self.model = SupervisorQueueModel(api, runner, self)
        self.model.count_changed.connect(self._count_changed)
        self.model.modelReset.connect(self._nothing_selected)
        self.list_view = QListView()
        self.list_view.setAccessibleName(translate("SupervisorView", "Sends needing a decision"))
        self.list_view.setAlternatingRowColors(True)
        self.list_view.setModel(self.model)
        self.list_view.selectionModel().selectionChanged.connect(self._selection_changed)

        self.reason_label = plain_label(translate("SupervisorView", "Select a send on the left."))
        self.reason_label.setWordWrap(True)
        self.reason_label.setObjectName("reason")
        self.customer_label = plain_label("—")
        self.purpose_label = plain_label("—")
        self.state_label = plain_label("—")
        self.attempts_label = plain_label("—")
        self.age_label = plain_label("—")
        self.error_label = plain_label("—")
        self.error_label.setWordWrap(True)
        self.body_label = plain_label("—")
        self.body_label.setWordWrap(True)
        self.key_label = plain_label("—")
        self.key_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form = QFormLayout()
        for title, label in (
            (QT_TRANSLATE_NOOP("SupervisorView", "Customer"), self.customer_label),
            (QT_TRANSLATE_NOOP("SupervisorView", "Message"), self.body_label),
            (QT_TRANSLATE_NOOP("SupervisorView", "Purpose"), self.purpose_label),
            (QT_TRANSLATE_NOOP("SupervisorView", "State"), self.state_label),
            (QT_TRANSLATE_NOOP("SupervisorView", "Attempts"), self.attempts_label),
            (QT_TRANSLATE_NOOP("SupervisorView", "Age"), self.age_label),
            (QT_TRANSLATE_NOOP("SupervisorView", "Last error"), self.error_label),
            (QT_TRANSLATE_NOOP("SupervisorView", "Key"), self.key_label),
        ):
            form.addRow(plain_label(translate("SupervisorView", title)), label)
        self.evidence_list = QListWidget()
        self.evidence_list.setAccessibleName(translate("SupervisorView", "Evidence"))
        self.mark_sent_button = QPushButton(translate("SupervisorView", "Mark sent"))
        self.mark_sent_button.setAccessibleName(translate("SupervisorView", "Mark sent"))
        self.resend_button = QPushButton(translate("SupervisorView", "Resend"))
        self.resend_button.setAccessibleName(translate("SupervisorView", "Resend"))
        self.cancel_button = QPushButton(translate("SupervisorView", "Cancel send"))
        self.cancel_button.setAccessibleName(translate("SupervisorView", "Cancel send"))
        self.cancel_button.setObjectName("danger")
        self.mark_sent_button.clicked.connect(self._mark_sent_clicked)
        self.resend_button.clicked.connect(self._resend_clicked)
        self.cancel_button.clicked.connect(self._cancel_clicked)
        buttons = QHBoxLayout()
        buttons.addWidget(self.mark_sent_button)
        buttons.addWidget(self.resend_button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        detail_box = QGroupBox(translate("SupervisorView", "Send"))
        detail_layout = QVBoxLayout(detail_box)
        detail_layout.addWidget(self.reason_label)
        detail_layout.addLayout(form)
        detail_layout.addWidget(plain_label(translate("SupervisorView", "Evidence")))
        detail_layout.addWidget(self.evidence_list, 1)
        detail_layout.addLayout(buttons)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.list_view)
        splitter.addWidget(detail_box)
        splitter.setSizes([500, 700])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self._show(None)

    def start(self) -> None:
        """Load the queue."""
        self.model.start()

    def refresh(self) -> None:
        """Load the queue again."""
        self.model.refresh()

    def _count_changed(self) -> None:
        count = len(self.model.items)
        self.count_changed.emit(f"{count}+" if self.model.has_more else str(count))

    def _nothing_selected(self) -> None:
        # After a reload the same entry is selected again if it is still there.
        if self._selected is None or not self.select_key(self._selected.key):
            self._show(None)

    def _selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        item = indexes[0].data(ItemRole) if indexes else None
        self._show(item if isinstance(item, SupervisorItem) else None)

    def select_key(self, key: str) -> bool:
        """Select a send by key; False when it is not loaded."""
        row = self.model.row_of(key)
        if row is None:
            return False
        self.list_view.setCurrentIndex(self.model.index(row, 0))
        return True

    def customer_name(self, item: SupervisorItem) -> str:
        """The customer's name when known, else their number."""
        if item.conversation_id is not None and item.conversation_id in self._customer_names:
            return self._customer_names[item.conversation_id]
        return item.contact_name or item.to or translate("SupervisorView", "the customer")

    def _show(self, item: SupervisorItem | None) -> None:
        self._selected = item
        for button in (self.mark_sent_button, self.resend_button, self.cancel_button):
            button.setEnabled(item is not None)
        self.evidence_list.clear()
        if item is None:
            self.reason_label.setText(translate("SupervisorView", "Select a send on the left."))
            for label in (
                self.customer_label,
                self.purpose_label,
                self.state_label,
                self.attempts_label,
                self.age_label,
                self.error_label,
                self.key_label,
                self.body_label,
            ):
                label.setText("—")
            return
        self.reason_label.setText(queue_reason_text(item.reason))
        self.customer_label.setText(self.customer_name(item))
        self.purpose_label.setText(item.purpose or "—")
        mark = status_mark(item.state)
        self.state_label.setText(f"{mark.mark} {mark.label}")
        self.attempts_label.setText(str(item.attempts))
        self.age_label.setText(age_text(item.age(datetime.now(UTC))))
        self.body_label.setText(item.body or "—")
        self.error_label.setText(plain_error(item.error) or "—")
        self.key_label.setText(item.key)
        if item.evidence:
            self.evidence_list.addItems([evidence_text(evidence) for evidence in item.evidence])
        else:
            self.evidence_list.addItem(
                translate("SupervisorView", "No status from WhatsApp for this send yet.")
            )
        if (
            item.conversation_id is not None
            and item.conversation_id not in self._customer_names
            and self._api
            and self._runner
        ):
            self._runner.submit(partial(self._api.conversation, item.conversation_id), self._on_conversation)

    def _on_conversation(self, conversation: Conversation) -> None:
        contact = conversation.contact
        name = (
            f"{contact.name} ({contact.number})" if contact.name and contact.number else contact.display_name
        )
        self._customer_names[conversation.id] = name
        if self._selected is not None and self._selected.conversation_id == conversation.id:
            self.customer_label.setText(name)

    def _mark_sent_clicked(self) -> None:
        self.ask("mark_sent")

    def _resend_clicked(self) -> None:
        self.ask("resend")

    def _cancel_clicked(self) -> None:
        self.ask("cancel")

    def ask(self, action: str) -> None:
        """Open the confirmation for a decision on the selected send."""
        if self._selected is None:
            return
        self._pending_action = action
        title, text = confirmation_text(action, self.customer_name(self._selected), self._selected.state)
        self.confirmation = plain_message_box(QMessageBox.Icon.Warning, title, text, parent=self)
        self.confirmation.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        self.confirmation.setDefaultButton(QMessageBox.StandardButton.No)
        self.confirmation.finished.connect(self._confirmation_finished)
        self.confirmation.open()

    def _confirmation_finished(self, result: int) -> None:
        if result != QMessageBox.StandardButton.Yes or self._selected is None:
            return
        if self._api is None or self._runner is None:
            return
        call = partial(self._api.resolve, self._selected.key, self._pending_action)
        self._runner.submit(call, self._on_resolved, self._on_failed)

    def _on_resolved(self, message: MessageStatus) -> None:
        self.model.remove_key(message.key)
        self.status_message.emit(
            translate("SupervisorView", "Recorded: {key} is now {state}.").format(
                key=message.key, state=state_name(message.state)
            )
        )
        self.resolved.emit(message)
        self.refresh()

    def _on_failed(self, error: Exception) -> None:
        self.status_message.emit(error.message if isinstance(error, ApiError) else str(error))
        self.refresh()
