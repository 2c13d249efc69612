"""The keyboard help (F1): every shortcut of the client, in the agent's language."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from ui.i18n import QT_TRANSLATE_NOOP, translate
from ui.views.plain_text import plain_label

HELP_SHORTCUT = "F1"
# (keys, what they do): the shortcuts the main window, inbox and composer define.
SHORTCUTS = (
    ("F1", QT_TRANSLATE_NOOP("ShortcutsDialog", "Show this list of shortcuts")),
    ("Alt+1", QT_TRANSLATE_NOOP("ShortcutsDialog", "Inbox")),
    ("Alt+2", QT_TRANSLATE_NOOP("ShortcutsDialog", "Work queue")),
    ("Alt+3", QT_TRANSLATE_NOOP("ShortcutsDialog", "Supervisor (supervisors only)")),
    ("Alt+4", QT_TRANSLATE_NOOP("ShortcutsDialog", "Health")),
    ("Alt+5", QT_TRANSLATE_NOOP("ShortcutsDialog", "Reports (supervisors only)")),
    ("Ctrl+K", QT_TRANSLATE_NOOP("ShortcutsDialog", "Search conversations by name or number")),
    ("Ctrl+Shift+F", QT_TRANSLATE_NOOP("ShortcutsDialog", "Search words in every message")),
    ("Ctrl+Return", QT_TRANSLATE_NOOP("ShortcutsDialog", "Send the reply or add the note")),
    ("Ctrl+Shift+N", QT_TRANSLATE_NOOP("ShortcutsDialog", "Switch between a reply and an internal note")),
    ("Ctrl+Shift+R", QT_TRANSLATE_NOOP("ShortcutsDialog", "Resolve the conversation")),
    ("Ctrl+Shift+S", QT_TRANSLATE_NOOP("ShortcutsDialog", "Snooze the conversation")),
    ("Ctrl+Shift+P", QT_TRANSLATE_NOOP("ShortcutsDialog", "Mark the conversation pending")),
    ("Ctrl+Shift+O", QT_TRANSLATE_NOOP("ShortcutsDialog", "Reopen the conversation")),
    ("Tab / Shift+Tab", QT_TRANSLATE_NOOP("ShortcutsDialog", "Move to the next or previous control")),
    (
        "Space / Return",
        QT_TRANSLATE_NOOP("ShortcutsDialog", "Press the focused button, open the chosen item"),
    ),
    ("/", QT_TRANSLATE_NOOP("ShortcutsDialog", "In the composer: insert a canned reply by its shortcut")),
    ("Esc", QT_TRANSLATE_NOOP("ShortcutsDialog", "Close a dialog without changing anything")),
)


def key_text(keys: str) -> str:
    """Keys as this platform and language name them (Ctrl on Linux and Windows, ⌘ on macOS)."""
    if len(keys) == 1 or " / " in keys:
        return keys
    return QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)


class ShortcutsDialog(QDialog):
    """A table of keys and what they do."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("ShortcutsDialog", "Keyboard shortcuts"))
        self.setAccessibleName(translate("ShortcutsDialog", "Keyboard shortcuts"))
        intro = plain_label(
            translate("ShortcutsDialog", "Everything in the inbox can be done with the keyboard alone.")
        )
        intro.setWordWrap(True)
        self.table = QTableWidget(len(SHORTCUTS), 2, self)
        self.table.setAccessibleName(translate("ShortcutsDialog", "Shortcuts and what they do"))
        self.table.setHorizontalHeaderLabels(
            [translate("ShortcutsDialog", "Keys"), translate("ShortcutsDialog", "What it does")]
        )
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, (keys, words) in enumerate(SHORTCUTS):
            self.table.setItem(row, 0, QTableWidgetItem(key_text(keys)))
            self.table.setItem(row, 1, QTableWidgetItem(translate("ShortcutsDialog", words)))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, Qt.Orientation.Horizontal, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(560, 520)

    def shortcut_texts(self) -> list[tuple[str, str]]:
        """The rows as shown (for tests and screen readers)."""
        rows = []
        for row in range(self.table.rowCount()):
            keys, words = self.table.item(row, 0), self.table.item(row, 1)
            rows.append((keys.text() if keys else "", words.text() if words else ""))
        return rows
