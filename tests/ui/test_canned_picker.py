"""Canned replies: "/" and letters offer them in the composer, Enter inserts one; supervisors keep them."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit

from app.commands.demo import DemoStack
from tests.ui.conftest import conversation_id_for, customer_writes
from ui.api.client import BAD_RESPONSE, ApiClient, ApiError
from ui.api.library import CannedReply
from ui.runner import BackgroundRunner
from ui.views.canned import (
    CannedRepliesDialog,
    CannedReplyProvider,
    attach_canned_picker,
    matching_replies,
)

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
MARKUP = "<b style='color:#ff0000'>We open at 9</b>"
CUSTOMER = "+16505551234"


def _reply(number: int, shortcut: str, title: str, text: str, filled: str | None = None) -> CannedReply:
    return CannedReply(number, shortcut, title, text, NOW, filled=filled)


REPLIES = [
    _reply(
        1,
        "address",
        "Ask for the address",
        "Could you send your address, {{name}}?",
        "Could you send your address, Ana?",
    ),
    _reply(2, "hours", "Opening hours", MARKUP, MARKUP),
    _reply(3, "thanks", "Thank you", "Hi {{name}}, thanks for writing!", "Hi Ana, thanks for writing!"),
    _reply(4, "thx", "Short thanks", "Thx {{name}}!", "Thx Ana!"),
]


class FixedReplies:
    """A provider with replies at hand."""

    def __init__(self, replies: Sequence[CannedReply]) -> None:
        self.replies = replies


def _editor(qtbot: Any, kind: type[QPlainTextEdit] | type[QTextEdit] = QPlainTextEdit) -> Any:
    editor = kind()
    qtbot.addWidget(editor)
    editor.resize(400, 120)
    editor.show()
    editor.activateWindow()
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus, timeout=5_000)
    return editor


@pytest.fixture
def editor(qtbot: Any) -> QPlainTextEdit:
    """A focused plain text editor."""
    box: QPlainTextEdit = _editor(qtbot)
    return box


def test_a_slash_and_letters_offer_the_matching_replies(qtbot: Any, editor: QPlainTextEdit) -> None:
    picker = attach_canned_picker(editor, FixedReplies(REPLIES))
    qtbot.keyClicks(editor, "Hello /th")
    assert picker.is_open
    assert [reply.shortcut for reply in picker.shown] == ["thanks", "thx"]
    assert picker.popup.item(0).text() == "/thanks — Thank you\nHi Ana, thanks for writing!"
    qtbot.keyClicks(editor, "x")
    assert [reply.shortcut for reply in picker.shown] == ["thx"]
    qtbot.keyClicks(editor, "z")
    assert not picker.is_open
    # Shortcuts that start with the letters first, then those holding them, in any case.
    assert [reply.shortcut for reply in matching_replies(REPLIES, "HOUR")] == ["hours"]
    assert [reply.shortcut for reply in matching_replies(REPLIES, "s")] == ["address", "hours", "thanks"]


def test_enter_replaces_the_shortcut_with_the_filled_text(qtbot: Any, editor: QPlainTextEdit) -> None:
    picker = attach_canned_picker(editor, FixedReplies(REPLIES))
    qtbot.keyClicks(editor, "Hello /tha")
    with qtbot.waitSignal(picker.inserted, timeout=1_000) as inserted:
        qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert inserted.args == ["thanks"]
    assert editor.toPlainText() == "Hello Hi Ana, thanks for writing!"
    assert editor.textCursor().position() == len(editor.toPlainText())
    assert not picker.is_open
    # Enter went to the picker, not into the text as a new line.
    qtbot.keyClicks(editor, " Bye")
    assert editor.toPlainText() == "Hello Hi Ana, thanks for writing! Bye"


def test_the_whole_shortcut_is_replaced_when_the_cursor_is_inside_it(
    qtbot: Any, editor: QPlainTextEdit
) -> None:
    picker = attach_canned_picker(editor, FixedReplies(REPLIES))
    qtbot.keyClicks(editor, "/addr")
    qtbot.keyClick(editor, Qt.Key.Key_Left)
    qtbot.keyClick(editor, Qt.Key.Key_Left)
    assert picker.is_open
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert editor.toPlainText() == "Could you send your address, Ana?"


def test_tab_arrows_and_a_click_insert_too(qtbot: Any, editor: QPlainTextEdit) -> None:
    picker = attach_canned_picker(editor, FixedReplies(REPLIES))
    qtbot.keyClicks(editor, "/th")
    qtbot.keyClick(editor, Qt.Key.Key_Down)
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert editor.toPlainText() == "Thx Ana!"

    editor.clear()
    qtbot.keyClicks(editor, "/th")
    qtbot.keyClick(editor, Qt.Key.Key_Up)  # wraps to the last
    assert picker.popup.currentRow() == 1
    qtbot.keyClick(editor, Qt.Key.Key_Up)
    item = picker.popup.item(picker.popup.currentRow())
    qtbot.mouseClick(
        picker.popup.viewport(), Qt.MouseButton.LeftButton, pos=picker.popup.visualItemRect(item).center()
    )
    assert editor.toPlainText() == "Hi Ana, thanks for writing!"
    assert not picker.is_open


def test_escape_closes_until_another_shortcut_begins(qtbot: Any, editor: QPlainTextEdit) -> None:
    picker = attach_canned_picker(editor, FixedReplies(REPLIES))
    qtbot.keyClicks(editor, "/th")
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    assert not picker.is_open
    qtbot.keyClicks(editor, "a")
    assert not picker.is_open
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert editor.toPlainText() == "/tha\n"
    qtbot.keyClicks(editor, "/hou")
    assert picker.is_open and [reply.shortcut for reply in picker.shown] == ["hours"]


@pytest.mark.parametrize("typed", ["and/or", "see https://th", "/", "a / th", "/th "])
def test_no_popup_mid_word_or_without_letters(qtbot: Any, editor: QPlainTextEdit, typed: str) -> None:
    picker = attach_canned_picker(editor, FixedReplies(REPLIES))
    qtbot.keyClicks(editor, typed)
    assert not picker.is_open


def test_a_rich_text_editor_gets_the_reply_as_plain_text(qtbot: Any) -> None:
    editor: QTextEdit = _editor(qtbot, QTextEdit)
    picker = attach_canned_picker(editor, FixedReplies(REPLIES))
    qtbot.keyClicks(editor, "/hou")
    assert picker.popup.item(0).text().endswith(MARKUP)
    qtbot.keyClick(editor, Qt.Key.Key_Enter)
    assert editor.toPlainText() == MARKUP
    assert "&lt;b" in editor.toHtml()


# -- the provider and the dialog, on a fake backend ------------------------------------------------


class FakeCannedBackend:
    """The canned-reply routes, with a role, remembering every request."""

    def __init__(self) -> None:
        self.role = "supervisor"
        self.rows: dict[int, dict[str, Any]] = {
            1: {"id": 1, "shortcut": "thanks", "title": "Thank you", "text": "Hi {{name}}, thanks!"},
        }
        self.next_id = 2
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        self.lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        with self.lock:
            self.requests.append((request.method, request.url.path, dict(request.url.params), body))
        parts = request.url.path.strip("/").split("/")
        if request.method == "GET":
            conversation = request.url.params.get("conversation_id")
            listed = [self._resource(row, conversation) for _, row in sorted(self.rows.items())]
            return httpx.Response(200, json={"canned_replies": sorted(listed, key=lambda r: r["shortcut"])})
        if self.role != "supervisor":
            return _refusal(403, "forbidden", "only supervisors may change canned replies")
        if request.method == "DELETE":
            if self.rows.pop(int(parts[2]), None) is None:
                return _refusal(404, "not_found", "no such canned reply")
            return httpx.Response(204)
        taken = {row["shortcut"] for key, row in self.rows.items() if len(parts) < 3 or key != int(parts[2])}
        if body["shortcut"] in taken:
            return _refusal(409, "shortcut_taken", "that shortcut is taken")
        if request.method == "POST":
            row = {"id": self.next_id, **body}
            self.rows[self.next_id] = row
            self.next_id += 1
            return httpx.Response(201, json=self._resource(row, None))
        row = {"id": int(parts[2]), **body}
        self.rows[row["id"]] = row
        return httpx.Response(200, json=self._resource(row, None))

    @staticmethod
    def _resource(row: dict[str, Any], conversation: str | None) -> dict[str, Any]:
        resource = {**row, "updated_at": "2026-05-01T12:00:00Z"}
        if conversation is not None:
            resource["filled"] = row["text"].replace("{{name}}", f"Customer {conversation}")
        return resource

    def changes(self) -> list[tuple[str, str, Any]]:
        """The requests that change something."""
        with self.lock:
            return [(method, path, body) for method, path, _params, body in self.requests if method != "GET"]


def _refusal(status: int, code: str, message: str) -> httpx.Response:
    return httpx.Response(status, json={"error": {"code": code, "message": message}})


@pytest.fixture
def backend() -> FakeCannedBackend:
    """A fake backend holding one canned reply."""
    return FakeCannedBackend()


@pytest.fixture
def api(backend: FakeCannedBackend, runner: BackgroundRunner, qtbot: Any) -> Iterator[ApiClient]:
    """A client on the fake backend."""
    client = ApiClient("http://backend.test", "token", transport=httpx.MockTransport(backend))
    yield client
    qtbot.waitUntil(lambda: runner.pending_count == 0, timeout=10_000)
    client.close()


def test_the_provider_loads_replies_filled_for_the_open_conversation(
    qtbot: Any, api: ApiClient, runner: BackgroundRunner, backend: FakeCannedBackend, editor: QPlainTextEdit
) -> None:
    provider = CannedReplyProvider(api, runner)
    picker = attach_canned_picker(editor, provider)
    with qtbot.waitSignal(provider.changed, timeout=5_000):
        provider.set_conversation(5)
    qtbot.waitUntil(lambda: bool(provider.replies), timeout=5_000)
    assert backend.requests[-1][2] == {"conversation_id": "5"}
    assert provider.replies[0].insertion == "Hi Customer 5, thanks!"

    # Another conversation: the first one's filled text is gone at once, then replaced.
    provider.set_conversation(6)
    assert provider.replies == []
    qtbot.waitUntil(lambda: bool(provider.replies), timeout=5_000)
    assert provider.replies[0].insertion == "Hi Customer 6, thanks!"

    # An edit elsewhere: reload() picks it up and the open popup follows.
    qtbot.keyClicks(editor, "/tha")
    assert picker.shown[0].insertion == "Hi Customer 6, thanks!"
    backend.rows[1]["text"] = "Thanks a lot, {{name}}!"
    provider.reload()
    qtbot.waitUntil(lambda: picker.shown[0].insertion == "Thanks a lot, Customer 6!", timeout=5_000)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert editor.toPlainText() == "Thanks a lot, Customer 6!"


def test_a_supervisor_creates_edits_and_deletes_replies(
    qtbot: Any, api: ApiClient, runner: BackgroundRunner, backend: FakeCannedBackend, monkeypatch: Any
) -> None:
    dialog = CannedRepliesDialog(api, runner)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: len(dialog.replies) == 1, timeout=5_000)
    assert dialog.list_widget.item(0).text() == "/thanks — Thank you"

    # Create.
    dialog.start_new()
    qtbot.keyClicks(dialog.shortcut_field, "hours")
    dialog.title_field.setText("Opening hours")
    dialog.text_field.setPlainText(MARKUP)
    dialog.save()
    qtbot.waitUntil(lambda: len(dialog.replies) == 2, timeout=5_000)
    assert backend.changes()[-1] == (
        "POST",
        "/v1/canned-replies",
        {"shortcut": "hours", "title": "Opening hours", "text": MARKUP},
    )
    assert dialog.status_label.text() == "Saved /hours." and dialog.selected is not None
    assert dialog.selected.shortcut == "hours"

    # Edit.
    assert dialog.select_shortcut("thanks")
    assert dialog.text_field.toPlainText() == "Hi {{name}}, thanks!"
    dialog.title_field.setText("Thanks")
    dialog.save()
    qtbot.waitUntil(lambda: dialog.status_label.text() == "Saved /thanks.", timeout=5_000)
    assert backend.changes()[-1] == (
        "PUT",
        "/v1/canned-replies/1",
        {"shortcut": "thanks", "title": "Thanks", "text": "Hi {{name}}, thanks!"},
    )
    qtbot.waitUntil(lambda: dialog.list_widget.item(1).text() == "/thanks — Thanks", timeout=5_000)

    # Delete, once confirmed.
    asked: list[str] = []
    monkeypatch.setattr(dialog, "confirm_delete", lambda reply: asked.append(reply.shortcut) or True)
    assert dialog.select_shortcut("hours")
    dialog.delete()
    qtbot.waitUntil(lambda: len(dialog.replies) == 1, timeout=5_000)
    assert asked == ["hours"] and backend.changes()[-1] == ("DELETE", "/v1/canned-replies/2", None)
    assert dialog.status_label.text() == "Deleted." and dialog.selected is None
    assert dialog.shortcut_field.text() == ""


def test_refusals_and_mistakes_are_explained_in_words(
    qtbot: Any, api: ApiClient, runner: BackgroundRunner, backend: FakeCannedBackend, monkeypatch: Any
) -> None:
    dialog = CannedRepliesDialog(api, runner)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: len(dialog.replies) == 1, timeout=5_000)

    # Checked before asking: nothing goes out.
    dialog.start_new()
    dialog.shortcut_field.setText("")
    dialog.save()
    assert "shortcut is 1 to 32 letters" in dialog.status_label.text()
    dialog.shortcut_field.setText("hi")
    dialog.save()
    assert dialog.status_label.text() == "The title is 1 to 100 characters."
    assert backend.changes() == []

    # The shortcut field takes no character a shortcut cannot have.
    qtbot.keyClicks(dialog.shortcut_field, " there!")
    assert dialog.shortcut_field.text() == "hithere"

    # Taken.
    dialog.shortcut_field.setText("thanks")
    dialog.title_field.setText("Again")
    dialog.text_field.setPlainText("Again")
    dialog.save()
    qtbot.waitUntil(lambda: "already uses /thanks" in dialog.status_label.text(), timeout=5_000)
    # The form keeps what was typed, to fix it.
    assert dialog.title_field.text() == "Again"

    # An agent: 403 in words, for a change and a delete.
    backend.role = "agent"
    dialog.shortcut_field.setText("again")
    dialog.save()
    forbidden = "Only a supervisor can add, change or delete canned replies."
    qtbot.waitUntil(lambda: dialog.status_label.text() == forbidden, timeout=5_000)
    monkeypatch.setattr(dialog, "confirm_delete", lambda _reply: True)
    dialog.status_label.clear()
    assert dialog.select_shortcut("thanks")
    dialog.delete()
    qtbot.waitUntil(lambda: dialog.status_label.text() == forbidden, timeout=5_000)
    assert len(dialog.replies) == 1 and dialog.delete_button.isEnabled()


def test_a_read_only_dialog_lists_without_editing(
    qtbot: Any, api: ApiClient, runner: BackgroundRunner
) -> None:
    dialog = CannedRepliesDialog(api, runner, editable=False)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: len(dialog.replies) == 1, timeout=5_000)
    assert dialog.save_button.isHidden() and dialog.shortcut_field.isReadOnly()
    assert dialog.select_shortcut("thanks") and dialog.text_field.toPlainText() == "Hi {{name}}, thanks!"


@pytest.mark.parametrize(
    ("params", "body", "field"),
    [
        # Asked for a conversation, each reply must carry its filled text.
        (
            5,
            {
                "canned_replies": [
                    {
                        "id": 1,
                        "shortcut": "a",
                        "title": "A",
                        "text": "x",
                        "updated_at": "2026-05-01T12:00:00Z",
                    }
                ]
            },
            "filled",
        ),
        (None, {"replies": []}, "canned_replies"),
        (
            None,
            {
                "canned_replies": [
                    {
                        "id": "1",
                        "shortcut": "a",
                        "title": "A",
                        "text": "x",
                        "updated_at": "2026-05-01T12:00:00Z",
                    }
                ]
            },
            "id",
        ),
    ],
)
def test_any_other_canned_reply_shape_is_a_bad_response(params: int | None, body: Any, field: str) -> None:
    def answer(_request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=body)

    client = ApiClient("http://backend.test", "token", transport=httpx.MockTransport(answer))
    with pytest.raises(ApiError) as raised:
        client.canned_replies(params)
    client.close()
    assert raised.value.code == BAD_RESPONSE and field in raised.value.message


def test_a_reply_saved_by_a_supervisor_is_inserted_filled_on_the_real_backend(
    qtbot: Any, stack: DemoStack, runner: BackgroundRunner, editor: QPlainTextEdit, monkeypatch: Any
) -> None:
    customer_writes(stack, CUSTOMER, "Hi")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    client = ApiClient(stack.url, stack.token)
    dialog = CannedRepliesDialog(client, runner)
    qtbot.addWidget(dialog)
    dialog.start_new()
    dialog.shortcut_field.setText("welcome")
    dialog.title_field.setText("Welcome")
    dialog.text_field.setPlainText("Hello {{name}}, we got your message from {{number}}.")
    dialog.save()
    qtbot.waitUntil(lambda: len(dialog.replies) == 1, timeout=10_000)

    provider = CannedReplyProvider(client, runner)
    attach_canned_picker(editor, provider)
    provider.set_conversation(conversation_id)
    qtbot.waitUntil(lambda: bool(provider.replies), timeout=10_000)
    editor.setFocus()
    qtbot.keyClicks(editor, "/wel")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    name = client.conversation(conversation_id).contact.name or CUSTOMER
    assert editor.toPlainText() == f"Hello {name}, we got your message from {CUSTOMER}."

    monkeypatch.setattr(dialog, "confirm_delete", lambda _reply: True)
    assert dialog.select_shortcut("welcome")
    dialog.delete()
    qtbot.waitUntil(lambda: dialog.status_label.text() == "Deleted." and not dialog.replies, timeout=10_000)
    qtbot.waitUntil(lambda: runner.pending_count == 0, timeout=10_000)
    client.close()
