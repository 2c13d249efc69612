"""The composer: free text while the customer's window is open, a template picker once it is closed."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from functools import partial

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.api.client import ApiClient, ApiError
from ui.api.resources import MessageStatus, TemplateInfo
from ui.runner import BackgroundRunner
from ui.views.plain_text import plain_label

CLOSED_WINDOW_TEXT = (
    "The customer's 24-hour window is closed: free text cannot be sent. Pick a template below to reopen it."
)


class Composer(QWidget):
    """Writes replies; one Idempotency-Key per draft, so a double click sends once."""

    # A reply was accepted by the backend: the message as it answered.
    reply_sent = Signal(object)
    # A reply was refused or could not be sent: the reason in words.
    reply_failed = Signal(str)

    def __init__(
        self, api: ApiClient | None, runner: BackgroundRunner | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._conversation_id: int | None = None
        self._closes_at: datetime | None = None
        self._templates: list[TemplateInfo] = []
        self._draft_key = self._new_key()
        self._key_used = False
        self._sending = False
        self.setObjectName("composer")

        self.text_box = QPlainTextEdit()
        self.text_box.setAccessibleName("Reply text")
        self.text_box.setPlaceholderText("Write a reply…  (Ctrl+Enter sends)")
        self.text_box.setMaximumHeight(80)
        self.text_box.textChanged.connect(self._draft_changed)
        self.send_button = QPushButton("Send")
        self.send_button.setAccessibleName("Send reply")
        self.send_button.setObjectName("primary")
        self.send_button.clicked.connect(self.send)
        self.status_label = plain_label("")
        self.status_label.setObjectName("composerStatus")
        self.status_label.setWordWrap(True)

        self.template_box = QComboBox()
        self.template_box.setAccessibleName("Template")
        self.template_box.currentIndexChanged.connect(self._template_chosen)
        self.parameter_form = QFormLayout()
        self.parameter_fields: list[QLineEdit] = []
        self.preview = plain_label("")
        self.preview.setObjectName("templatePreview")
        self.preview.setWordWrap(True)
        self.preview.setAccessibleName("Template preview")
        self.send_template_button = QPushButton("Send template")
        self.send_template_button.setAccessibleName("Send template")
        self.send_template_button.setObjectName("primary")
        self.send_template_button.clicked.connect(self.send)

        template_page = QWidget()
        template_layout = QVBoxLayout(template_page)
        template_layout.setContentsMargins(0, 0, 0, 0)
        picker_row = QHBoxLayout()
        picker_row.addWidget(plain_label("Template"))
        picker_row.addWidget(self.template_box, 1)
        template_layout.addLayout(picker_row)
        template_layout.addLayout(self.parameter_form)
        template_layout.addWidget(self.preview)
        template_row = QHBoxLayout()
        template_row.addStretch(1)
        template_row.addWidget(self.send_template_button)
        template_layout.addLayout(template_row)
        self.template_page = template_page
        text_row = QHBoxLayout()
        text_row.addWidget(self.text_box, 1)
        text_row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        self._showing_templates = False

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 8)
        layout.addLayout(text_row)
        layout.addWidget(self.template_page)
        layout.addWidget(self.status_label)

        for sequence in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut = QShortcut(QKeySequence(sequence), self.text_box)
            shortcut.activated.connect(self.send)
        # The window can close while the agent types: look once a second.
        self._clock = QTimer(self)
        self._clock.setInterval(1000)
        self._clock.timeout.connect(self._check_window)
        self._clock.start()
        self._apply_window()

    @staticmethod
    def _new_key() -> str:
        return f"ui-{uuid.uuid4()}"

    @property
    def draft_key(self) -> str:
        """The Idempotency-Key the current draft is sent under."""
        return self._draft_key

    @property
    def window_open(self) -> bool:
        """Whether free text may be sent now."""
        return self._closes_at is not None and self._closes_at > datetime.now(UTC)

    @property
    def showing_templates(self) -> bool:
        """Whether the template picker is shown instead of free text."""
        return self._showing_templates

    def set_templates(self, templates: list[TemplateInfo]) -> None:
        """The templates the picker offers."""
        self._templates = list(templates)
        self.template_box.blockSignals(True)
        self.template_box.clear()
        for template in self._templates:
            self.template_box.addItem(f"{template.name} ({template.language})")
        self.template_box.blockSignals(False)
        self._template_chosen(self.template_box.currentIndex())

    def set_conversation(self, conversation_id: int | None, closes_at: datetime | None) -> None:
        """Write in another conversation; its window decides between text and templates."""
        if conversation_id != self._conversation_id:
            self.text_box.clear()
            self._start_new_draft()
            self.status_label.clear()
        self._conversation_id = conversation_id
        self._closes_at = closes_at
        self._apply_window()

    def set_window(self, closes_at: datetime | None) -> None:
        """The selected conversation's window moved (a reply reopened it, or it closed)."""
        self._closes_at = closes_at
        self._apply_window()

    def _check_window(self) -> None:
        if self.showing_templates == self.window_open:
            self._apply_window()

    def _apply_window(self) -> None:
        enabled = self._conversation_id is not None
        is_open = self.window_open
        self.text_box.setReadOnly(not is_open)
        self.text_box.setEnabled(enabled and is_open)
        self.text_box.setPlaceholderText(
            "Write a reply…  (Ctrl+Enter sends)" if is_open or not enabled else CLOSED_WINDOW_TEXT
        )
        if not is_open and enabled and self.text_box.toPlainText():
            self.status_label.setText(CLOSED_WINDOW_TEXT)
        self._showing_templates = enabled and not is_open
        self.template_page.setVisible(self._showing_templates)
        self.send_button.setEnabled(enabled and is_open and not self._sending)
        self.send_template_button.setEnabled(enabled and not self._sending and bool(self._templates))

    def _template_chosen(self, row: int) -> None:
        while self.parameter_form.rowCount():
            self.parameter_form.removeRow(0)
        self.parameter_fields = []
        template = self._templates[row] if 0 <= row < len(self._templates) else None
        if template is not None:
            for name in template.parameters:
                field = QLineEdit()
                field.setAccessibleName(f"Template value: {name}")
                field.setPlaceholderText(name)
                field.textChanged.connect(self._update_preview)
                self.parameter_form.addRow(plain_label(name.capitalize()), field)
                self.parameter_fields.append(field)
        self._draft_changed()
        self._update_preview()

    def _update_preview(self) -> None:
        template = self._current_template()
        if template is None:
            self.preview.setText("")
            return
        preview = template.render([field.text().strip() for field in self.parameter_fields])
        buttons = "".join(f"   [{title}]" for title in template.buttons)
        self.preview.setText(f"{preview}{buttons}")
        self._draft_changed()

    def _current_template(self) -> TemplateInfo | None:
        row = self.template_box.currentIndex()
        return self._templates[row] if 0 <= row < len(self._templates) else None

    def _draft_changed(self) -> None:
        # A key covers one exact body: once used, any edit starts a new draft with a new key.
        if self._key_used and not self._sending:
            self._start_new_draft()

    def _start_new_draft(self) -> None:
        self._draft_key = self._new_key()
        self._key_used = False

    def send(self) -> None:
        """Send the draft: text while the window is open, else the chosen template."""
        if self._api is None or self._runner is None or self._conversation_id is None or self._sending:
            return
        if self.window_open and not self.showing_templates:
            text = self.text_box.toPlainText().strip()
            if not text:
                return
            call = partial(self._api.reply, self._conversation_id, self._draft_key, text=text)
        else:
            template = self._current_template()
            if template is None:
                return
            values = [field.text().strip() for field in self.parameter_fields]
            if any(not value for value in values):
                self.status_label.setText("Fill in every template value first.")
                return
            payload = {"name": template.name, "language": template.language, "parameters": values}
            call = partial(self._api.reply, self._conversation_id, self._draft_key, template=payload)
        self._sending = True
        self._key_used = True
        self.status_label.setText("Sending…")
        self._apply_window()
        self._runner.submit(call, self._on_sent, self._on_failed)

    def _on_sent(self, message: MessageStatus) -> None:
        self._sending = False
        self.status_label.setText(
            "Queued." if message.state == "queued" else f"{message.state.capitalize()}."
        )
        self.text_box.clear()
        for field in self.parameter_fields:
            field.clear()
        self._start_new_draft()
        self._apply_window()
        self.reply_sent.emit(message)

    def _on_failed(self, error: Exception) -> None:
        self._sending = False
        if isinstance(error, ApiError) and error.code == "window_closed":
            self._closes_at = None
            reason = CLOSED_WINDOW_TEXT
        elif isinstance(error, ApiError):
            reason = error.message
        else:
            reason = str(error)
        self.status_label.setText(reason)
        self._apply_window()
        self.reply_failed.emit(reason)
