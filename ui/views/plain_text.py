"""Widgets that show text literally: Qt guesses rich text; text from customers or the API is never markup."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A label that never reads its text as markup."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def plain_message_box(
    icon: QMessageBox.Icon, title: str, text: str, parent: QWidget | None = None
) -> QMessageBox:
    """A message box whose text shows literally, markup and all."""
    box = QMessageBox(icon, title, "", parent=parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(text)
    return box
