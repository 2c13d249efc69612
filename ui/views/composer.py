"""The composer: free text while the window is open, templates once it is closed, and internal notes."""

from __future__ import annotations

import mimetypes
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMimeData, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QImage, QKeySequence, QShortcut, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.api.client import ApiClient, ApiError, ConversationChangedError
from ui.api.resources import ColleagueMessage, MessageStatus, Note, TemplateInfo, UploadedMedia
from ui.i18n import QT_TRANSLATE_NOOP, translate
from ui.presentation import short_time, size_text, status_mark, template_unavailable_reason, window_text
from ui.runner import BackgroundRunner
from ui.theme import themed_stylesheet
from ui.views.canned import CannedReplyProvider, attach_canned_picker
from ui.views.plain_text import plain_label, plain_message_box

CLOSED_WINDOW_TEXT = QT_TRANSLATE_NOOP(
    "Composer",
    "The customer's 24-hour window is closed: free text cannot be sent. Pick a template below to reopen it.",
)
REPLY_PLACEHOLDER = QT_TRANSLATE_NOOP("Composer", "Write a reply…  (Ctrl+Enter sends)")
NOTE_PLACEHOLDER = QT_TRANSLATE_NOOP(
    "Composer", "Write an internal note for the team; the customer never sees it…  (Ctrl+Enter adds it)"
)
NOTE_SHORTCUT = "Ctrl+Shift+N"
# The note box looks like the notes in the thread, so nobody mistakes it for a reply.
NOTE_STYLE = "QPlainTextEdit { background: #fef9c3; border: 1px solid #ca8a04; }"
URGENT_STYLE = "color: #b91c1c; font-weight: bold;"
MUTED_STYLE = "color: #4b5563;"
REPLY_MODE, NOTE_MODE = 0, 1
SEND_ANYWAY = QT_TRANSLATE_NOOP("Composer", "Send anyway")


def colleague_text(messages: list[ColleagueMessage]) -> str:
    """What colleagues sent meanwhile, one line each, for the send-anyway question."""
    now = datetime.now(UTC)
    lines = []
    for message in messages:
        author = message.created_by or translate("Composer", "Another system")
        lines.append(f"{short_time(message.created_at, now)}  {author}: {message.body}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Attachment:
    """A file the agent attached to the draft: its name, bytes and MIME type."""

    name: str
    content: bytes
    mime_type: str

    @property
    def kind(self) -> str:
        """How it is sent: image (jpeg, png), audio, video, or else a document."""
        if self.mime_type in ("image/jpeg", "image/png"):
            return "image"
        for kind in ("audio", "video"):
            if self.mime_type.startswith(kind + "/"):
                return kind
        return "document"

    def describe(self) -> str:
        """`Attached: invoice.pdf · 12 KB`."""
        size = len(self.content)
        return translate("Composer", "Attached: {name}  ·  {size}").format(
            name=self.name, size=size_text(size)
        )


def read_attachment(path: Path) -> Attachment:
    """A file from disk as an attachment (read off the GUI thread)."""
    mime_type, _ = mimetypes.guess_type(path.name)
    return Attachment(path.name, path.read_bytes(), mime_type or "application/octet-stream")


def image_attachment(image: QImage) -> Attachment:
    """A pasted picture as a PNG attachment."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stub says bytes; PySide6 takes str
    buffer.close()
    return Attachment("pasted-image.png", bytes(data.data()), "image/png")


def choose_file(parent: QWidget | None) -> Path | None:
    """Ask which file to attach (the platform's open dialog)."""
    chosen, _ = QFileDialog.getOpenFileName(parent, translate("Composer", "Attach a file"))
    return Path(chosen) if chosen else None


class ComposerTextBox(QPlainTextEdit):
    """The draft's text box: a pasted picture or dropped files become attachments, not text."""

    # A picture was pasted (a QImage).
    image_pasted = Signal(object)
    # Files were dropped or pasted: their local paths.
    files_dropped = Signal(list)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        """Pictures and files are welcome besides text."""
        return source.hasImage() or source.hasUrls() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """A picture or local files are attached; anything else is pasted as plain text."""
        if source.hasImage():
            image = source.imageData()
            if isinstance(image, QImage) and not image.isNull():
                self.image_pasted.emit(image)
                return
        paths = [Path(url.toLocalFile()) for url in source.urls() if url.isLocalFile()]
        if paths:
            self.files_dropped.emit(paths)
            return
        super().insertFromMimeData(source)


class Composer(QWidget):
    """Writes replies and notes; one Idempotency-Key per draft, so a double click sends once."""

    # A reply was accepted by the backend: the message as it answered.
    reply_sent = Signal(object)
    # Bytes of an attachment's upload sent so far, and in all (emitted from the upload's thread).
    upload_progressed = Signal(int, int)
    # A reply was refused or could not be sent: the reason in words.
    reply_failed = Signal(str)
    # A note was added to the thread: the ui.api.resources.Note.
    note_added = Signal(object)
    # The agent changed the reply draft by typing (not when the composer cleared or swapped it).
    draft_edited = Signal()
    # Colleagues wrote meanwhile and the agent chose not to send: the thread should show what they wrote.
    thread_outdated = Signal()

    def __init__(
        self,
        api: ApiClient | None,
        runner: BackgroundRunner | None,
        parent: QWidget | None = None,
        *,
        newest_seen: Callable[[], datetime | None] | None = None,
        file_chooser: Callable[[QWidget | None], Path | None] = choose_file,
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._choose_file = file_chooser
        # The file attached to the draft (sent with the text as its caption), and that caption.
        self.attachment: Attachment | None = None
        self._caption = ""
        # When the newest thread entry on screen was written: a reply says what its author saw.
        self._newest_seen = newest_seen
        self._conversation_id: int | None = None
        self._closes_at: datetime | None = None
        self._templates: list[TemplateInfo] = []
        # The templates in the picker's order: sendable ones first, then the others, greyed with why.
        self._offered: list[TemplateInfo] = []
        self._usable = 0
        self._marketing_allowed = True
        self._draft_key = self._new_key()
        self._key_used = False
        self._sending = False
        self._shown_open: bool | None = None
        self._writing_note = False
        # The reply draft while a note is written, and the note draft while a reply is.
        self._other_draft = ""
        self._changing_text = False
        # The last reply sent, kept so "Send anyway" sends exactly it again.
        self._pending_reply: dict[str, Any] = {}
        self.collision_dialog: QMessageBox | None = None
        self.setObjectName("composer")

        self.reply_mode_button = QPushButton(translate("Composer", "Reply"))
        self.note_mode_button = QPushButton(translate("Composer", "Note"))
        self.mode_buttons = QButtonGroup(self)
        for number, (button, name) in enumerate(
            (
                (self.reply_mode_button, translate("Composer", "Write a reply")),
                (self.note_mode_button, translate("Composer", "Write an internal note")),
            )
        ):
            button.setCheckable(True)
            button.setObjectName("segment")
            button.setAccessibleName(name)
            self.mode_buttons.addButton(button, number)
        self.note_mode_button.setToolTip(
            translate("Composer", "An internal note for the team  ({shortcut})").format(
                shortcut=NOTE_SHORTCUT
            )
        )
        self.reply_mode_button.setChecked(True)
        self.mode_buttons.idClicked.connect(self._mode_chosen)
        self.window_label = plain_label("")
        self.window_label.setAccessibleName(translate("Composer", "Time left in the customer's window"))
        mode_row = QHBoxLayout()
        mode_row.setSpacing(2)
        mode_row.addWidget(self.reply_mode_button)
        mode_row.addWidget(self.note_mode_button)
        mode_row.addStretch(1)
        mode_row.addWidget(self.window_label)

        self.text_box = ComposerTextBox()
        self.text_box.setAccessibleName(translate("Composer", "Reply text"))
        self.text_box.image_pasted.connect(self.attach_image)
        self.text_box.files_dropped.connect(self._files_dropped)
        self.text_box.setPlaceholderText(translate("Composer", REPLY_PLACEHOLDER))
        self.text_box.setMaximumHeight(80)
        self.text_box.textChanged.connect(self._text_changed)
        self.send_button = QPushButton(translate("Composer", "Send"))
        self.send_button.setAccessibleName(translate("Composer", "Send reply"))
        self.send_button.setObjectName("primary")
        self.send_button.clicked.connect(self.send)
        self.status_label = plain_label("")
        self.status_label.setObjectName("composerStatus")
        self.status_label.setWordWrap(True)

        self.template_box = QComboBox()
        self.template_box.setAccessibleName(translate("Composer", "Template"))
        self.template_box.currentIndexChanged.connect(self._template_chosen)
        self.parameter_form = QFormLayout()
        self.parameter_fields: list[QLineEdit] = []
        self.preview = plain_label("")
        self.preview.setObjectName("templatePreview")
        self.preview.setWordWrap(True)
        self.preview.setAccessibleName(translate("Composer", "Template preview"))
        self.send_template_button = QPushButton(translate("Composer", "Send template"))
        self.send_template_button.setAccessibleName(translate("Composer", "Send template"))
        self.send_template_button.setObjectName("primary")
        self.send_template_button.clicked.connect(self.send)

        template_page = QWidget()
        template_layout = QVBoxLayout(template_page)
        template_layout.setContentsMargins(0, 0, 0, 0)
        picker_row = QHBoxLayout()
        picker_row.addWidget(plain_label(translate("Composer", "Template")))
        picker_row.addWidget(self.template_box, 1)
        template_layout.addLayout(picker_row)
        template_layout.addLayout(self.parameter_form)
        template_layout.addWidget(self.preview)
        template_row = QHBoxLayout()
        template_row.addStretch(1)
        template_row.addWidget(self.send_template_button)
        template_layout.addLayout(template_row)
        self.template_page = template_page
        self.attach_button = QPushButton(translate("Composer", "Attach…"))
        self.attach_button.setAccessibleName(translate("Composer", "Attach a file"))
        self.attach_button.setToolTip(
            translate("Composer", "Attach a photo, voice note, video or document (or drop or paste one)")
        )
        self.attach_button.clicked.connect(self.choose_attachment)
        self.attachment_label = plain_label("")
        self.attachment_label.setAccessibleName(translate("Composer", "Attached file"))
        self.remove_attachment_button = QPushButton(translate("Composer", "Remove"))
        self.remove_attachment_button.setAccessibleName(translate("Composer", "Remove the attached file"))
        self.remove_attachment_button.clicked.connect(self.remove_attachment)
        self.upload_bar = QProgressBar()
        self.upload_bar.setAccessibleName(translate("Composer", "Upload progress"))
        self.upload_bar.setTextVisible(False)
        self.upload_bar.setMaximumHeight(8)
        self.upload_bar.setVisible(False)
        self.upload_progressed.connect(self._show_upload)
        self.attachment_row = QWidget()
        attachment_layout = QHBoxLayout(self.attachment_row)
        attachment_layout.setContentsMargins(0, 0, 0, 0)
        attachment_layout.addWidget(self.attachment_label)
        attachment_layout.addWidget(self.remove_attachment_button)
        attachment_layout.addWidget(self.upload_bar, 1)
        self.attachment_row.setVisible(False)
        text_row = QHBoxLayout()
        text_row.addWidget(self.attach_button, 0, Qt.AlignmentFlag.AlignBottom)
        text_row.addWidget(self.text_box, 1)
        text_row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        self._showing_templates = False

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 8)
        layout.addLayout(mode_row)
        layout.addWidget(self.attachment_row)
        layout.addLayout(text_row)
        layout.addWidget(self.template_page)
        layout.addWidget(self.status_label)

        for sequence in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut = QShortcut(QKeySequence(sequence), self.text_box)
            shortcut.activated.connect(self.send)
        note_shortcut = QShortcut(QKeySequence(NOTE_SHORTCUT), self)
        note_shortcut.activated.connect(self.toggle_note)
        # "/" and a shortcut inserts a canned reply, filled with the open conversation's contact.
        self.canned_replies = CannedReplyProvider(api, runner, self)
        self.canned_picker = attach_canned_picker(self.text_box, self.canned_replies)
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
    def conversation_id(self) -> int | None:
        """The conversation written in."""
        return self._conversation_id

    @property
    def window_open(self) -> bool:
        """Whether free text may be sent now."""
        return self._closes_at is not None and self._closes_at > datetime.now(UTC)

    @property
    def showing_templates(self) -> bool:
        """Whether the template picker is shown instead of free text."""
        return self._showing_templates

    @property
    def writing_note(self) -> bool:
        """Whether the text box holds an internal note rather than a reply."""
        return self._writing_note

    def set_templates(self, templates: list[TemplateInfo]) -> None:
        """The templates the picker offers: approved ones to pick, the others greyed with why."""
        self._templates = list(templates)
        self._fill_template_box()

    def set_marketing_allowed(self, allowed: bool) -> None:
        """Whether this conversation's customer may get marketing (False once they opted out)."""
        if allowed != self._marketing_allowed:
            self._marketing_allowed = allowed
            self._fill_template_box()

    def unavailable_reason(self, row: int) -> str | None:
        """Why the picker's row cannot be chosen, or None when it can."""
        if not 0 <= row < len(self._offered):
            return None
        return template_unavailable_reason(self._offered[row], marketing_allowed=self._marketing_allowed)

    def _fill_template_box(self) -> None:
        reasons = {
            id(t): template_unavailable_reason(t, marketing_allowed=self._marketing_allowed)
            for t in self._templates
        }
        usable = [t for t in self._templates if reasons[id(t)] is None]
        others = [t for t in self._templates if reasons[id(t)] is not None]
        chosen = self._current_template()
        self._offered = usable + others
        self._usable = len(usable)
        box = self.template_box
        box.blockSignals(True)
        box.clear()
        model = box.model()
        for row, template in enumerate(self._offered):
            label = f"{template.name} ({template.language})"
            why = reasons[id(template)]
            box.addItem(label if why is None else f"{label}: {why}")
            if why is not None and isinstance(model, QStandardItemModel):
                item = model.item(row)
                # Greyed and not selectable: Meta would refuse it, or the customer said stop.
                item.setEnabled(False)
                item.setToolTip(why)
        keep = next((row for row, t in enumerate(usable) if chosen is not None and t == chosen), None)
        box.setCurrentIndex(keep if keep is not None else (0 if usable else -1))
        box.blockSignals(False)
        self._template_chosen(box.currentIndex())
        self._apply_window()

    def set_conversation(self, conversation_id: int | None, closes_at: datetime | None) -> None:
        """Write in another conversation; its window decides between text and templates."""
        if conversation_id != self._conversation_id:
            self._set_text("")
            self._other_draft = ""
            self._start_new_draft()
            self.status_label.clear()
            self._close_collision_dialog()
        self._conversation_id = conversation_id
        self._closes_at = closes_at
        self.canned_replies.set_conversation(conversation_id)
        self._apply_window()

    def set_window(self, closes_at: datetime | None) -> None:
        """The selected conversation's window moved (a reply reopened it, or it closed)."""
        self._closes_at = closes_at
        self._apply_window()

    # -- reply or note -----------------------------------------------------------------------
    def toggle_note(self) -> None:
        """Switch between writing a reply and writing an internal note."""
        self.set_note_mode(not self._writing_note)

    def set_note_mode(self, note: bool) -> None:
        """Write an internal note (True) or a reply (False); each keeps its own draft."""
        if note == self._writing_note:
            return
        self._writing_note = note
        self.mode_buttons.button(NOTE_MODE if note else REPLY_MODE).setChecked(True)
        current = self.text_box.toPlainText()
        self._set_text(self._other_draft)
        self._other_draft = current
        self.text_box.setAccessibleName(
            translate("Composer", "Note text") if note else translate("Composer", "Reply text")
        )
        self.text_box.setStyleSheet(themed_stylesheet(NOTE_STYLE) if note else "")
        self.send_button.setText(translate("Composer", "Add note") if note else translate("Composer", "Send"))
        self.send_button.setAccessibleName(
            translate("Composer", "Add note") if note else translate("Composer", "Send reply")
        )
        self.status_label.clear()
        self._apply_window()
        self.text_box.setFocus()

    def _mode_chosen(self, number: int) -> None:
        self.set_note_mode(number == NOTE_MODE)

    def _set_text(self, text: str) -> None:
        # The composer's own changes are not the agent typing.
        self._changing_text = True
        try:
            self.text_box.setPlainText(text)
        finally:
            self._changing_text = False

    def _text_changed(self) -> None:
        self._draft_changed()
        if not self._changing_text and not self._writing_note:
            self.draft_edited.emit()

    # -- the window --------------------------------------------------------------------------
    def _check_window(self) -> None:
        if self._shown_open != self.window_open:
            self._apply_window()
        else:
            self._show_countdown()

    def _show_countdown(self) -> None:
        if self._conversation_id is None:
            self.window_label.setText("")
            return
        window = window_text(self._closes_at, datetime.now(UTC))
        text = (
            translate("Composer", "Window: {countdown}").format(countdown=window.text)
            if window.is_open
            else translate("Composer", "Window closed: templates only")
        )
        if text != self.window_label.text():
            self.window_label.setText(text)
            self.window_label.setStyleSheet(themed_stylesheet(URGENT_STYLE if window.urgent else MUTED_STYLE))

    def _apply_window(self) -> None:
        enabled = self._conversation_id is not None
        is_open = self.window_open
        self._shown_open = is_open
        may_write = is_open or self._writing_note
        self.text_box.setReadOnly(not may_write)
        self.text_box.setEnabled(enabled and may_write)
        if self._writing_note:
            self.text_box.setPlaceholderText(translate("Composer", NOTE_PLACEHOLDER))
        else:
            self.text_box.setPlaceholderText(
                translate("Composer", REPLY_PLACEHOLDER if is_open or not enabled else CLOSED_WINDOW_TEXT)
            )
        if not may_write and enabled and self.text_box.toPlainText():
            self.status_label.setText(translate("Composer", CLOSED_WINDOW_TEXT))
        self._showing_templates = enabled and not is_open and not self._writing_note
        self.template_page.setVisible(self._showing_templates)
        self.send_button.setEnabled(enabled and may_write and not self._sending)
        # Files go in the customer's window, as replies (a note never carries one).
        self.attach_button.setEnabled(enabled and is_open and not self._writing_note and not self._sending)
        self.send_template_button.setEnabled(enabled and not self._sending and self._usable > 0)
        self._show_countdown()

    # -- templates ---------------------------------------------------------------------------
    def _template_chosen(self, row: int) -> None:
        while self.parameter_form.rowCount():
            self.parameter_form.removeRow(0)
        self.parameter_fields = []
        template = self._offered[row] if 0 <= row < self._usable else None
        if template is not None:
            for name in template.parameters:
                field = QLineEdit()
                field.setAccessibleName(translate("Composer", "Template value: {name}").format(name=name))
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
        return self._offered[row] if 0 <= row < self._usable else None

    # -- sending -----------------------------------------------------------------------------
    def _draft_changed(self) -> None:
        # A key covers one exact body: once used, any edit starts a new draft with a new key.
        if self._key_used and not self._sending and not self._writing_note:
            self._start_new_draft()

    def _start_new_draft(self) -> None:
        self._draft_key = self._new_key()
        self._key_used = False

    def send(self) -> None:
        """Send the draft: a note, text while the window is open, else the chosen template."""
        if self._api is None or self._runner is None or self._conversation_id is None or self._sending:
            return
        if self._writing_note:
            self._add_note()
            return
        if self.window_open and not self.showing_templates and self.attachment is not None:
            self._send_attachment(self.attachment, self.text_box.toPlainText().strip())
            return
        if self.window_open and not self.showing_templates:
            text = self.text_box.toPlainText().strip()
            if not text:
                return
            content: dict[str, Any] = {"text": text}
        else:
            template = self._current_template()
            if template is None:
                return
            values = [field.text().strip() for field in self.parameter_fields]
            if any(not value for value in values):
                self.status_label.setText(translate("Composer", "Fill in every template value first."))
                return
            content = {
                "template": {"name": template.name, "language": template.language, "parameters": values}
            }
        seen_up_to = self._newest_seen() if self._newest_seen is not None else None
        self._pending_reply = {
            "conversation_id": self._conversation_id,
            "key": self._draft_key,
            "seen_up_to": seen_up_to,
            **content,
        }
        self._submit_reply(force=False)

    def _submit_reply(self, *, force: bool) -> None:
        if self._api is None or self._runner is None or not self._pending_reply:
            return
        request = self._pending_reply
        call = partial(
            self._api.reply,
            request["conversation_id"],
            request["key"],
            text=request.get("text"),
            template=request.get("template"),
            media=request.get("media"),
            seen_up_to=request["seen_up_to"],
            force=force,
        )
        self._sending = True
        self._key_used = True
        self.status_label.setText(translate("Composer", "Sending…"))
        self._apply_window()
        self._runner.submit(call, self._on_sent, self._on_failed)

    def _on_sent(self, message: MessageStatus) -> None:
        self._sending = False
        self._pending_reply = {}
        self.status_label.setText(
            translate("Composer", "Queued.")
            if message.state == "queued"
            else translate("Composer", "{state}.").format(state=status_mark(message.state).label.capitalize())
        )
        if not self._writing_note:
            self._set_text("")
        else:
            self._other_draft = ""
        for field in self.parameter_fields:
            field.clear()
        if self.attachment is not None and not self._writing_note:
            self.remove_attachment()
        self._start_new_draft()
        self._apply_window()
        self.reply_sent.emit(message)

    def _on_failed(self, error: Exception) -> None:
        self._sending = False
        if isinstance(error, ConversationChangedError):
            self._apply_window()
            self.status_label.setText(
                translate("Composer", "A colleague wrote in this conversation after you last looked.")
            )
            self._ask_send_anyway(error.messages)
            return
        if isinstance(error, ApiError) and error.code == "window_closed":
            self._closes_at = None
            reason = CLOSED_WINDOW_TEXT
        elif isinstance(error, ApiError):
            reason = error.message
        else:
            reason = str(error)
        self._pending_reply = {}
        self.status_label.setText(reason)
        self._apply_window()
        self.reply_failed.emit(reason)

    # -- attachments -----------------------------------------------------------------------------
    def choose_attachment(self) -> None:
        """Ask for a file and attach it."""
        path = self._choose_file(self)
        if path is not None:
            self.attach_file(path)

    def attach_file(self, path: Path) -> None:
        """Attach a file from disk (read in the background)."""
        if self._runner is None:
            return
        self._runner.submit(partial(read_attachment, path), self._attachment_read, self._attachment_failed)

    def _files_dropped(self, paths: list[Path]) -> None:
        if paths:
            self.attach_file(paths[0])

    @Slot(object)
    def attach_image(self, image: QImage) -> None:
        """Attach a pasted picture."""
        self._attachment_read(image_attachment(image))

    @Slot(object)
    def _attachment_read(self, attachment: Attachment) -> None:
        self.attachment = attachment
        self.attachment_label.setText(attachment.describe())
        self.attachment_row.setVisible(True)
        self.text_box.setPlaceholderText(translate("Composer", "Add a caption…  (Ctrl+Enter sends)"))
        self.status_label.setText("")

    @Slot(object)
    def _attachment_failed(self, error: Exception) -> None:
        self.status_label.setText(
            translate("Composer", "Could not attach the file: {reason}").format(reason=error)
        )

    def remove_attachment(self) -> None:
        """Drop the attached file from the draft."""
        self.attachment = None
        self.attachment_row.setVisible(False)
        self.upload_bar.setVisible(False)
        self._apply_window()

    def _report_upload(self, sent: int, total: int) -> None:
        # Called on the upload's worker thread: the signal carries it to the GUI thread.
        self.upload_progressed.emit(sent, total)

    @Slot(int, int)
    def _show_upload(self, sent: int, total: int) -> None:
        self.upload_bar.setVisible(True)
        self.upload_bar.setMaximum(max(1, total))
        self.upload_bar.setValue(sent)

    def _send_attachment(self, attachment: Attachment, caption: str) -> None:
        if self._api is None or self._runner is None:
            return
        if attachment.kind == "audio" and caption:
            self.status_label.setText(
                translate(
                    "Composer", "A voice note or audio file takes no caption; send the words on their own."
                )
            )
            return
        self._sending = True
        self._apply_window()
        self.status_label.setText(translate("Composer", "Uploading…"))
        self._caption = caption
        call = partial(
            self._api.upload_media,
            attachment.name,
            attachment.content,
            attachment.mime_type,
            self._report_upload,
        )
        self._runner.submit(call, self._uploaded, self._on_failed)

    @Slot(object)
    def _uploaded(self, uploaded: UploadedMedia) -> None:
        attachment = self.attachment
        if attachment is None:
            self._sending = False
            self._apply_window()
            return
        media: dict[str, Any] = {"kind": attachment.kind, "media": uploaded.id}
        if self._caption and attachment.kind != "audio":
            media["caption"] = self._caption
        if attachment.kind == "document":
            media["filename"] = attachment.name
        seen_up_to = self._newest_seen() if self._newest_seen is not None else None
        self._pending_reply = {
            "conversation_id": self._conversation_id,
            "key": self._draft_key,
            "seen_up_to": seen_up_to,
            "media": media,
        }
        self._sending = False
        self._submit_reply(force=False)

    # -- a colleague wrote meanwhile -------------------------------------------------------------
    def _ask_send_anyway(self, messages: list[ColleagueMessage]) -> None:
        self._close_collision_dialog()
        authors = sorted(
            {message.created_by or translate("Composer", "another system") for message in messages}
        )
        who = ", ".join(authors) if authors else translate("Composer", "someone else")
        dialog = plain_message_box(
            QMessageBox.Icon.Warning,
            translate("Composer", "The conversation changed"),
            translate(
                "Composer",
                "{who} wrote to this customer after you last looked:\n\n{messages}\n\n"
                "Send your reply anyway?",
            ).format(who=who, messages=colleague_text(messages)),
            self,
        )
        dialog.addButton(translate("Composer", SEND_ANYWAY), QMessageBox.ButtonRole.AcceptRole)
        dialog.addButton(QMessageBox.StandardButton.Cancel)
        dialog.setDefaultButton(QMessageBox.StandardButton.Cancel)
        dialog.buttonClicked.connect(self._collision_answered)
        self.collision_dialog = dialog
        dialog.open()

    def _collision_answered(self, button: QAbstractButton) -> None:
        dialog = self.collision_dialog
        self.collision_dialog = None
        if dialog is None:
            return
        send_anyway = dialog.buttonRole(button) == QMessageBox.ButtonRole.AcceptRole
        dialog.deleteLater()
        if send_anyway:
            # The refusal released the key, so the same draft goes out once under it.
            self._submit_reply(force=True)
            return
        self._pending_reply = {}
        self.status_label.setText(
            translate("Composer", "Not sent. Read what your colleague wrote; your draft is kept.")
        )
        self.thread_outdated.emit()

    def _close_collision_dialog(self) -> None:
        if self.collision_dialog is not None:
            dialog, self.collision_dialog = self.collision_dialog, None
            dialog.buttonClicked.disconnect(self._collision_answered)
            dialog.reject()
            dialog.deleteLater()
            self._pending_reply = {}

    # -- notes -------------------------------------------------------------------------------
    def _add_note(self) -> None:
        text = self.text_box.toPlainText().strip()
        if not text or self._api is None or self._runner is None or self._conversation_id is None:
            return
        self._sending = True
        self.status_label.setText(translate("Composer", "Adding the note…"))
        self._apply_window()
        call = partial(self._api.add_note, self._conversation_id, text)
        self._runner.submit(call, self._on_note_added, self._on_note_failed)

    def _on_note_added(self, note: Note) -> None:
        self._sending = False
        self.status_label.setText(translate("Composer", "Note added."))
        if self._writing_note:
            self._set_text("")
        else:
            self._other_draft = ""
        self._apply_window()
        self.note_added.emit(note)

    def _on_note_failed(self, error: Exception) -> None:
        self._sending = False
        self.status_label.setText(error.message if isinstance(error, ApiError) else str(error))
        self._apply_window()
