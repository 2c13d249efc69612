"""Screen readers and the keyboard: every focusable control has a name, and F1 lists the shortcuts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from ui.app import apply_preferences
from ui.views.canned import CannedRepliesDialog
from ui.views.main_window import MainWindow
from ui.views.search import SearchDialog
from ui.views.shortcuts import SHORTCUTS, ShortcutsDialog


@pytest.fixture
def english(qapp: QApplication, tmp_path: Path) -> Iterator[None]:
    """English and light colours before and after."""
    apply_preferences(None, language="en", theme="light", cache_folder=tmp_path)
    yield
    apply_preferences(None, language="en", theme="light", cache_folder=tmp_path)


def unnamed_focusable(root: QWidget) -> list[str]:
    """Controls a keyboard can reach (visible, focusable) that a screen reader could not name."""
    missing = []
    for widget in [root, *root.findChildren(QWidget)]:
        if widget.focusPolicy() == Qt.FocusPolicy.NoFocus or not widget.isVisibleTo(root):
            continue
        if widget.accessibleName().strip():
            continue
        # A button or box that shows its own words is named by them.
        text = getattr(widget, "text", None)
        if callable(text) and str(text()).replace("&", "").strip():
            continue
        missing.append(f"{type(widget).__name__} {widget.objectName()!r} in {type(widget.parent()).__name__}")
    return missing


@pytest.mark.parametrize("language", ["en", "ar"])
def test_every_focusable_control_of_the_main_window_has_an_accessible_name(
    qtbot: Any, english: None, language: str
) -> None:
    """Each tab's controls, shown as a supervisor sees them."""
    apply_preferences(None, language=language)
    window = MainWindow(None, None, user_name="dana", live=False)
    qtbot.addWidget(window)
    for tab in range(window.tabs.count()):
        window.tabs.setTabVisible(tab, True)
    window.show()
    missing: list[str] = []
    for tab in range(window.tabs.count()):
        window.tabs.setCurrentIndex(tab)
        missing.extend(unnamed_focusable(window))
    assert sorted(set(missing)) == []


def test_every_focusable_control_of_the_dialogs_has_an_accessible_name(qtbot: Any, english: None) -> None:
    """Search, canned replies and the shortcut list."""
    for dialog in (
        SearchDialog(None, None),
        CannedRepliesDialog(None, None, editable=True),
        ShortcutsDialog(),
    ):
        qtbot.addWidget(dialog)
        dialog.show()
        assert unnamed_focusable(dialog) == [], type(dialog).__name__


def test_f1_lists_every_shortcut_in_the_agents_language(qtbot: Any, english: None) -> None:
    """F1 opens the list; it names each shortcut the window defines, in Spanish under Spanish."""
    apply_preferences(None, language="es")
    window = MainWindow(None, None, user_name="dana", live=False)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_F1)
    dialog = window.shortcuts_dialog
    assert dialog is not None and dialog.isVisible()
    rows = dialog.shortcut_texts()
    assert len(rows) == len(SHORTCUTS)
    assert ("F1", "Mostrar esta lista de atajos") in rows
    assert any(keys.endswith("R") and words == "Resolver la conversación" for keys, words in rows)


def test_a_message_reads_with_who_when_and_whether_it_was_answered(english: None) -> None:
    """'Customer, 09:34, not answered: Is my order on its way?' until we write after it."""
    from datetime import UTC, datetime, timedelta

    from ui.api.resources import InboundMessage, OutboundMessage
    from ui.models.thread import describe, description
    from ui.presentation import short_time

    received = datetime.now(UTC).replace(microsecond=0)
    question = InboundMessage(
        wamid="wamid.q",
        type="text",
        text="Is my order on its way?",
        choice=None,
        context_id=None,
        attributed=False,
        received_at=received,
        placement="conversation",
    )
    when = short_time(received, datetime.now(UTC))
    assert describe(question, answered=False) == f"Customer, {when}, not answered: Is my order on its way?"
    assert describe(question, answered=True) == f"Customer, {when}: Is my order on its way?"
    answer = OutboundMessage(
        key="k",
        wamid="wamid.a",
        state="read",
        purpose="support",
        body="It ships today.",
        created_at=received + timedelta(minutes=1),
    )
    assert describe(answer).startswith("We sent, ") and describe(answer).endswith(", read: It ships today.")
    assert description(question) == "part of the conversation"
    assert description(answer) == "read"
