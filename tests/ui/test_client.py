"""The desktop client against a real backend and sandbox: threading, work queue, supervisor, composer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from sqlalchemy import update

from app.commands.demo import DemoStack
from backend.database.models import Contact
from backend.users import create_user
from tests.ui.conftest import (
    TcpRelay,
    conversation_id_for,
    customer_writes,
    message,
    send_text,
    wait_for,
    wait_for_state,
)
from ui.api.client import ApiClient
from ui.api.resources import InboundMessage, OutboundMessage
from ui.runner import BackgroundRunner
from ui.views.composer import CLOSED_WINDOW_TEXT, SEND_ANYWAY
from ui.views.main_window import MainWindow

pytestmark = pytest.mark.timeout(90)

CUSTOMER = "+16505551234"
OTHER_CUSTOMER = "+447911123456"


def _open_conversation(qtbot: Any, window: MainWindow, conversation_id: int) -> None:
    """Select a conversation in the list once it is there, and wait for its thread."""
    qtbot.waitUntil(lambda: window.inbox.conversations.row_of(conversation_id) is not None, timeout=10_000)
    with qtbot.waitSignal(window.inbox.thread_model.loaded, timeout=10_000):
        assert window.inbox.select_conversation_id(conversation_id)


def _thread_outbound(window: MainWindow, key: str) -> OutboundMessage | None:
    for item in window.inbox.thread_model.items:
        if isinstance(item, OutboundMessage) and item.key == key:
            return item
    return None


def test_a_reply_appears_under_the_message_it_answers(
    qtbot: Any, stack: DemoStack, window: MainWindow
) -> None:
    customer_writes(stack, CUSTOMER, "Hi, where is my order?")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    key = send_text(stack, CUSTOMER, "It ships today. Reply YES to confirm the address.")
    sent = wait_for_state(stack, key, {"sent", "delivered", "read"})
    _open_conversation(qtbot, window, conversation_id)

    reply_wamid = customer_writes(stack, CUSTOMER, "YES", context_id=sent["wamid"])

    def reply_nested() -> bool:
        item = _thread_outbound(window, key)
        return item is not None and any(reply.wamid == reply_wamid for reply in item.replies)

    qtbot.waitUntil(reply_nested, timeout=15_000)
    model = window.inbox.thread_model
    reply_index = model.index_of_inbound(reply_wamid)
    assert reply_index.isValid()
    parent = model.parent(reply_index)
    assert parent.isValid() and parent == model.index_of_key(key)
    reply = model.item(reply_index)
    assert isinstance(reply, InboundMessage) and reply.text == "YES" and reply.attributed
    # The opening message, which answers nothing we sent, stays at the top level.
    top_level_inbound = [item for item in model.items if isinstance(item, InboundMessage)]
    assert [item.text for item in top_level_inbound] == ["Hi, where is my order?"]
    assert window.inbox.thread_view.isExpanded(parent)


def test_an_unattributed_reply_is_in_the_work_queue_and_moves_when_linked(
    qtbot: Any, stack: DemoStack, window: MainWindow
) -> None:
    customer_writes(stack, CUSTOMER, "Hello")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    key = send_text(stack, CUSTOMER, "Your table is booked for 7 pm.")
    wait_for_state(stack, key, {"sent", "delivered", "read"})
    loose_wamid = customer_writes(stack, CUSTOMER, "Can we make it 8?")

    work_queue = window.work_queue
    qtbot.waitUntil(lambda: work_queue.model.row_of(loose_wamid) is not None, timeout=15_000)
    assert "Work queue (" in window.tabs.tabText(1)
    window.show_tab("work-queue")
    assert work_queue.select_wamid(loose_wamid)
    chooser = work_queue.chooser
    qtbot.waitUntil(lambda: bool(chooser.messages), timeout=10_000)
    assert chooser.messages[0].key == key
    with qtbot.waitSignal(work_queue.reply_placed, timeout=10_000, raising=False) as placed:
        qtbot.mouseClick(chooser.link_button, Qt.MouseButton.LeftButton)
    if "not available in this build" in chooser.status_label.text():
        pytest.skip("the backend has no attribution yet (backend/inbox/attribution.py)")
    assert placed.signal_triggered, chooser.status_label.text()
    assert placed.args == [loose_wamid, conversation_id, key]
    assert work_queue.model.row_of(loose_wamid) is None

    window.show_tab("inbox")
    _open_conversation(qtbot, window, conversation_id)
    linked = _thread_outbound(window, key)
    assert linked is not None
    assert [reply.wamid for reply in linked.replies] == [loose_wamid]
    top_level = [item.wamid for item in window.inbox.thread_model.items if isinstance(item, InboundMessage)]
    assert loose_wamid not in top_level


def test_a_supervisor_resolves_an_unknown_send(qtbot: Any, stack: DemoStack, window: MainWindow) -> None:
    customer_writes(stack, CUSTOMER, "Hi")
    conversation_id_for(stack, CUSTOMER)
    stack.sandbox.set_faults(drop_rate=1.0)
    key = send_text(stack, CUSTOMER, "Your code is 123456", purpose="one_time_code")
    wait_for_state(stack, key, {"unknown"})
    stack.sandbox.set_faults(reset=True)

    supervisor = window.supervisor
    qtbot.waitUntil(lambda: window.is_supervisor, timeout=10_000)
    assert window.tabs.isTabVisible(2)
    supervisor.refresh()
    qtbot.waitUntil(lambda: supervisor.model.row_of(key) is not None, timeout=15_000)
    window.show_tab("supervisor")
    assert supervisor.select_key(key)
    qtbot.waitUntil(lambda: CUSTOMER in supervisor.customer_label.text(), timeout=10_000)

    qtbot.mouseClick(supervisor.resend_button, Qt.MouseButton.LeftButton)
    confirmation = supervisor.confirmation
    assert confirmation is not None and confirmation.isVisible()
    assert CUSTOMER in confirmation.text() and "twice" in confirmation.text()
    with qtbot.waitSignal(supervisor.resolved, timeout=10_000):
        confirmation.button(confirmation.StandardButton.Yes).click()
    assert supervisor.model.row_of(key) is None
    final = wait_for_state(stack, key, {"sent", "delivered", "read"})
    assert final["attempts"] >= 2
    # The dropped attempt never reached the customer, so the resend is their only copy.
    ledger = [entry for entry in stack.sandbox.ledger() if entry["biz_opaque_callback_data"] == key]
    assert len(ledger) == 1


def test_declining_the_confirmation_decides_nothing(qtbot: Any, stack: DemoStack, window: MainWindow) -> None:
    customer_writes(stack, CUSTOMER, "Hi")
    conversation_id_for(stack, CUSTOMER)
    stack.sandbox.set_faults(drop_rate=1.0)
    key = send_text(stack, CUSTOMER, "Your code is 654321", purpose="one_time_code")
    wait_for_state(stack, key, {"unknown"})
    stack.sandbox.set_faults(reset=True)
    supervisor = window.supervisor
    qtbot.waitUntil(lambda: window.is_supervisor, timeout=10_000)
    supervisor.refresh()
    qtbot.waitUntil(lambda: supervisor.model.row_of(key) is not None, timeout=15_000)
    assert supervisor.select_key(key)
    qtbot.mouseClick(supervisor.cancel_button, Qt.MouseButton.LeftButton)
    confirmation = supervisor.confirmation
    assert confirmation is not None
    confirmation.button(confirmation.StandardButton.No).click()
    qtbot.wait(300)
    assert message(stack, key)["state"] == "unknown"


def test_the_composer_switches_to_templates_when_the_window_closes(
    qtbot: Any, stack: DemoStack, window: MainWindow
) -> None:
    customer_writes(stack, CUSTOMER, "Hi there")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    closes_at = datetime.now(UTC) + timedelta(seconds=3)
    with stack.database.transaction() as session:
        session.execute(update(Contact).where(Contact.number == CUSTOMER).values(window_closes_at=closes_at))
    window.inbox.conversations.refresh()
    qtbot.waitUntil(lambda: window.inbox.conversations.row_of(conversation_id) is not None, timeout=10_000)
    _open_conversation(qtbot, window, conversation_id)
    composer = window.inbox.composer
    qtbot.waitUntil(lambda: bool(composer._templates), timeout=10_000)
    assert not composer.showing_templates
    assert composer.text_box.isEnabled()

    qtbot.waitUntil(lambda: composer.showing_templates, timeout=10_000)
    assert not composer.text_box.isEnabled()
    assert composer.text_box.placeholderText() == CLOSED_WINDOW_TEXT
    assert composer.template_page.isVisible()
    # One field per parameter, and a live preview of the filled-in body.
    composer.template_box.setCurrentIndex(1)  # appointment_reminder: date, time
    assert len(composer.parameter_fields) == 2
    qtbot.keyClicks(composer.parameter_fields[0], "Friday")
    assert "Friday" in composer.preview.text() and "[time]" in composer.preview.text()
    qtbot.keyClicks(composer.parameter_fields[1], "10:30")
    with qtbot.waitSignal(composer.reply_sent, timeout=10_000) as sent:
        qtbot.mouseClick(composer.send_template_button, Qt.MouseButton.LeftButton)
    assert message(stack, sent.args[0].key)["state"] in {
        "queued",
        "sending",
        "accepted",
        "sent",
        "delivered",
        "read",
    }


def test_a_double_click_sends_once(qtbot: Any, stack: DemoStack, window: MainWindow) -> None:
    customer_writes(stack, CUSTOMER, "Is the blue one back?")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    _open_conversation(qtbot, window, conversation_id)
    composer = window.inbox.composer
    qtbot.waitUntil(lambda: composer.send_button.isEnabled() or composer.text_box.isEnabled(), timeout=5000)
    qtbot.keyClicks(composer.text_box, "Yes, back in stock since Monday.")
    key = composer.draft_key
    with qtbot.waitSignal(composer.reply_sent, timeout=10_000):
        qtbot.mouseDClick(composer.send_button, Qt.MouseButton.LeftButton)
        composer.send()  # a third press while the first is on its way
    qtbot.wait(500)
    assert composer.draft_key != key, "a sent draft gives the next draft a new key"
    assert message(stack, key)["state"] != "failed"
    wait_for(
        lambda: [e for e in stack.sandbox.ledger() if e["body"] == "Yes, back in stock since Monday."],
        timeout=10,
    )
    qtbot.wait(500)
    copies = [
        entry for entry in stack.sandbox.ledger() if entry["body"] == "Yes, back in stock since Monday."
    ]
    assert len(copies) == 1
    window.inbox.refresh_thread()
    qtbot.waitUntil(lambda: _thread_outbound(window, key) is not None, timeout=10_000)
    assert sum(isinstance(item, OutboundMessage) for item in window.inbox.thread_model.items) == 1


def test_the_same_draft_key_twice_is_one_message(qtbot: Any, stack: DemoStack, window: MainWindow) -> None:
    customer_writes(stack, CUSTOMER, "Hello?")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    api = window.inbox._api
    assert api is not None
    first = api.reply(conversation_id, "draft-1", text="One moment please.")
    second = api.reply(conversation_id, "draft-1", text="One moment please.")
    assert first.key == second.key


def test_live_state_marks_and_new_conversations_arrive_without_reloading(
    qtbot: Any, stack: DemoStack, window: MainWindow
) -> None:
    customer_writes(stack, CUSTOMER, "First")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    _open_conversation(qtbot, window, conversation_id)
    key = send_text(stack, CUSTOMER, "Thanks, we're on it.")
    qtbot.waitUntil(lambda: _thread_outbound(window, key) is not None, timeout=10_000)
    qtbot.waitUntil(
        lambda: (item := _thread_outbound(window, key)) is not None and item.state in {"delivered", "read"},
        timeout=15_000,
    )
    customer_writes(stack, OTHER_CUSTOMER, "New here")
    other_id = conversation_id_for(stack, OTHER_CUSTOMER)
    qtbot.waitUntil(lambda: window.inbox.conversations.row_of(other_id) is not None, timeout=10_000)


def test_a_reply_in_my_conversation_notifies_me(qtbot: Any, stack: DemoStack, window: MainWindow) -> None:
    customer_writes(stack, CUSTOMER, "Hi")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    _open_conversation(qtbot, window, conversation_id)
    qtbot.mouseClick(window.inbox.details.assign_me_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.inbox.details.assignee_label.text() == stack.user_name, timeout=10_000)
    qtbot.waitUntil(lambda: conversation_id in window._my_conversations, timeout=10_000)
    with qtbot.waitSignal(window.notified, timeout=15_000) as notified:
        customer_writes(stack, CUSTOMER, "Are you there?")
    assert "New reply" in notified.args[0]


def test_a_lost_connection_shows_a_banner_and_reconnects_without_missing_events(
    qtbot: Any, stack: DemoStack, runner: BackgroundRunner
) -> None:
    relay = TcpRelay(stack.server.port).start()
    api = ApiClient(relay.url, stack.token)
    window = MainWindow(api, runner, user_name=stack.user_name, wait_seconds=1.0)
    qtbot.addWidget(window)
    window.show()
    window.start()
    feed = window.feed
    assert feed is not None
    qtbot.waitUntil(lambda: feed.connected and not feed._needs_start_seq, timeout=10_000)
    relay.cut()
    qtbot.waitUntil(window.banner.isVisible, timeout=15_000)
    assert "lost" in window.banner.text()
    # What happens while the client is away is in the journal when it comes back.
    customer_writes(stack, CUSTOMER, "Written while you were away")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    relay.start()
    qtbot.waitUntil(lambda: not window.banner.isVisible(), timeout=15_000)
    qtbot.waitUntil(lambda: window.inbox.conversations.row_of(conversation_id) is not None, timeout=15_000)
    window.stop()
    relay.cut()
    api.close()


def test_tabs_shortcuts_and_size(qtbot: Any, window: MainWindow) -> None:
    assert window.width() >= 1200 and window.height() >= 750
    qtbot.waitUntil(lambda: window.is_supervisor, timeout=10_000)
    for number, tab in ((4, 3), (2, 1), (3, 2), (1, 0)):
        qtbot.keyClick(window, Qt.Key(Qt.Key.Key_0 + number), Qt.KeyboardModifier.AltModifier)
        assert window.tabs.currentIndex() == tab
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert window.inbox.search_box.hasFocus()
    for widget in (window.inbox.search_box, window.inbox.composer.text_box, window.inbox.conversation_list):
        assert widget.accessibleName()
    assert not window.inbox.thread_model.canFetchMore(QModelIndex())


def test_an_agent_sees_no_supervisor_tab_and_mine_lists_their_conversations(
    qtbot: Any, stack: DemoStack, runner: BackgroundRunner
) -> None:
    from backend.clock import utc_now
    from backend.users import create_user

    with stack.database.transaction() as session:
        token = create_user(session, "sam", "agent", utc_now())
    customer_writes(stack, CUSTOMER, "Hi")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    api = ApiClient(stack.url, token)
    window = MainWindow(api, runner, wait_seconds=1.0)
    qtbot.addWidget(window)
    window.show()
    window.start()
    qtbot.waitUntil(lambda: window.inbox._user_name == "sam", timeout=10_000)
    assert not window.tabs.isTabVisible(2)
    qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.AltModifier)
    assert window.tabs.currentIndex() != 2
    mine_button = window.inbox.view_buttons.button(0)
    with qtbot.waitSignal(window.inbox.conversations.loaded, timeout=10_000):
        qtbot.mouseClick(mine_button, Qt.MouseButton.LeftButton)
    assert window.inbox.conversations.row_of(conversation_id) is None
    window.inbox.view_buttons.button(2).click()
    _open_conversation(qtbot, window, conversation_id)
    qtbot.mouseClick(window.inbox.details.assign_me_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.inbox.details.assignee_label.text() == "sam", timeout=10_000)
    with qtbot.waitSignal(window.inbox.conversations.loaded, timeout=10_000):
        qtbot.mouseClick(mine_button, Qt.MouseButton.LeftButton)
    assert window.inbox.conversations.row_of(conversation_id) is not None
    # An agent never sees "Assign to…" (it needs a supervisor); their own conversation can go back.
    details = window.inbox.details
    assert not details.assign_other_button.isVisible()
    assert details.assign_me_button.text() == "Give back"
    qtbot.mouseClick(details.assign_me_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: details.assignee_label.text() == "nobody", timeout=10_000)
    assert details.assign_me_button.text() == "Assign to me"
    window.stop()
    api.close()


def test_a_failed_send_shows_what_went_wrong_in_words(
    qtbot: Any, stack: DemoStack, window: MainWindow
) -> None:
    from ui.views.delegates import ThreadDelegate

    customer_writes(stack, CUSTOMER, "Hi")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    stack.sandbox.set_faults(message_failure_rate=1.0)
    key = send_text(stack, CUSTOMER, "Your parcel is at the depot.")
    failed = wait_for_state(stack, key, {"failed"})
    stack.sandbox.set_faults(reset=True)
    _open_conversation(qtbot, window, conversation_id)
    item = _thread_outbound(window, key)
    assert item is not None and item.state == "failed" and item.error is not None
    assert item.error.code == failed["error"]["code"]
    _text, caption, problem = ThreadDelegate._compose_lines(item)
    assert "✕" in caption
    assert problem and f"code {item.error.code}" in problem and not problem.startswith("(")
    window.inbox.thread_view.setCurrentIndex(window.inbox.thread_model.index_of_key(key))
    assert window.inbox.details.error_label.text() == problem


def test_a_colleagues_presence_status_and_reply_reach_my_desk(
    qtbot: Any, stack: DemoStack, window: MainWindow
) -> None:
    customer_writes(stack, CUSTOMER, "Can I change my delivery address?")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    with stack.database.transaction() as session:
        token = create_user(session, "sam", "agent", datetime.now(UTC))
    colleague = ApiClient(stack.url, token)
    try:
        qtbot.waitUntil(lambda: window.feed is not None and window.feed.seq > 0, timeout=10_000)
        _open_conversation(qtbot, window, conversation_id)
        inbox = window.inbox
        # My desk tells the backend it is viewing; the colleague's typing arrives through the journal.
        viewers = wait_for(lambda: colleague.presence(conversation_id, typing=True))
        assert stack.user_name in {viewer.user for viewer in viewers}
        qtbot.waitUntil(lambda: inbox.viewers_label.text() == "sam is typing…", timeout=10_000)
        colleague.set_status(conversation_id, "pending")
        qtbot.waitUntil(lambda: inbox.status_badge.text() == "Pending", timeout=10_000)
        assert inbox.reopen_button.isEnabled() and not inbox.pending_button.isEnabled()

        # The colleague answers while my desk is not listening: my reply is stopped and sent anyway.
        assert window.feed is not None
        window.feed.stop()
        colleague.reply(conversation_id, "sam-1", text="Sure, what is the new address?")
        composer = inbox.composer
        composer.text_box.setPlainText("Which address should we use?")
        qtbot.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: composer.collision_dialog is not None, timeout=10_000)
        dialog = composer.collision_dialog
        assert dialog is not None and "sam: Sure, what is the new address?" in dialog.text()
        with qtbot.waitSignal(composer.reply_sent, timeout=10_000) as sent:
            next(button for button in dialog.buttons() if button.text() == SEND_ANYWAY).click()
        assert message(stack, sent.args[0].key)["state"] in {
            "queued",
            "sending",
            "accepted",
            "sent",
            "delivered",
            "read",
        }
        qtbot.waitUntil(lambda: len(inbox.outbound_keys()) == 2, timeout=10_000)
    finally:
        colleague.close()


def test_a_resolved_conversation_leaves_the_open_view_and_comes_back_when_the_customer_writes(
    qtbot: Any, stack: DemoStack, window: MainWindow
) -> None:
    customer_writes(stack, CUSTOMER, "Thanks, that is all!")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    qtbot.waitUntil(lambda: window.feed is not None and window.feed.seq > 0, timeout=10_000)
    _open_conversation(qtbot, window, conversation_id)
    inbox = window.inbox
    qtbot.mouseClick(inbox.resolve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: inbox.conversations.row_of(conversation_id) is None, timeout=10_000)
    assert inbox.selected_conversation is not None and inbox.selected_conversation.id == conversation_id
    customer_writes(stack, CUSTOMER, "Oh, one more thing")
    qtbot.waitUntil(lambda: inbox.conversations.row_of(conversation_id) is not None, timeout=15_000)
    qtbot.waitUntil(lambda: inbox.status_badge.text() == "Open", timeout=10_000)
