"""Placing a reply nobody could place: link it to a message it may answer, or mark it a new topic."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import TypeVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.api.client import ApiClient, ApiError
from ui.api.resources import Candidate, InboundMessage, OutboundMessage
from ui.i18n import QT_TRANSLATE_NOOP, translate
from ui.presentation import short_time, status_mark, tooltip_text
from ui.runner import BackgroundRunner
from ui.views.plain_text import plain_label

T = TypeVar("T")

RECENT_MESSAGES = 20
CANDIDATES_HEADING = QT_TRANSLATE_NOOP("LinkChooser", "The messages it may answer, newest first")
RECENT_HEADING = QT_TRANSLATE_NOOP("LinkChooser", "Recent messages to this customer")


@dataclass(frozen=True)
class LinkOption:
    """One of our messages a reply can be linked to."""

    key: str
    purpose: str
    body: str
    sent_at: datetime | None
    # The delivery mark (✓✓…) when the state is known.
    mark: str = ""

    @classmethod
    def from_candidate(cls, candidate: Candidate) -> LinkOption:
        """A business message the backend names as a candidate."""
        return cls(candidate.key, candidate.purpose, candidate.body, candidate.sent_at)

    @classmethod
    def from_message(cls, message: OutboundMessage) -> LinkOption:
        """A message found in the conversation's thread."""
        mark = status_mark(message.state).mark
        return cls(message.key, message.purpose, message.body, message.created_at, mark)

    def text(self, now: datetime) -> str:
        """Two plain lines: what kind of message and when, then what it said."""
        when = (
            translate("LinkChooser", "sent {time}").format(time=short_time(self.sent_at, now))
            if self.sent_at
            else translate("LinkChooser", "not sent yet")
        )
        heading = " · ".join(part for part in (purpose_text(self.purpose), when, self.mark) if part)
        return f"{heading}\n{self.body or translate('LinkChooser', '(no text)')}"


def purpose_text(purpose: str) -> str:
    """A message's purpose as words: "appointment_reminder" → "Appointment reminder"."""
    words = purpose.replace("_", " ").replace("-", " ").strip()
    return words[:1].upper() + words[1:]


def recent_outbound(api: ApiClient, conversation_id: int) -> list[LinkOption]:
    """Runs on a worker thread: the contact's most recent messages from us, newest first."""
    cursor: str | None = None
    found: list[OutboundMessage] = []
    while True:
        page = api.thread(conversation_id, cursor=cursor, limit=1000)
        found.extend(item for item in page.items if isinstance(item, OutboundMessage))
        found = found[-RECENT_MESSAGES:]
        if page.next_cursor is None:
            return [LinkOption.from_message(message) for message in reversed(found)]
        cursor = page.next_cursor


class LinkChooser(QWidget):
    """Offers the messages a reply may answer (the newest chosen), then links it or marks a new topic."""

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
        self._messages: list[LinkOption] = []
        self._pending_key = ""
        # Counts the replies shown, so recent messages loaded for an earlier one are dropped.
        self._generation = 0
        self.heading = plain_label(translate("LinkChooser", RECENT_HEADING))
        self.message_list = QListWidget()
        self.message_list.setAccessibleName(translate("LinkChooser", "Message to link to"))
        self.message_list.setMinimumWidth(320)
        self.message_list.setAlternatingRowColors(True)
        self.message_list.currentRowChanged.connect(self._update_buttons)
        self.link_button = QPushButton(translate("LinkChooser", "Link to this message"))
        self.link_button.setAccessibleName(translate("LinkChooser", "Link to the chosen message"))
        self.link_button.setObjectName("primary")
        self.link_button.clicked.connect(self.link)
        self.new_topic_button = QPushButton(translate("LinkChooser", "Mark as new topic"))
        self.new_topic_button.setAccessibleName(translate("LinkChooser", "Mark as new topic"))
        self.new_topic_button.clicked.connect(self.mark_new_topic)
        self.status_label = plain_label("")
        self.status_label.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.link_button)
        buttons.addWidget(self.new_topic_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.message_list, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status_label)
        self.show_reply(None, None)

    @property
    def messages(self) -> list[LinkOption]:
        """The messages offered, newest first."""
        return self._messages

    @property
    def chosen(self) -> LinkOption | None:
        """The message selected to link to."""
        row = self.message_list.currentRow()
        return self._messages[row] if 0 <= row < len(self._messages) else None

    def show_reply(
        self, wamid: str | None, conversation_id: int | None, candidates: Sequence[Candidate] = ()
    ) -> None:
        """Offer the reply's candidates; without any, the recent messages of its conversation."""
        self._generation += 1
        self._wamid = wamid
        self._show_options([])
        self.status_label.clear()
        if wamid is None:
            return
        if candidates:
            self.heading.setText(translate("LinkChooser", CANDIDATES_HEADING))
            self._show_options([LinkOption.from_candidate(candidate) for candidate in candidates])
            return
        self.heading.setText(translate("LinkChooser", RECENT_HEADING))
        if conversation_id is not None and self._api and self._runner:
            self.status_label.setText(translate("LinkChooser", "Loading recent messages…"))
            call = partial(_tagged, self._generation, partial(recent_outbound, self._api, conversation_id))
            self._runner.submit(call, self._on_messages, self._on_failed)

    def _on_messages(self, tagged: tuple[int, list[LinkOption]]) -> None:
        generation, messages = tagged
        if generation != self._generation:
            return
        self._show_options(messages)
        self.status_label.setText(
            ""
            if messages
            else translate("LinkPicker", "No recent messages to this customer: mark it as a new topic.")
        )

    def _show_options(self, options: list[LinkOption]) -> None:
        self._messages = options
        self.message_list.clear()
        now = datetime.now(UTC)
        for option in options:
            item = QListWidgetItem(option.text(now))
            item.setToolTip(tooltip_text(option.body))
            self.message_list.addItem(item)
        # The newest is the likeliest answer: chosen until the agent picks another.
        self.message_list.setCurrentRow(0 if options else -1)
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.link_button.setEnabled(self._wamid is not None and self.chosen is not None)
        self.new_topic_button.setEnabled(self._wamid is not None)

    def link(self) -> None:
        """Link the reply to the chosen message."""
        chosen = self.chosen
        if self._wamid is None or chosen is None or not self._api or not self._runner:
            return
        self._pending_key = chosen.key
        self._submit(partial(self._api.attribute, self._wamid, message_key=chosen.key))

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
        self.status_label.setText(translate("LinkChooser", "Saving…"))
        self._runner.submit(call, self._on_attributed, self._on_failed)

    def _on_attributed(self, _reply: InboundMessage) -> None:
        wamid = self._wamid or ""
        self.status_label.setText(
            translate("LinkPicker", "Linked.")
            if self._pending_key
            else translate("LinkPicker", "Marked as a new topic.")
        )
        self._wamid = None
        self._update_buttons()
        self.attributed.emit(wamid, self._pending_key)

    def _on_failed(self, error: Exception) -> None:
        reason = error.message if isinstance(error, ApiError) else str(error)
        self.status_label.setText(reason)
        self._update_buttons()
        self.failed.emit(reason)


def _tagged(generation: int, call: Callable[[], T]) -> tuple[int, T]:
    """Runs on a worker thread: a result tagged with the generation that asked for it."""
    return generation, call()


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
        self.setWindowTitle(translate("LinkDialog", "Link reply to a message"))
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
