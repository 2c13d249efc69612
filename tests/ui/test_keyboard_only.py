"""The main tasks by key presses alone: open a conversation, reply, place a loose reply, decide a send."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QApplication, QWidget

from app.commands.demo import DemoStack
from tests.ui.conftest import conversation_id_for, customer_writes, send_text, wait_for, wait_for_state
from ui.api.resources import OutboundMessage
from ui.views.main_window import MainWindow

pytestmark = pytest.mark.timeout(120)
CUSTOMER = "+16505551234"
# More Tab presses than any screen has controls: reaching a control must not take longer.
MAX_TABS = 60


def press(qtbot: Any, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """A key press, to whatever has the keyboard focus (as a person at the desk would)."""
    target = QApplication.focusWidget() or QApplication.activeWindow()
    assert target is not None, "nothing has the keyboard focus"
    qtbot.keyClick(target, key, modifier)


def tab_to(qtbot: Any, widget: QWidget) -> None:
    """Press Tab until the widget has the focus; fails if the tab order never reaches it."""
    for _press in range(MAX_TABS):
        if QApplication.focusWidget() is widget:
            return
        press(qtbot, Qt.Key.Key_Tab)
    raise AssertionError(f"Tab never reaches {type(widget).__name__} {widget.accessibleName()!r}")


def choose_row(qtbot: Any, view: QAbstractItemView, row: int) -> None:
    """Home, Down to the row, and Space when moving there did not select it already."""
    press(qtbot, Qt.Key.Key_Home)
    for _step in range(row):
        press(qtbot, Qt.Key.Key_Down)
    if not view.selectionModel().isRowSelected(row):
        press(qtbot, Qt.Key.Key_Space)
    assert view.selectionModel().isRowSelected(row)


def test_the_main_tasks_with_the_keyboard_alone(qtbot: Any, stack: DemoStack, window: MainWindow) -> None:
    """Every step is a key press; the window, not the test, does the work."""
    # A customer who wrote, one reply nobody can place, and one send whose outcome is unknown.
    customer_writes(stack, CUSTOMER, "Hello, is my order on its way?")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    booked = send_text(stack, CUSTOMER, "Your table is booked for 7 pm.")
    wait_for_state(stack, booked, {"sent", "delivered", "read"})
    loose = customer_writes(stack, CUSTOMER, "Can we make it 8?")
    stack.sandbox.set_faults(drop_rate=1.0)
    unknown = send_text(stack, CUSTOMER, "Your code is 123456", purpose="one_time_code")
    wait_for_state(stack, unknown, {"unknown"})
    stack.sandbox.set_faults(reset=True)

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.waitUntil(lambda: window.is_supervisor, timeout=10_000)
    inbox = window.inbox
    qtbot.waitUntil(lambda: inbox.conversations.row_of(conversation_id) is not None, timeout=10_000)

    # Open the conversation: Ctrl+K, type the number, then Tab to the list and choose it with the arrows.
    press(qtbot, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is inbox.search_box
    qtbot.keyClicks(inbox.search_box, CUSTOMER.lstrip("+"))
    qtbot.waitUntil(lambda: inbox.conversations.rowCount() == 1, timeout=10_000)
    tab_to(qtbot, inbox.conversation_list)
    choose_row(qtbot, inbox.conversation_list, 0)
    qtbot.waitUntil(lambda: inbox.thread_model.conversation_id == conversation_id, timeout=10_000)
    assert inbox.selected_conversation is not None and inbox.selected_conversation.id == conversation_id

    # Reply: Tab to the text box, type, Ctrl+Enter.
    tab_to(qtbot, inbox.composer.text_box)
    qtbot.keyClicks(inbox.composer.text_box, "It left the depot this morning.")
    press(qtbot, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    def replied() -> bool:
        return any(
            isinstance(item, OutboundMessage) and item.body == "It left the depot this morning."
            for item in inbox.thread_model.items
        )

    qtbot.waitUntil(replied, timeout=15_000)

    # Place the loose reply from the work queue: Alt+2, Tab to the list, choose, Tab to Link, Space.
    work_queue = window.work_queue
    qtbot.waitUntil(lambda: work_queue.model.row_of(loose) is not None, timeout=15_000)
    press(qtbot, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    assert window.tabs.currentWidget() is work_queue
    tab_to(qtbot, work_queue.list_view)
    row = work_queue.model.row_of(loose)
    assert row is not None
    choose_row(qtbot, work_queue.list_view, row)
    chooser = work_queue.chooser
    qtbot.waitUntil(lambda: bool(chooser.messages) and chooser.link_button.isEnabled(), timeout=10_000)
    tab_to(qtbot, chooser.link_button)
    with qtbot.waitSignal(work_queue.reply_placed, timeout=10_000):
        press(qtbot, Qt.Key.Key_Space)
    assert work_queue.model.row_of(loose) is None

    # Decide the unknown send: Alt+3, Tab to the list, choose, Tab to Resend, Space, then Yes.
    supervisor = window.supervisor
    supervisor.refresh()
    qtbot.waitUntil(lambda: supervisor.model.row_of(unknown) is not None, timeout=15_000)
    press(qtbot, Qt.Key.Key_3, Qt.KeyboardModifier.AltModifier)
    assert window.tabs.currentWidget() is supervisor
    tab_to(qtbot, supervisor.list_view)
    row = supervisor.model.row_of(unknown)
    assert row is not None
    choose_row(qtbot, supervisor.list_view, row)
    qtbot.waitUntil(supervisor.resend_button.isEnabled, timeout=10_000)
    tab_to(qtbot, supervisor.resend_button)
    press(qtbot, Qt.Key.Key_Space)
    confirmation = supervisor.confirmation
    assert confirmation is not None
    qtbot.waitUntil(confirmation.isVisible)
    # A new dialog takes the keyboard (the window manager's part, which the offscreen platform leaves to us).
    confirmation.activateWindow()
    qtbot.waitUntil(confirmation.isActiveWindow)
    assert QApplication.focusWidget() is confirmation.button(confirmation.StandardButton.No)
    yes = confirmation.button(confirmation.StandardButton.Yes)
    with qtbot.waitSignal(supervisor.resolved, timeout=10_000):
        # The safe answer is the default: Tab to Yes, then Space.
        tab_to(qtbot, yes)
        press(qtbot, Qt.Key.Key_Space)
    wait_for(lambda: supervisor.model.row_of(unknown) is None)
