"""Placing an unattributed reply: link it to a recent message of that contact, or mark it a new topic."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.api.client import ApiClient, ApiError
from ui.api.resources import InboundMessage, OutboundMessage, Page, ThreadItem
from ui.presentation import short_time, status_mark
from ui.runner import BackgroundRunner
from ui.views.plain_text import plain_label

RECENT_MESSAGES = 20


def recent_outbound(api: ApiClient, conversation_id: int) -> list[OutboundMessage]:
    """Runs on a worker thread: the contact's most recent messages from us, newest first."""
    cursor: str | None = None
    found: list[OutboundMessage] = []
    while True:
        page: Page[ThreadItem] = api.thread(conversation_id, cursor=cursor, limit=1000)
        found.extend(item for item in page.items if isinstance(item, OutboundMessage))
        found = found[-RECENT_MESSAGES:]
        if page.next_cursor is None:
            return list(reversed(found))
        cursor = page.next_cursor


class LinkChooser(QWidget):
    """Picks a recent message for a reply, then links it (or marks a new topic) through the API."""

    # The reply was placed: its wamid and the message key (empty for a new topic).
    attributed = Signal(str, str)
    # Placing the reply failed: the reason in words.
    failed = Signal(str)

    def __init__(
        self, api: ApiClient | None, runner: BackgroundRunner | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._wamid: str | None = None
        self._messages: list[OutboundMessage] = []
        self._pending_key = ""
        self.message_box = QComboBox()
        self.message_box.setAccessibleName("Recent message to link to")
        self.message_box.setMinimumWidth(320)
        self.link_button = QPushButton("Link to this message")
        self.link_button.setAccessibleName("Link to the chosen message")
        self.link_button.setObjectName("primary")
        self.link_button.clicked.connect(self.link)
        self.new_topic_button = QPushButton("Mark as new topic")
        self.new_topic_button.setAccessibleName("Mark as new topic")
        self.new_topic_button.clicked.connect(self.mark_new_topic)
        self.status_label = plain_label("")
        self.status_label.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.link_button)
        buttons.addWidget(self.new_topic_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(plain_label("Recent messages to this customer"))
        layout.addWidget(self.message_box)
        layout.addLayout(buttons)
        layout.addWidget(self.status_label)
        self.show_reply(None, None)

    @property
    def messages(self) -> list[OutboundMessage]:
        """The messages offered, newest first."""
        return self._messages

    def show_reply(self, wamid: str | None, conversation_id: int | None) -> None:
        """Offer the recent messages of the reply's conversation."""
        self._wamid = wamid
        self._messages = []
        self.message_box.clear()
        self.status_label.clear()
        self._update_buttons()
        if wamid is not None and conversation_id is not None and self._api and self._runner:
            self.status_label.setText("Loading recent messages…")
            self._runner.submit(
                partial(recent_outbound, self._api, conversation_id), self._on_messages, self._on_failed
            )

    def _on_messages(self, messages: list[OutboundMessage]) -> None:
        self._messages = messages
        self.message_box.clear()
        now = datetime.now(UTC)
        for message in messages:
            mark = status_mark(message.state).mark
            self.message_box.addItem(
                f"{short_time(message.created_at, now)}  {mark}  {message.body or message.purpose}"
            )
        self.status_label.setText(
            "" if messages else "No recent messages to this customer: mark it as a new topic."
        )
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.link_button.setEnabled(self._wamid is not None and bool(self._messages))
        self.new_topic_button.setEnabled(self._wamid is not None)

    def link(self) -> None:
        """Link the reply to the chosen message."""
        row = self.message_box.currentIndex()
        if self._wamid is None or not 0 <= row < len(self._messages) or not self._api or not self._runner:
            return
        self._pending_key = self._messages[row].key
        call = partial(self._api.attribute, self._wamid, message_key=self._pending_key)
        self._submit(call)

    def mark_new_topic(self) -> None:
        """File the reply as the start of a new topic."""
        if self._wamid is None or not self._api or not self._runner:
            return
        self._pending_key = ""
        self._submit(partial(self._api.attribute, self._wamid, new_topic=True))

    def _submit(self, call: partial[InboundMessage]) -> None:
        assert self._runner is not None
        self.link_button.setEnabled(False)
        self.new_topic_button.setEnabled(False)
        self.status_label.setText("Saving…")
        self._runner.submit(call, self._on_attributed, self._on_failed)

    def _on_attributed(self, _reply: InboundMessage) -> None:
        wamid = self._wamid or ""
        self.status_label.setText("Linked." if self._pending_key else "Marked as a new topic.")
        self._wamid = None
        self._update_buttons()
        self.attributed.emit(wamid, self._pending_key)

    def _on_failed(self, error: Exception) -> None:
        reason = error.message if isinstance(error, ApiError) else str(error)
        self.status_label.setText(reason)
        self._update_buttons()
        self.failed.emit(reason)


class LinkDialog(QDialog):
    """The dialog behind "Link to message…" in the thread."""

    def __init__(
        self,
        api: ApiClient | None,
        runner: BackgroundRunner | None,
        *,
        wamid: str,
        conversation_id: int,
        reply_text: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Link reply to a message")
        self.chooser = LinkChooser(api, runner, self)
        self.chooser.attributed.connect(self.accept)
        quote = plain_label(f"“{reply_text}”")
        quote.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(quote)
        layout.addWidget(self.chooser)
        layout.addWidget(buttons)
        self.chooser.show_reply(wamid, conversation_id)
