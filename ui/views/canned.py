"""Canned replies: "/" and a shortcut in the composer inserts one; supervisors keep the list in a dialog."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from PySide6.QtCore import QEvent, QObject, QPoint, QRegularExpression, Qt, Signal
from PySide6.QtGui import QKeyEvent, QRegularExpressionValidator, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from ui.api.client import ApiError
from ui.api.library import CannedReply, LibraryCalls
from ui.i18n import QT_TRANSLATE_NOOP, translate
from ui.presentation import tooltip_text
from ui.runner import BackgroundRunner
from ui.views.plain_text import plain_label, plain_message_box

Editor = QPlainTextEdit | QTextEdit

SHORTCUT_CHARACTERS = "A-Za-z0-9_-"
MAX_SHORTCUT = 32
MAX_TITLE = 100
MAX_TEXT = 4096
# A shortcut being typed: "/" at the start of a word, then shortcut characters up to the cursor.
_TYPED_SHORTCUT = re.compile(rf"(?:^|(?<=\s))/([{SHORTCUT_CHARACTERS}]+)$")
_SHORTCUT_TAIL = re.compile(rf"[{SHORTCUT_CHARACTERS}]*")
_VALID_SHORTCUT = re.compile(rf"[{SHORTCUT_CHARACTERS}]{{1,{MAX_SHORTCUT}}}")
MAX_SHOWN = 8
PREVIEW_LENGTH = 80
POPUP_WIDTH = 380

# What a refusal means for the person who asked, by the backend's error code.
_REFUSALS = {
    "forbidden": QT_TRANSLATE_NOOP(
        "CannedRepliesDialog", "Only a supervisor can add, change or delete canned replies."
    ),
    "not_found": QT_TRANSLATE_NOOP(
        "CannedRepliesDialog", "This canned reply no longer exists: someone deleted it meanwhile."
    ),
}


class CannedReplySource(Protocol):
    """Where the picker finds the canned replies of the conversation being answered."""

    @property
    def replies(self) -> Sequence[CannedReply]:
        """The replies, by shortcut, with their text filled for the conversation when known."""
        ...


def matching_replies(replies: Sequence[CannedReply], typed: str) -> list[CannedReply]:
    """Replies whose shortcut starts with `typed`, then those whose shortcut holds it elsewhere."""
    wanted = typed.casefold()
    starts = [reply for reply in replies if reply.shortcut.casefold().startswith(wanted)]
    inside = [reply for reply in replies if reply not in starts and wanted in reply.shortcut.casefold()]
    return (starts + inside)[:MAX_SHOWN]


def preview_text(text: str) -> str:
    """The first line of a reply, cut short."""
    first_line = text.strip().splitlines()[0] if text.strip() else ""
    return first_line if len(first_line) <= PREVIEW_LENGTH else first_line[: PREVIEW_LENGTH - 1] + "…"


@dataclass(frozen=True)
class TypedShortcut:
    """A "/shortcut" being typed: where it starts and ends in the document, and what was typed so far."""

    start: int
    end: int
    typed: str


def typed_shortcut(editor: Editor) -> TypedShortcut | None:
    """The "/shortcut" the cursor is at the end of (or inside), if any."""
    cursor = editor.textCursor()
    if cursor.hasSelection():
        return None
    block = cursor.block()
    text = block.text()
    column = cursor.positionInBlock()
    found = _TYPED_SHORTCUT.search(text[:column])
    if found is None:
        return None
    tail = _SHORTCUT_TAIL.match(text, column)
    end = tail.end() if tail else column
    return TypedShortcut(block.position() + found.start(), block.position() + end, found.group(1))


def _load_replies(
    api: LibraryCalls, generation: int, conversation_id: int | None
) -> tuple[int, list[CannedReply]]:
    """Runs on a worker thread: the replies, tagged with the generation that asked."""
    return generation, api.canned_replies(conversation_id)


class CannedReplyProvider(QObject):
    """The canned replies of the open conversation, filled with its contact's name and number."""

    # The replies changed: loaded for another conversation, or again after someone edited them.
    changed = Signal()
    # The replies could not be loaded: the reason in words.
    failed = Signal(str)

    def __init__(
        self, api: LibraryCalls | None, runner: BackgroundRunner | None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._conversation_id: int | None = None
        self._replies: list[CannedReply] = []
        self._generation = 0

    @property
    def replies(self) -> Sequence[CannedReply]:
        """The replies loaded for the current conversation."""
        return self._replies

    @property
    def conversation_id(self) -> int | None:
        """The conversation the replies are filled for."""
        return self._conversation_id

    def set_conversation(self, conversation_id: int | None) -> None:
        """Load the replies filled for another conversation (another customer's name must never show)."""
        if conversation_id == self._conversation_id and self._generation:
            return
        self._conversation_id = conversation_id
        self._replies = []
        self.changed.emit()
        self.reload()

    def reload(self) -> None:
        """Load the replies again (one was created, changed or deleted)."""
        if self._api is None or self._runner is None:
            return
        self._generation += 1
        call = partial(_load_replies, self._api, self._generation, self._conversation_id)
        self._runner.submit(call, self._loaded, self._failed)

    def _loaded(self, tagged: tuple[int, list[CannedReply]]) -> None:
        generation, replies = tagged
        if generation != self._generation:
            return  # an answer for a conversation no longer open
        self._replies = replies
        self.changed.emit()

    def _failed(self, error: Exception) -> None:
        self.failed.emit(error.message if isinstance(error, ApiError) else str(error))


class CannedPicker(QObject):
    """Watches an editor: "/" and letters at the start of a word pop up the matching canned replies."""

    # A canned reply replaced the typed shortcut: its shortcut.
    inserted = Signal(str)

    def __init__(self, editor: Editor, source: CannedReplySource) -> None:
        super().__init__(editor)
        self._editor = editor
        self._source = source
        self._shown: list[CannedReply] = []
        self._typed: TypedShortcut | None = None
        # The start of a shortcut whose popup was closed with Esc: it stays closed while typing on.
        self._dismissed_at: int | None = None
        self._inserting = False
        # A child of the editor's window, drawn over it: it never takes the focus (typing goes on in the
        # editor) and needs no window of its own from the platform.
        self.popup = QListWidget(editor)
        self.popup.hide()
        self.popup.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.popup.setFrameShape(QFrame.Shape.Box)
        self.popup.setAccessibleName(translate("CannedPicker", "Canned replies"))
        self.popup.setWordWrap(False)
        self.popup.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.popup.itemClicked.connect(self._item_clicked)
        # Once moved to the editor's window the popup outlives the editor unless told otherwise.
        editor.destroyed.connect(self.popup.deleteLater)
        editor.textChanged.connect(self.refresh)
        editor.cursorPositionChanged.connect(self.refresh)
        editor.installEventFilter(self)

    @property
    def is_open(self) -> bool:
        """Whether the popup shows."""
        return self.popup.isVisible()

    @property
    def shown(self) -> list[CannedReply]:
        """The replies the popup offers, in order."""
        return self._shown

    def refresh(self) -> None:
        """Show, update or close the popup for what is typed at the cursor."""
        if self._inserting:
            return
        typed = typed_shortcut(self._editor) if self._editor.hasFocus() or self.is_open else None
        if typed is None or typed.start != self._dismissed_at:
            self._dismissed_at = None
        matches = matching_replies(self._source.replies, typed.typed) if typed else []
        if typed is None or not matches or self._dismissed_at is not None:
            self.close()
            return
        self._typed = typed
        current = self.popup.currentRow()
        # Typing on keeps the reply chosen with the arrows; a popup opening afresh starts at the top.
        kept = self._shown[current].id if self.is_open and 0 <= current < len(self._shown) else None
        self._shown = matches
        self.popup.clear()
        for reply in matches:
            item = QListWidgetItem(f"/{reply.shortcut} — {reply.title}\n{preview_text(reply.insertion)}")
            item.setToolTip(tooltip_text(reply.insertion))
            self.popup.addItem(item)
        rows = [reply.id for reply in matches]
        self.popup.setCurrentRow(rows.index(kept) if kept in rows else 0)
        self._place_popup()

    def close(self) -> None:
        """Hide the popup."""
        self._typed = None
        self.popup.hide()

    def insert(self, reply: CannedReply) -> None:
        """Replace the typed "/shortcut" with the reply's text (filled for the conversation when known)."""
        typed = self._typed or typed_shortcut(self._editor)
        if typed is None:
            return
        self.close()
        cursor = self._editor.textCursor()
        cursor.setPosition(typed.start)
        cursor.setPosition(typed.end, QTextCursor.MoveMode.KeepAnchor)
        self._inserting = True
        try:
            cursor.insertText(reply.insertion)
            self._editor.setTextCursor(cursor)
        finally:
            self._inserting = False
        self.inserted.emit(reply.shortcut)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """While the popup shows, arrows choose, Enter or Tab insert and Esc closes, in the editor."""
        kind = event.type()
        leaving = kind == QEvent.Type.Hide or (kind == QEvent.Type.FocusOut and not self.popup.underMouse())
        if watched is self._editor and leaving:
            self.close()
        if watched is not self._editor or not self.is_open or not isinstance(event, QKeyEvent):
            return super().eventFilter(watched, event)
        handled = self._key_action(event)
        if handled is None:
            return super().eventFilter(watched, event)
        if kind == QEvent.Type.ShortcutOverride:
            # Claim the key so no window shortcut (Esc closing a dialog) takes it from the popup.
            event.accept()
            return True
        if kind == QEvent.Type.KeyPress:
            handled()
            return True
        return super().eventFilter(watched, event)

    def _key_action(self, event: QKeyEvent) -> Callable[[], None] | None:
        """What a key does while the popup shows, or None to let the editor have it."""
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return None
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab):
            return self._insert_current
        if key == Qt.Key.Key_Escape:
            return self._dismiss
        if key == Qt.Key.Key_Down:
            return partial(self._move, 1)
        if key == Qt.Key.Key_Up:
            return partial(self._move, -1)
        return None

    def _insert_current(self) -> None:
        row = self.popup.currentRow()
        if 0 <= row < len(self._shown):
            self.insert(self._shown[row])

    def _dismiss(self) -> None:
        self._dismissed_at = self._typed.start if self._typed else None
        self.close()

    def _move(self, step: int) -> None:
        count = self.popup.count()
        if count:
            self.popup.setCurrentRow((self.popup.currentRow() + step) % count)

    def _item_clicked(self, item: QListWidgetItem) -> None:
        row = self.popup.row(item)
        if 0 <= row < len(self._shown):
            self.insert(self._shown[row])
            self._editor.setFocus()

    def _place_popup(self) -> None:
        """Below the cursor, or above it when the window ends first (the composer sits low)."""
        window = self._editor.window()
        if self.popup.parentWidget() is not window:
            # The editor may have been put into a window since it was attached.
            self.popup.setParent(window)
        rows = min(self.popup.count(), MAX_SHOWN)
        row_height = max(self.popup.sizeHintForRow(0), 1)
        height = min(rows * row_height + 2 * self.popup.frameWidth(), window.height())
        width = min(POPUP_WIDTH, window.width())
        cursor_rect = self._editor.cursorRect()
        viewport = self._editor.viewport()
        place = viewport.mapTo(window, cursor_rect.bottomLeft()) + QPoint(0, 2)
        if place.y() + height > window.height():
            place = viewport.mapTo(window, cursor_rect.topLeft()) - QPoint(0, height + 2)
        place.setX(max(0, min(place.x(), window.width() - width)))
        place.setY(max(0, place.y()))
        self.popup.setGeometry(place.x(), place.y(), width, height)
        self.popup.show()
        self.popup.raise_()


def attach_canned_picker(editor: Editor, provider: CannedReplySource) -> CannedPicker:
    """Let `editor` insert canned replies by "/shortcut"; the picker lives as long as the editor."""
    picker = CannedPicker(editor, provider)
    if isinstance(provider, CannedReplyProvider):
        provider.changed.connect(picker.refresh)
    return picker


def refusal_text(error: Exception, shortcut: str = "") -> str:
    """Why a change to the canned replies was refused, in words."""
    if not isinstance(error, ApiError):
        return str(error)
    if error.code == "shortcut_taken":
        return translate(
            "CannedRepliesDialog", "Another canned reply already uses /{shortcut}: choose another shortcut."
        ).format(shortcut=shortcut)
    words = _REFUSALS.get(error.code)
    return translate("CannedRepliesDialog", words) if words is not None else error.message


def form_problem(shortcut: str, title: str, text: str) -> str:
    """What is wrong with a canned reply before it is sent, in words ("" when nothing)."""
    if not _VALID_SHORTCUT.fullmatch(shortcut):
        return translate(
            "CannedRepliesDialog", "The shortcut is 1 to {count} letters, digits, _ or -."
        ).format(count=MAX_SHORTCUT)
    if not 1 <= len(title) <= MAX_TITLE:
        return translate("CannedRepliesDialog", "The title is 1 to {count} characters.").format(
            count=MAX_TITLE
        )
    if not 1 <= len(text) <= MAX_TEXT:
        return translate("CannedRepliesDialog", "The text is 1 to {count} characters.").format(count=MAX_TEXT)
    return ""


class CannedRepliesDialog(QDialog):
    """The team's canned replies: supervisors add, change and delete them."""

    # The list changed through this dialog (desks also learn it from the journal).
    replies_changed = Signal()

    def __init__(
        self,
        api: LibraryCalls | None,
        runner: BackgroundRunner | None,
        parent: QWidget | None = None,
        *,
        editable: bool = True,
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._editable = editable
        self._replies: list[CannedReply] = []
        self._select_after_load: int | None = None
        # The id of the reply the form was filled from (None: a new one).
        self._shown_id: int | None = None
        self._pending_shortcut = ""
        self._busy = False
        self.setWindowTitle(translate("CannedRepliesDialog", "Canned replies"))
        self.resize(720, 460)

        self.list_widget = QListWidget()
        self.list_widget.setAccessibleName(translate("CannedRepliesDialog", "Canned replies"))
        self.list_widget.currentRowChanged.connect(self._row_changed)
        self.shortcut_field = QLineEdit()
        self.shortcut_field.setAccessibleName(translate("CannedRepliesDialog", "Shortcut"))
        self.shortcut_field.setPlaceholderText(translate("CannedRepliesDialog", "thanks"))
        self.shortcut_field.setMaxLength(MAX_SHORTCUT)
        pattern = QRegularExpression(f"[{SHORTCUT_CHARACTERS}]*")
        self.shortcut_field.setValidator(QRegularExpressionValidator(pattern, self.shortcut_field))
        self.title_field = QLineEdit()
        self.title_field.setAccessibleName(translate("CannedRepliesDialog", "Title"))
        self.title_field.setMaxLength(MAX_TITLE)
        self.text_field = QPlainTextEdit()
        self.text_field.setAccessibleName(translate("CannedRepliesDialog", "Reply text"))
        self.text_field.setPlaceholderText(
            translate("CannedRepliesDialog", "Hi {{name}}, thanks for writing to us!")
        )
        hint = plain_label(
            translate(
                "CannedRepliesDialog",
                "{{name}} and {{number}} are filled in with the customer's name and number.",
            )
        )
        hint.setObjectName("hint")
        hint.setWordWrap(True)
        self.status_label = plain_label("")
        self.status_label.setWordWrap(True)

        self.new_button = QPushButton(translate("CannedRepliesDialog", "New"))
        self.new_button.setAccessibleName(translate("CannedRepliesDialog", "New canned reply"))
        self.new_button.clicked.connect(self.start_new)
        self.save_button = QPushButton(translate("CannedRepliesDialog", "Save"))
        self.save_button.setAccessibleName(translate("CannedRepliesDialog", "Save canned reply"))
        self.save_button.setObjectName("primary")
        self.save_button.clicked.connect(self.save)
        self.delete_button = QPushButton(translate("CannedRepliesDialog", "Delete"))
        self.delete_button.setAccessibleName(translate("CannedRepliesDialog", "Delete canned reply"))
        self.delete_button.clicked.connect(self.delete)
        close_button = QPushButton(translate("CannedRepliesDialog", "Close"))
        close_button.clicked.connect(self.accept)

        form = QFormLayout()
        form.addRow(translate("CannedRepliesDialog", "Shortcut  /"), self.shortcut_field)
        form.addRow(translate("CannedRepliesDialog", "Title"), self.title_field)
        form.addRow(translate("CannedRepliesDialog", "Text"), self.text_field)
        right = QVBoxLayout()
        right.addLayout(form, 1)
        right.addWidget(hint)
        buttons = QHBoxLayout()
        buttons.addWidget(self.new_button)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        buttons.addWidget(close_button)
        columns = QHBoxLayout()
        columns.addWidget(self.list_widget, 2)
        columns.addLayout(right, 3)
        layout = QVBoxLayout(self)
        layout.addLayout(columns, 1)
        layout.addWidget(self.status_label)
        layout.addLayout(buttons)
        if not editable:
            for field in (self.shortcut_field, self.title_field):
                field.setReadOnly(True)
            self.text_field.setReadOnly(True)
            for button in (self.new_button, self.save_button, self.delete_button):
                button.hide()
            self.status_label.setText(
                translate(
                    "CannedRepliesDialog", "Only a supervisor can add, change or delete canned replies."
                )
            )
        self._update_buttons()
        self.reload()

    @property
    def replies(self) -> list[CannedReply]:
        """The replies listed, by shortcut."""
        return self._replies

    @property
    def selected(self) -> CannedReply | None:
        """The reply being edited, or None for a new one."""
        row = self.list_widget.currentRow()
        return self._replies[row] if 0 <= row < len(self._replies) else None

    def reload(self) -> None:
        """Load the list again (it changed here or on another desk)."""
        if self._api is None or self._runner is None:
            return
        self._runner.submit(self._api.canned_replies, self._loaded, self._load_failed)

    def select_shortcut(self, shortcut: str) -> bool:
        """Edit the reply with this shortcut; False when it is not listed."""
        for row, reply in enumerate(self._replies):
            if reply.shortcut == shortcut:
                self.list_widget.setCurrentRow(row)
                return True
        return False

    def start_new(self) -> None:
        """Empty the form for a new reply."""
        self.list_widget.setCurrentRow(-1)
        self.list_widget.clearSelection()
        self._fill(None)
        self.shortcut_field.setFocus()

    def save(self) -> None:
        """Create the reply in the form, or change the selected one."""
        if self._api is None or self._runner is None or self._busy or not self._editable:
            return
        shortcut, title = self.shortcut_field.text().strip(), self.title_field.text().strip()
        text = self.text_field.toPlainText().strip()
        problem = form_problem(shortcut, title, text)
        if problem:
            self.status_label.setText(problem)
            return
        selected = self.selected
        call: Callable[[], Any]
        if selected is None:
            call = partial(self._api.create_canned_reply, shortcut, title, text)
        else:
            call = partial(self._api.update_canned_reply, selected.id, shortcut, title, text)
        self._submit(
            call, translate("CannedRepliesDialog", "Saving /{shortcut}…").format(shortcut=shortcut), shortcut
        )

    def delete(self) -> None:
        """Delete the selected reply, once confirmed."""
        selected = self.selected
        if selected is None or self._api is None or self._runner is None or self._busy:
            return
        if not self.confirm_delete(selected):
            return
        self._submit(
            partial(self._api.delete_canned_reply, selected.id),
            translate("CannedRepliesDialog", "Deleting /{shortcut}…").format(shortcut=selected.shortcut),
            "",
        )

    def confirm_delete(self, reply: CannedReply) -> bool:
        """Ask before deleting: agents may rely on the shortcut."""
        box = plain_message_box(
            QMessageBox.Icon.Question,
            translate("CannedRepliesDialog", "Delete canned reply"),
            translate("CannedRepliesDialog", "Delete /{shortcut} ({title}) for everyone?").format(
                shortcut=reply.shortcut, title=reply.title
            ),
            self,
        )
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Yes

    def _submit(self, call: Callable[[], Any], doing: str, shortcut: str) -> None:
        assert self._runner is not None
        self._busy = True
        self._pending_shortcut = shortcut
        self.status_label.setText(doing)
        self._update_buttons()
        self._runner.submit(call, self._changed, self._change_failed)

    def _changed(self, result: CannedReply | None) -> None:
        self._busy = False
        if isinstance(result, CannedReply):
            self.status_label.setText(
                translate("CannedRepliesDialog", "Saved /{shortcut}.").format(shortcut=result.shortcut)
            )
            self._select_after_load = result.id
        else:
            self.status_label.setText(translate("CannedRepliesDialog", "Deleted."))
            self._select_after_load = None
            self.start_new()
        self._update_buttons()
        self.replies_changed.emit()
        self.reload()

    def _change_failed(self, error: Exception) -> None:
        self._busy = False
        self.status_label.setText(refusal_text(error, self._pending_shortcut))
        self._update_buttons()
        if isinstance(error, ApiError) and error.code == "not_found":
            self.reload()

    def _loaded(self, replies: list[CannedReply]) -> None:
        just_saved = self._select_after_load
        keep = just_saved if just_saved is not None else self._selected_id()
        self._select_after_load = None
        # What is being typed in the form survives a reload; a reply just saved is shown as saved.
        refill = just_saved is not None or not self._form_edited()
        self._replies = sorted(replies, key=lambda reply: reply.shortcut)
        self.list_widget.blockSignals(True)
        self.list_widget.clear()
        selected_row = -1
        for row, reply in enumerate(self._replies):
            item = QListWidgetItem(f"/{reply.shortcut} — {reply.title}")
            item.setToolTip(tooltip_text(reply.text))
            self.list_widget.addItem(item)
            if reply.id == keep:
                selected_row = row
        self.list_widget.setCurrentRow(selected_row)
        self.list_widget.blockSignals(False)
        if keep is not None and selected_row == -1:
            self._fill(None)  # the reply being edited was deleted elsewhere
        elif selected_row != -1 and refill:
            self._fill(self._replies[selected_row])
        if not self._replies and self._editable and not self._busy and not self.status_label.text():
            self.status_label.setText(
                translate("CannedRepliesDialog", "No canned replies yet: write one and save it.")
            )
        self._update_buttons()

    def _load_failed(self, error: Exception) -> None:
        self.status_label.setText(
            translate("CannedRepliesDialog", "Canned replies could not be loaded: {reason}").format(
                reason=refusal_text(error)
            )
        )

    def _selected_id(self) -> int | None:
        selected = self.selected
        return selected.id if selected else None

    def _form_edited(self) -> bool:
        """Whether the form holds typing not saved: a new reply begun, or a listed one changed."""
        fields = (self.shortcut_field.text(), self.title_field.text(), self.text_field.toPlainText())
        shown = next((reply for reply in self._replies if reply.id == self._shown_id), None)
        if shown is None:
            return any(fields)
        return fields != (shown.shortcut, shown.title, shown.text)

    def _row_changed(self, _row: int) -> None:
        self._fill(self.selected)

    def _fill(self, reply: CannedReply | None) -> None:
        self._shown_id = reply.id if reply else None
        self.shortcut_field.setText(reply.shortcut if reply else "")
        self.title_field.setText(reply.title if reply else "")
        self.text_field.setPlainText(reply.text if reply else "")
        self._update_buttons()

    def _update_buttons(self) -> None:
        editing = self._editable and not self._busy
        self.new_button.setEnabled(editing)
        self.save_button.setEnabled(editing)
        self.delete_button.setEnabled(editing and self.selected is not None)
