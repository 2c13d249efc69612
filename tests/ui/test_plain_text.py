"""Text from customers, Meta and the API shows literally in every view: markup in it is never rendered."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from PySide6 import QtGui
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from ui.api.client import ApiClient
from ui.api.resources import CONVERSATION_ASSIGNED, INBOUND_RECEIVED, Event
from ui.models.paged import PagedListModel
from ui.runner import BackgroundRunner
from ui.views.main_window import SUPERVISOR_TAB, MainWindow

pytestmark = pytest.mark.timeout(60)

# A fake red banner, a fake green badge, and a name that comments out whatever follows it.
RED_NOTICE = '<b style="color:red">SYSTEM NOTICE</b>'
GREEN_BADGE = "<table bgcolor=green><tr><td>✔ Verified</td></tr></table>"
CUT_SHORT = "Bob<b><!--"
# A button reads & as a keyboard-shortcut marker.
AMPERSAND_LABEL = "R&D <i>team</i>"
NUMBER = "+16505551234"
NOW = datetime.now(UTC)


def _time(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def _conversation(conversation_id: int, name: str, last: str, closes_at: datetime | None) -> dict[str, Any]:
    return {
        "id": conversation_id,
        "contact": {"wa_id": NUMBER.lstrip("+"), "number": NUMBER, "name": name},
        "assignee": None,
        "last_message_at": _time(NOW - timedelta(minutes=conversation_id)),
        "unread": 0,
        "window_closes_at": _time(closes_at),
        "window_open": closes_at is not None,
        "last_message": last,
        "status": "open",
        "snoozed_until": None,
        "labels": [RED_NOTICE],
        "viewers": [{"user": CUT_SHORT, "typing": True, "since": _time(NOW)}],
    }


CONVERSATIONS = {
    1: _conversation(1, RED_NOTICE, GREEN_BADGE, NOW + timedelta(hours=2)),
    2: _conversation(2, GREEN_BADGE, RED_NOTICE, None),
    3: _conversation(3, CUT_SHORT, CUT_SHORT, NOW + timedelta(hours=2)),
}


def _message(key: str, state: str, conversation_id: int, error: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "key": key,
        "to": NUMBER,
        "purpose": "support",
        "state": state,
        "wamid": f"wamid.{key}",
        "attempts": 1,
        "error": error,
        "created_at": _time(NOW - timedelta(minutes=5)),
        "sent_at": None,
        "delivered_at": None,
        "read_at": None,
        "failed_at": None,
        "conversation_id": conversation_id,
        "reply_to": None,
        "hold_reason": None,
        "trigger_ref": RED_NOTICE,
    }


def _inbound(wamid: str, text: str, *, attributed: bool) -> dict[str, Any]:
    return {
        "direction": "inbound",
        "wamid": wamid,
        "type": "text",
        "text": text,
        "choice": None,
        "choice_title": None,
        "context_id": None,
        "attributed": attributed,
        "placement": "reply" if attributed else "work_queue",
        "reaction": None,
        "received_at": _time(NOW - timedelta(minutes=1)),
    }


THREAD = [
    {
        **_message(
            "order-1",
            "failed",
            1,
            {"code": None, "title": RED_NOTICE, "details": GREEN_BADGE, "reason": "other"},
        ),
        "direction": "outbound",
        "kind": "text",
        "body": GREEN_BADGE,
        "replies": [_inbound("wamid.reply", RED_NOTICE, attributed=True)],
    },
    _inbound("wamid.loose", CUT_SHORT, attributed=False),
    {
        "direction": "note",
        "id": 1,
        "author": GREEN_BADGE,
        "text": RED_NOTICE,
        "created_at": _time(NOW),
    },
]
WORK_ITEM = {
    "wamid": "wamid.loose",
    "conversation_id": 1,
    "from": NUMBER,
    "name": GREEN_BADGE,
    "type": "text",
    "text": RED_NOTICE,
    "context_id": None,
    "received_at": _time(NOW),
    "placement": "work_queue",
    "candidates": [],
}
UNKNOWN_ERROR = {
    "code": None,
    "title": "outcome unknown",
    "details": RED_NOTICE,
    "reason": "no_answer_after_send",
}
SUPERVISOR_ITEM = {
    **_message("order-2", "unknown", 3, UNKNOWN_ERROR),
    "body": RED_NOTICE,
    "name": CUT_SHORT,
    "reason": "unknown",
    "age_seconds": 300.0,
    "unknown_since": _time(NOW),
    "lease_expires_at": None,
    "last_error": UNKNOWN_ERROR,
    "evidence": [],
}
TEMPLATE = {
    "name": RED_NOTICE,
    "language": "en",
    "body": GREEN_BADGE + " {{1}}",
    "parameters": [CUT_SHORT],
    "parameter_count": 1,
    "buttons": [RED_NOTICE],
}
METRICS = {
    "sending_over_1m": 0,
    "dedupe_rejections": 0,
    "duplicate_webhooks": 0,
    "unattributed_inbound": 1,
    "sent_to_delivered_seconds": {"p50": None, "p95": None},
    "queue_depth": {"queued": 0},
    "webhook_parse_failures": 0,
    "webhook_subscriptions_disabled": 0,
    "outgoing_deliveries_pending": 0,
}


def _fake_backend(request: httpx.Request) -> httpx.Response:
    """The backend's answers, with markup in every name and text a customer, Meta or the API supplies."""
    path = request.url.path
    parts = path.strip("/").split("/")
    if path == "/v1/me":
        body: Any = {"name": "dana", "role": "supervisor"}
    elif path == "/v1/conversations":
        body = {"conversations": list(CONVERSATIONS.values()), "next_cursor": None}
    elif parts[:2] == ["v1", "conversations"] and len(parts) == 4 and parts[3] == "thread":
        viewers = CONVERSATIONS[int(parts[2])]["viewers"]
        body = {"messages": THREAD if parts[2] == "1" else [], "next_cursor": None, "viewers": viewers}
    elif parts[:2] == ["v1", "conversations"]:
        body = {key: value for key, value in CONVERSATIONS[int(parts[2])].items() if key != "last_message"}
    elif path == "/v1/work-queue":
        body = {"items": [WORK_ITEM], "next_cursor": None}
    elif path == "/v1/supervisor/queue":
        body = {"items": [SUPERVISOR_ITEM], "next_cursor": None}
    elif path == "/v1/templates":
        body = {"templates": [TEMPLATE], "next_cursor": None}
    elif path == "/v1/metrics":
        body = METRICS
    elif path == "/v1/labels":
        body = {"labels": [{"name": RED_NOTICE, "count": 1}, {"name": AMPERSAND_LABEL, "count": 1}]}
    elif path == "/v1/canned-replies":
        body = {"canned_replies": []}
    elif parts[:2] == ["v1", "conversations"] and len(parts) == 4 and parts[3] == "presence":
        body = {"viewers": CONVERSATIONS[int(parts[2])]["viewers"]}
    else:
        return httpx.Response(404, json={"error": {"code": "not_found", "message": path}})
    return httpx.Response(200, json=body)


@pytest.fixture
def window(qtbot: Any) -> Iterator[MainWindow]:
    """The whole client against the fake backend, loaded."""
    api = ApiClient("http://backend.test", "token", transport=httpx.MockTransport(_fake_backend))
    runner = BackgroundRunner()
    main = MainWindow(api, runner, user_name="dana", live=False)
    qtbot.addWidget(main)
    main.show()
    main.start()
    qtbot.waitUntil(lambda: len(main.inbox.conversations.items) == 3, timeout=10_000)
    qtbot.waitUntil(lambda: main.is_supervisor and bool(main.supervisor.model.items), timeout=10_000)
    qtbot.waitUntil(lambda: bool(main.work_queue.model.items), timeout=10_000)
    qtbot.waitUntil(lambda: main.inbox.composer.template_box.count() == 1, timeout=10_000)
    yield main
    main.close()
    qtbot.waitUntil(lambda: runner.pending_count == 0, timeout=10_000)
    runner.shutdown()
    api.close()


def markup_colours(widget: QWidget) -> set[str]:
    """Which of the markup's colours (pure red text, the green table) appear on the widget's pixels."""
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)
    pixels = bytes(image.constBits())
    found = set()
    for name, pixel in (("red", bytes([0, 0, 255, 255])), ("green", bytes([0, 128, 0, 255]))):
        start = pixels.find(pixel)
        while start != -1 and start % 4:
            start = pixels.find(pixel, start + 1)
        if start != -1:
            found.add(name)
    return found


def shown_as_tooltip(tooltip: str) -> str:
    """The text a tooltip shows: Qt renders it as rich text when it looks like markup."""
    document = QTextDocument()
    if QtGui.Qt.mightBeRichText(tooltip):
        document.setHtml(tooltip)
    else:
        document.setPlainText(tooltip)
    return document.toPlainText()


def assert_every_label_plain(*widgets: QWidget) -> None:
    """Every label with text under the widgets shows it literally."""
    for widget in widgets:
        for label in widget.findChildren(QLabel):
            if label.text():
                assert label.textFormat() == Qt.TextFormat.PlainText, f"{label.text()!r} may render as markup"


def test_the_colour_probe_sees_rendered_markup(qtbot: Any) -> None:
    for text, colour in ((RED_NOTICE, "red"), (GREEN_BADGE, "green")):
        label = QLabel(text)
        qtbot.addWidget(label)
        label.show()
        assert markup_colours(label) == {colour}, "rich text would show this colour"


def test_markup_in_names_and_texts_shows_literally_in_every_view(qtbot: Any, window: MainWindow) -> None:
    inbox = window.inbox
    # Conversation list (painted by its delegate) and its tooltips.
    model = inbox.conversations
    for row, conversation in enumerate(model.items):
        tooltip = model.data(model.index(row, 0), Qt.ItemDataRole.ToolTipRole)
        assert conversation.contact.display_name in shown_as_tooltip(tooltip)

    # Thread header, details pane, and the thread's bubbles.
    with qtbot.waitSignal(inbox.thread_model.loaded, timeout=10_000):
        assert inbox.select_conversation_id(1)
    assert RED_NOTICE in inbox.thread_header.text()
    assert inbox.details.name_label.text() == RED_NOTICE
    # A colleague's name in the typing line, labels as chips and a note's author and text.
    assert inbox.viewers_label.text() == f"{CUT_SHORT} is typing…"
    assert inbox.details.chip_buttons[RED_NOTICE].text() == f"{RED_NOTICE}  ✕"
    qtbot.waitUntil(lambda: inbox.label_filter.count() == 3, timeout=10_000)
    assert inbox.label_filter.itemText(2) == f"{AMPERSAND_LABEL}  (1)"
    inbox.details.show_conversation(replace(inbox.details._conversation, labels=(AMPERSAND_LABEL,)))
    chip = inbox.details.chip_buttons[AMPERSAND_LABEL]
    assert chip.text() == "R&&D <i>team</i>  ✕"
    assert chip.accessibleName() == f"Remove label {AMPERSAND_LABEL}"
    note = inbox.thread_model.index(2, 0)
    shown = inbox.thread_model.data(note, Qt.ItemDataRole.DisplayRole)
    assert shown.startswith(f"Note by {GREEN_BADGE}, ") and shown.endswith(f": {RED_NOTICE}")
    inbox.thread_view.setCurrentIndex(note)
    assert inbox.details.trigger_label.text() == f"by {GREEN_BADGE}"
    inbox.thread_view.setCurrentIndex(inbox.thread_model.index_of_key("order-1"))
    assert inbox.details.trigger_label.text() == RED_NOTICE
    assert GREEN_BADGE in inbox.details.error_label.text()
    assert markup_colours(window) == set()

    # The link dialog quotes the customer and offers our messages.
    inbox.open_link_dialog("wamid.loose")
    dialog = inbox.link_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: bool(dialog.chooser.messages), timeout=10_000)
    assert any(label.text() == f"“{CUT_SHORT}”" for label in dialog.findChildren(QLabel))
    assert GREEN_BADGE in dialog.chooser.message_list.item(0).text()
    assert markup_colours(dialog) == set()
    assert_every_label_plain(dialog)
    dialog.reject()

    # The work queue: the sender, the reply, its tooltip, the chooser.
    window.show_tab("work-queue")
    work_queue = window.work_queue
    assert work_queue.select_wamid("wamid.loose")
    assert GREEN_BADGE in work_queue.from_label.text() and RED_NOTICE in work_queue.reply_label.text()
    qtbot.waitUntil(lambda: bool(work_queue.chooser.messages), timeout=10_000)
    _check_tooltips(work_queue.model, RED_NOTICE)
    assert markup_colours(window) == set()

    # The supervisor's labels and the Resend confirmation, which keeps its warning whatever the name.
    assert window.tabs.isTabVisible(SUPERVISOR_TAB)
    window.show_tab("supervisor")
    supervisor = window.supervisor
    assert supervisor.select_key("order-2")
    qtbot.waitUntil(lambda: supervisor.customer_label.text() == f"{CUT_SHORT} ({NUMBER})", timeout=10_000)
    assert supervisor.body_label.text() == RED_NOTICE
    assert RED_NOTICE in supervisor.error_label.text()
    _check_tooltips(supervisor.model, CUT_SHORT)
    assert markup_colours(window) == set()
    supervisor.ask("resend")
    confirmation = supervisor.confirmation
    assert confirmation is not None
    assert confirmation.textFormat() == Qt.TextFormat.PlainText
    text = confirmation.text()
    assert CUT_SHORT in text and text.endswith("they will get this message twice.")
    assert_every_label_plain(confirmation)
    assert markup_colours(confirmation) == set()
    confirmation.button(QMessageBox.StandardButton.No).click()

    # The composer's template picker: names, parameter labels and preview come from the API.
    window.show_tab("inbox")
    with qtbot.waitSignal(inbox.thread_model.loaded, timeout=10_000):
        assert inbox.select_conversation_id(2)
    composer = inbox.composer
    assert composer.showing_templates
    assert GREEN_BADGE in composer.preview.text()
    assert markup_colours(window) == set()

    # The connection banner carries the API's words.
    window._connection_lost(RED_NOTICE)
    assert RED_NOTICE in window.banner.text()
    assert markup_colours(window) == set()

    # A desktop notification never carries markup: some systems render a notification's body.
    with qtbot.waitSignal(window.notified, timeout=5000) as notified:
        window.handle_events(
            [
                Event(seq=1, type=CONVERSATION_ASSIGNED, at=NOW, conversation_id=3, assignee="dana"),
                Event(
                    seq=2,
                    type=INBOUND_RECEIVED,
                    at=NOW,
                    conversation_id=3,
                    attributed=True,
                    message_type="text",
                ),
            ]
        )
    assert notified.args == [f"New reply from {NUMBER}"]

    window.show_tab("health")
    assert_every_label_plain(window)


def _check_tooltips(model: PagedListModel[Any], expected: str) -> None:
    for row in range(model.rowCount(QModelIndex())):
        index = model.index(row, 0)
        tooltip = model.data(index, Qt.ItemDataRole.ToolTipRole)
        assert shown_as_tooltip(tooltip) == model.data(index, Qt.ItemDataRole.DisplayRole)
        assert expected in shown_as_tooltip(tooltip)
