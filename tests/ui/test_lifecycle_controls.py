"""The inbox day in the client: status buttons, snooze, views, labels, presence, notes, send anyway."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from ui.api.client import BAD_RESPONSE, ApiClient, ApiError, ConversationChangedError
from ui.api.resources import (
    CONVERSATION_STATUS_CHANGED,
    DATABASE_RESTORED,
    NOTE_ADDED,
    PRESENCE_CHANGED,
    WINDOW_CLOSING,
    Event,
    InboundMessage,
    Note,
    Viewer,
    parse_event_batch,
    parse_thread_page,
)
from ui.presentation import snooze_until, viewers_text
from ui.runner import BackgroundRunner
from ui.views.composer import SEND_ANYWAY
from ui.views.main_window import MainWindow

pytestmark = pytest.mark.timeout(60)

NOW = datetime.now(UTC).replace(microsecond=0)
ME = "dana"


def _time(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def _conversation(conversation_id: int, name: str, **fields: Any) -> dict[str, Any]:
    body = {
        "id": conversation_id,
        "contact": {
            "wa_id": f"1650555{conversation_id:04d}",
            "number": f"+1650555{conversation_id:04d}",
            "name": name,
        },
        "assignee": None,
        "last_message_at": _time(NOW - timedelta(minutes=conversation_id)),
        "unread": 0,
        "window_closes_at": _time(NOW + timedelta(hours=5)),
        "window_open": True,
        "last_message": "Hello",
        "status": "open",
        "snoozed_until": None,
        "labels": [],
        "viewers": [],
    }
    body.update(fields)
    return body


def _inbound(wamid: str, text: str, placement: str, minutes_ago: int) -> dict[str, Any]:
    return {
        "direction": "inbound",
        "wamid": wamid,
        "type": "text",
        "text": text,
        "choice": None,
        "choice_title": None,
        "context_id": None,
        "attributed": placement != "work_queue",
        "placement": placement,
        "reaction": None,
        "received_at": _time(NOW - timedelta(minutes=minutes_ago)),
    }


def _outbound(key: str, body: str, minutes_ago: int, *, created_by: str | None = None) -> dict[str, Any]:
    message = {
        "direction": "outbound",
        "key": key,
        "to": "+16505550001",
        "purpose": "support",
        "state": "delivered",
        "wamid": f"wamid.{key}",
        "attempts": 1,
        "error": None,
        "created_at": _time(NOW - timedelta(minutes=minutes_ago)),
        "conversation_id": 1,
        "trigger_ref": None,
        "kind": "text",
        "body": body,
        "replies": [],
    }
    if created_by is not None:
        message["created_by"] = created_by
    return message


NEWEST_SEEN = NOW - timedelta(minutes=2)


class FakeBackend:
    """The backend's routes the inbox uses, answering from dicts; it remembers every request."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str, dict[str, str], Any, dict[str, str]]] = []
        self.conversations: dict[int, dict[str, Any]] = {
            1: _conversation(1, "Ana"),
            2: _conversation(2, "Ben", status="pending", labels=["vip"]),
            3: _conversation(3, "Carla", status="resolved"),
        }
        self.threads: dict[int, list[dict[str, Any]]] = {
            1: [
                _outbound("order-1", "Your order ships today.", 10),
                _inbound("wamid.chat", "Can I change the address?", "conversation", 5),
                _inbound("wamid.loose", "yes", "work_queue", 2),
            ],
            2: [_inbound("wamid.ben", "Hi", "conversation", 30)],
            3: [],
        }
        self.labels_in_use = [{"name": "vip", "count": 1}]
        # The colleague's messages a reply is refused for, until a reply carries force.
        self.colleague_messages: list[dict[str, Any]] = []

    def sent(self, method: str, suffix: str) -> list[tuple[dict[str, str], Any, dict[str, str]]]:
        """(query, body, headers) of the requests to a path ending in `suffix`."""
        with self.lock:
            return [
                (params, body, headers)
                for verb, path, params, body, headers in self.requests
                if verb == method and path.endswith(suffix)
            ]

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        path = request.url.path
        with self.lock:
            self.requests.append(
                (request.method, path, dict(request.url.params), body, dict(request.headers))
            )
            return self._answer(request.method, path, dict(request.url.params), body)

    def _answer(self, method: str, path: str, params: dict[str, str], body: Any) -> httpx.Response:
        parts = path.strip("/").split("/")
        if path == "/v1/me":
            return httpx.Response(200, json={"name": ME, "role": "agent"})
        if path == "/v1/conversations":
            return self._list(params)
        if path == "/v1/labels":
            return httpx.Response(200, json={"labels": self.labels_in_use})
        if path == "/v1/templates":
            return httpx.Response(200, json={"templates": []})
        if path == "/v1/work-queue":
            return httpx.Response(200, json={"items": [], "next_cursor": None})
        if path == "/v1/canned-replies":
            return httpx.Response(200, json={"canned_replies": []})
        if parts[:2] == ["v1", "conversations"] and len(parts) >= 3:
            conversation = self.conversations[int(parts[2])]
            action = parts[3] if len(parts) == 4 else None
            return self._conversation_route(conversation, action, method, body)
        return httpx.Response(404, json={"error": {"code": "not_found", "message": path}})

    def _list(self, params: dict[str, str]) -> httpx.Response:
        statuses = params.get("status", "open,pending")
        listed = [
            conversation
            for conversation in self.conversations.values()
            if (statuses == "all" or conversation["status"] in statuses.split(","))
            and ("label" not in params or params["label"] in conversation["labels"])
        ]
        return httpx.Response(200, json={"conversations": listed, "next_cursor": None})

    def _single(self, conversation: dict[str, Any]) -> httpx.Response:
        return httpx.Response(200, json={k: v for k, v in conversation.items() if k != "last_message"})

    def _conversation_route(
        self, conversation: dict[str, Any], action: str | None, method: str, body: Any
    ) -> httpx.Response:
        conversation_id = conversation["id"]
        if action is None:
            return self._single(conversation)
        if action == "thread":
            messages = self.threads[conversation_id]
            return httpx.Response(
                200, json={"messages": messages, "next_cursor": None, "viewers": conversation["viewers"]}
            )
        if action == "status":
            conversation["status"] = body["status"]
            conversation["snoozed_until"] = body.get("until")
            return self._single(conversation)
        if action == "labels":
            labels = (set(conversation["labels"]) | set(body["add"])) - set(body["remove"])
            conversation["labels"] = sorted(labels)
            return self._single(conversation)
        if action == "presence":
            viewers = [viewer for viewer in conversation["viewers"] if viewer["user"] != ME]
            if body["viewing"]:
                viewers.append({"user": ME, "typing": body["typing"], "since": _time(NOW)})
            conversation["viewers"] = viewers
            return httpx.Response(200, json={"viewers": viewers})
        if action == "notes":
            note = {
                "id": 7,
                "author": ME,
                "text": body["text"].strip(),
                "created_at": _time(datetime.now(UTC)),
            }
            self.threads[conversation_id].append({"direction": "note", **note})
            return httpx.Response(201, json=note)
        if action == "read":
            return self._single(conversation)
        if action == "reply":
            if self.colleague_messages and not body.get("force"):
                error = {
                    "code": "conversation_changed",
                    "message": "Someone else wrote in this conversation since.",
                    "messages": self.colleague_messages,
                }
                return httpx.Response(409, json={"error": error})
            message = _outbound("reply-1", body.get("text") or "", 0)
            return httpx.Response(
                202,
                json={
                    key: message[key]
                    for key in ("key", "to", "purpose", "state", "wamid", "attempts", "error")
                },
            )
        return httpx.Response(404, json={"error": {"code": "not_found", "message": action}})


@pytest.fixture
def backend() -> FakeBackend:
    """A fresh fake backend."""
    return FakeBackend()


@pytest.fixture
def window(qtbot: Any, backend: FakeBackend) -> Iterator[MainWindow]:
    """The client on the fake backend, signed in as dana, with the conversation list loaded."""
    api = ApiClient("http://backend.test", "token", transport=httpx.MockTransport(backend))
    runner = BackgroundRunner()
    main = MainWindow(api, runner, user_name=ME, live=False)
    qtbot.addWidget(main)
    main.show()
    main.start()
    qtbot.waitUntil(lambda: len(main.inbox.conversations.items) == 2, timeout=10_000)
    yield main
    main.close()
    qtbot.waitUntil(lambda: runner.pending_count == 0, timeout=10_000)
    runner.shutdown()
    api.close()


def _open(qtbot: Any, window: MainWindow, conversation_id: int) -> None:
    with qtbot.waitSignal(window.inbox.thread_model.loaded, timeout=10_000):
        assert window.inbox.select_conversation_id(conversation_id)


def _press(
    qtbot: Any, window: MainWindow, key: Qt.Key, modifiers: Qt.KeyboardModifier, *, in_composer: bool = False
) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    target = window.inbox.composer.text_box if in_composer else window.inbox.thread_view
    target.setFocus()
    qtbot.keyClick(target, key, modifiers)


CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


# -- status --------------------------------------------------------------------------------------
def test_status_buttons_follow_the_status_and_resolve_takes_it_out_of_the_open_view(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    inbox = window.inbox
    assert not inbox.resolve_button.isEnabled() and not inbox.snooze_button.isEnabled()
    _open(qtbot, window, 1)
    assert inbox.resolve_button.isEnabled() and inbox.pending_button.isEnabled()
    assert not inbox.reopen_button.isEnabled()
    assert inbox.status_badge.text() == "Open"

    qtbot.mouseClick(inbox.resolve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: inbox.conversations.row_of(1) is None, timeout=10_000)
    assert [body for _params, body, _headers in backend.sent("POST", "/1/status")] == [{"status": "resolved"}]
    # The thread stays on screen, with the buttons of its new status.
    assert inbox.selected_conversation is not None and inbox.selected_conversation.status == "resolved"
    assert inbox.status_badge.text() == "Resolved" and inbox.details.status_label.text() == "Resolved"
    assert inbox.reopen_button.isEnabled() and not inbox.resolve_button.isEnabled()


@pytest.mark.parametrize(
    ("key", "status", "in_composer"),
    [
        (Qt.Key.Key_R, "resolved", False),
        (Qt.Key.Key_P, "pending", False),
        # The text box keeps no Ctrl+Shift letter for itself: the shortcuts work while writing.
        (Qt.Key.Key_R, "resolved", True),
    ],
)
def test_status_shortcuts(
    qtbot: Any, window: MainWindow, backend: FakeBackend, *, key: Qt.Key, status: str, in_composer: bool
) -> None:
    _open(qtbot, window, 1)
    _press(qtbot, window, key, CTRL_SHIFT, in_composer=in_composer)
    qtbot.waitUntil(lambda: bool(backend.sent("POST", "/1/status")), timeout=10_000)
    assert backend.sent("POST", "/1/status")[0][1] == {"status": status}


def test_reopen_shortcut_and_button(qtbot: Any, window: MainWindow, backend: FakeBackend) -> None:
    _open(qtbot, window, 2)
    assert window.inbox.status_badge.text() == "Pending" and not window.inbox.pending_button.isEnabled()
    _press(qtbot, window, Qt.Key.Key_O, CTRL_SHIFT)
    qtbot.waitUntil(lambda: window.inbox.status_badge.text() == "Open", timeout=10_000)
    assert backend.sent("POST", "/2/status")[0][1] == {"status": "open"}
    assert not window.inbox.reopen_button.isEnabled()


def test_the_shortcuts_do_not_clash() -> None:
    from ui.views import composer, inbox, main_window

    taken = [
        inbox.RESOLVE_SHORTCUT,
        inbox.SNOOZE_SHORTCUT,
        inbox.PENDING_SHORTCUT,
        inbox.REOPEN_SHORTCUT,
        composer.NOTE_SHORTCUT,
        main_window.SEARCH_SHORTCUT,
        "Ctrl+K",
        "Ctrl+Return",
        *(f"Alt+{number}" for number in range(1, 5)),
    ]
    assert len(set(taken)) == len(taken)


# -- snooze --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("now", "preset", "expected"),
    [
        # A Wednesday afternoon in a zone two hours ahead of UTC.
        ("2026-05-06T15:30:00+02:00", "1 hour", "2026-05-06T16:30:00+02:00"),
        ("2026-05-06T15:30:00+02:00", "3 hours", "2026-05-06T18:30:00+02:00"),
        ("2026-05-06T15:30:00+02:00", "Tomorrow 9:00", "2026-05-07T09:00:00+02:00"),
        ("2026-05-06T15:30:00+02:00", "Next Monday 9:00", "2026-05-11T09:00:00+02:00"),
        # Late on a Sunday: Monday is tomorrow. On a Monday, next Monday is a week away.
        ("2026-05-10T23:30:00+02:00", "Next Monday 9:00", "2026-05-11T09:00:00+02:00"),
        ("2026-05-11T08:00:00+02:00", "Next Monday 9:00", "2026-05-18T09:00:00+02:00"),
        # Just after midnight UTC is still the evening before in New York.
        ("2026-05-07T01:00:00+00:00", "Tomorrow 9:00", "2026-05-07T09:00:00-04:00"),
    ],
)
def test_snooze_presets(now: str, preset: str, expected: str) -> None:
    zone = datetime.fromisoformat(expected).tzinfo
    assert snooze_until(preset, datetime.fromisoformat(now), zone) == datetime.fromisoformat(expected)


def test_snoozing_sends_the_end_of_the_preset(qtbot: Any, window: MainWindow, backend: FakeBackend) -> None:
    inbox = window.inbox
    _open(qtbot, window, 1)
    titles = [action.text() for action in inbox.snooze_menu.actions()]
    assert titles == ["1 hour", "3 hours", "Tomorrow 9:00", "Next Monday 9:00"]
    before = datetime.now(UTC)
    inbox.snooze_menu.actions()[0].trigger()
    inbox.snooze_menu.actions()[2].trigger()
    qtbot.waitUntil(lambda: len(backend.sent("POST", "/1/status")) == 2, timeout=10_000)
    hour, tomorrow = (body for _params, body, _headers in backend.sent("POST", "/1/status"))
    assert hour["status"] == tomorrow["status"] == "snoozed"
    hour_end = datetime.fromisoformat(hour["until"])
    assert timedelta(minutes=59) < hour_end - before < timedelta(minutes=61)
    assert datetime.fromisoformat(tomorrow["until"]) == snooze_until("Tomorrow 9:00", before)
    qtbot.waitUntil(lambda: inbox.status_badge.text().startswith("Snoozed until"), timeout=10_000)


# The offscreen platform cannot grab the keyboard for a popup menu, as a desktop does.
@pytest.mark.qt_log_ignore("does not support raise", "does not support grabbing the keyboard")
def test_the_snooze_shortcut_opens_the_presets(qtbot: Any, window: MainWindow) -> None:
    _open(qtbot, window, 1)
    _press(qtbot, window, Qt.Key.Key_S, CTRL_SHIFT)
    qtbot.waitUntil(window.inbox.snooze_menu.isVisible, timeout=5000)
    window.inbox.snooze_menu.close()


# -- views ---------------------------------------------------------------------------------------
def test_the_status_view_selector_asks_for_those_statuses(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    inbox = window.inbox
    assert backend.sent("GET", "/v1/conversations")[0][0]["status"] == "open,pending"
    titles = [inbox.status_filter.itemText(row) for row in range(inbox.status_filter.count())]
    assert titles == ["Open and pending", "Open", "Pending", "Snoozed", "Resolved", "All statuses"]
    with qtbot.waitSignal(inbox.conversations.loaded, timeout=10_000):
        inbox.choose_status_view("resolved")
    assert [item.id for item in inbox.conversations.items] == [3]
    assert backend.sent("GET", "/v1/conversations")[-1][0]["status"] == "resolved"
    with qtbot.waitSignal(inbox.conversations.loaded, timeout=10_000):
        inbox.status_filter.setCurrentIndex(5)
    assert sorted(item.id for item in inbox.conversations.items) == [1, 2, 3]
    assert backend.sent("GET", "/v1/conversations")[-1][0]["status"] == "all"
    # A conversation reopened elsewhere leaves the Resolved view; one resolved joins it.
    with qtbot.waitSignal(inbox.conversations.loaded, timeout=10_000):
        inbox.choose_status_view("resolved")
    inbox.conversation_updated(replace_status(inbox, 3, "open"))
    assert inbox.conversations.row_of(3) is None


def replace_status(inbox: Any, conversation_id: int, status: str) -> Any:
    from dataclasses import replace

    row = inbox.conversations.row_of(conversation_id)
    return replace(inbox.conversations.item_at(row), status=status)


def test_the_window_filter_offers_closing_within_the_hour(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    inbox = window.inbox
    with qtbot.waitSignal(inbox.conversations.loaded, timeout=10_000):
        inbox.window_filter.setCurrentIndex(2)
    assert backend.sent("GET", "/v1/conversations")[-1][0]["window"] == "closing"


# -- labels --------------------------------------------------------------------------------------
def test_labels_show_as_chips_and_are_added_and_removed(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    inbox, details = window.inbox, window.inbox.details
    _open(qtbot, window, 2)
    assert list(details.chip_buttons) == ["vip"] and not details.no_labels.isVisibleTo(details)
    details.label_input.setText("  late delivery ")
    qtbot.keyClick(details.label_input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: list(details.chip_buttons) == ["late delivery", "vip"], timeout=10_000)
    assert backend.sent("POST", "/2/labels")[0][1] == {"add": ["late delivery"], "remove": []}
    assert details.label_input.text() == ""
    qtbot.mouseClick(details.chip_buttons["vip"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: list(details.chip_buttons) == ["late delivery"], timeout=10_000)
    assert backend.sent("POST", "/2/labels")[1][1] == {"add": [], "remove": ["vip"]}
    # The filter's list of labels in use is loaded again after each change.
    qtbot.waitUntil(lambda: len(backend.sent("GET", "/v1/labels")) >= 3, timeout=10_000)
    assert inbox.conversations.item_at(inbox.conversations.row_of(2)).labels == ("late delivery",)


def test_the_label_filter_lists_labels_in_use_and_filters_the_list(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    inbox = window.inbox
    qtbot.waitUntil(lambda: inbox.label_filter.count() == 2, timeout=10_000)
    assert inbox.label_filter.itemText(1) == "vip  (1)"
    with qtbot.waitSignal(inbox.conversations.loaded, timeout=10_000):
        inbox.label_filter.setCurrentIndex(1)
    assert backend.sent("GET", "/v1/conversations")[-1][0]["label"] == "vip"
    assert [item.id for item in inbox.conversations.items] == [2]
    _open(qtbot, window, 2)
    qtbot.mouseClick(inbox.details.chip_buttons["vip"], Qt.MouseButton.LeftButton)
    # Without the label it no longer belongs in the filtered list.
    qtbot.waitUntil(lambda: inbox.conversations.row_of(2) is None, timeout=10_000)
    with qtbot.waitSignal(inbox.conversations.loaded, timeout=10_000):
        inbox.choose_label(None)
    assert "label" not in backend.sent("GET", "/v1/conversations")[-1][0]


# -- colleagues ----------------------------------------------------------------------------------
def _viewer(user: str, typing: bool) -> Viewer:
    return Viewer(user=user, typing=typing, since=NOW)


def test_the_typing_line_names_colleagues_and_never_me() -> None:
    assert viewers_text((_viewer(ME, True),), ME) == ""
    assert viewers_text((_viewer("sam", True), _viewer(ME, False)), ME) == "sam is typing…"
    assert viewers_text((_viewer("sam", False),), ME) == "sam is viewing"
    assert (
        viewers_text((_viewer("sam", False), _viewer("lee", False), _viewer("kim", True)), ME)
        == "kim is typing…  ·  sam and lee are viewing"
    )


def test_the_thread_header_shows_who_is_typing_live(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    backend.conversations[1]["viewers"] = [{"user": "sam", "typing": False, "since": _time(NOW)}]
    inbox = window.inbox
    with qtbot.waitSignal(inbox.conversations.loaded, timeout=10_000):
        inbox.conversations.start()
    _open(qtbot, window, 1)
    qtbot.waitUntil(lambda: inbox.viewers_label.text() == "sam is viewing", timeout=10_000)
    assert inbox.viewers_label.isVisible()
    typing = (_viewer("sam", True), _viewer(ME, False))
    window.handle_events([Event(seq=1, type=PRESENCE_CHANGED, at=NOW, conversation_id=1, viewers=typing)])
    assert inbox.viewers_label.text() == "sam is typing…"
    # Another conversation's presence changes its row only.
    window.handle_events(
        [Event(seq=2, type=PRESENCE_CHANGED, at=NOW, conversation_id=2, viewers=(_viewer("lee", True),))]
    )
    assert inbox.viewers_label.text() == "sam is typing…"
    assert inbox.conversations.item_at(inbox.conversations.row_of(2)).viewers == (_viewer("lee", True),)
    window.handle_events([Event(seq=3, type=PRESENCE_CHANGED, at=NOW, conversation_id=1, viewers=())])
    assert inbox.viewers_label.text() == "" and not inbox.viewers_label.isVisible()


def _presence(backend: FakeBackend, conversation_id: int) -> list[dict[str, Any]]:
    return [body for _params, body, _headers in backend.sent("POST", f"/{conversation_id}/presence")]


def test_presence_heartbeat_typing_and_leaving(qtbot: Any, window: MainWindow, backend: FakeBackend) -> None:
    inbox = window.inbox
    inbox.presence.heartbeat.setInterval(200)
    inbox.presence.typing_idle.setInterval(400)
    _open(qtbot, window, 1)
    qtbot.waitUntil(lambda: len(_presence(backend, 1)) >= 3, timeout=10_000)
    assert all(body == {"typing": False, "viewing": True} for body in _presence(backend, 1))

    # Typing is told at once, repeated by the heartbeat, and dropped after a quiet spell.
    sent_before = len(_presence(backend, 1))
    qtbot.keyClicks(inbox.composer.text_box, "Hel")
    assert inbox.presence.typing
    qtbot.waitUntil(lambda: not inbox.presence.typing, timeout=5000)
    qtbot.waitUntil(lambda: _presence(backend, 1)[-1]["typing"] is False, timeout=5000)
    typing_flags = [body["typing"] for body in _presence(backend, 1)[sent_before:]]
    assert typing_flags[0] is True and typing_flags[-1] is False
    assert typing_flags.count(True) >= 1

    # Clearing or swapping the draft is not typing.
    sent_before = len(_presence(backend, 1))
    inbox.composer.toggle_note()
    inbox.composer.toggle_note()
    assert not inbox.presence.typing

    # Another conversation: the first one is left, the second one viewed.
    _open(qtbot, window, 2)
    qtbot.waitUntil(lambda: bool(_presence(backend, 2)), timeout=10_000)
    assert {"typing": False, "viewing": False} in _presence(backend, 1)[sent_before:]
    assert _presence(backend, 2)[0] == {"typing": False, "viewing": True}
    window.stop()
    qtbot.waitUntil(lambda: _presence(backend, 2)[-1] == {"typing": False, "viewing": False}, timeout=10_000)
    count = len(_presence(backend, 2))
    qtbot.wait(500)
    assert len(_presence(backend, 2)) == count, "no heartbeat after leaving"


# -- notes ---------------------------------------------------------------------------------------
def test_notes_are_written_from_the_composer_and_shown_apart(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    inbox, composer = window.inbox, window.inbox.composer
    _open(qtbot, window, 1)
    composer.text_box.setPlainText("A reply draft")
    qtbot.mouseClick(composer.note_mode_button, Qt.MouseButton.LeftButton)
    assert composer.writing_note and composer.text_box.toPlainText() == ""
    assert composer.send_button.text() == "Add note" and "#fef9c3" in composer.text_box.styleSheet()
    qtbot.keyClicks(composer.text_box, "@sam can you check the depot?")
    with qtbot.waitSignal(composer.note_added, timeout=10_000):
        qtbot.keyClick(composer.text_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert backend.sent("POST", "/1/notes")[0][1] == {"text": "@sam can you check the depot?"}
    assert backend.sent("POST", "/1/reply") == [], "a note never goes out as a reply"

    def note_shown() -> Note | None:
        notes = [item for item in inbox.thread_model.items if isinstance(item, Note)]
        return notes[0] if notes else None

    qtbot.waitUntil(lambda: note_shown() is not None, timeout=10_000)
    note = note_shown()
    assert note is not None and note.author == ME
    index = inbox.thread_model.index(len(inbox.thread_model.items) - 1, 0)
    assert inbox.thread_model.data(index, Qt.ItemDataRole.DisplayRole).startswith(f"Note by {ME}, ")
    _text, caption, extra = inbox.thread_delegate._lines(note)
    assert caption.startswith(f"Note by {ME}") and extra == ""
    assert "✓" not in caption, "a note has no delivery marks"
    # Back to the reply: its draft is where it was.
    _press(qtbot, window, Qt.Key.Key_N, CTRL_SHIFT, in_composer=True)
    assert not composer.writing_note and composer.text_box.toPlainText() == "A reply draft"


def test_a_note_can_be_written_when_the_window_is_closed(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    backend.conversations[1]["window_closes_at"] = None
    inbox, composer = window.inbox, window.inbox.composer
    with qtbot.waitSignal(inbox.conversations.loaded, timeout=10_000):
        inbox.conversations.start()
    _open(qtbot, window, 1)
    assert composer.showing_templates and not composer.text_box.isEnabled()
    assert composer.window_label.text() == "Window closed: templates only"
    composer.set_note_mode(True)
    assert composer.text_box.isEnabled() and not composer.showing_templates
    assert composer.send_button.isEnabled()


def test_the_composer_shows_the_time_left(qtbot: Any, window: MainWindow) -> None:
    _open(qtbot, window, 1)
    assert window.inbox.composer.window_label.text().startswith("Window: 4 h ")
    window.inbox.composer.set_window(datetime.now(UTC) + timedelta(hours=5, seconds=20))
    assert window.inbox.composer.window_label.text() == "Window: 5 h 0 m left"
    assert "#b91c1c" not in window.inbox.composer.window_label.styleSheet()
    window.inbox.composer.set_window(datetime.now(UTC) + timedelta(minutes=30, seconds=20))
    assert window.inbox.composer.window_label.text() == "Window: 30 m left"
    assert "#b91c1c" in window.inbox.composer.window_label.styleSheet()


# -- send anyway ---------------------------------------------------------------------------------
COLLEAGUE_MESSAGE = {
    **{
        key: value
        for key, value in _outbound("colleague-1", "It ships <b>tomorrow</b>.", 1).items()
        if key not in ("direction", "kind", "replies")
    },
    "created_by": "sam",
}


def _send_reply(qtbot: Any, window: MainWindow, text: str) -> QMessageBox:
    composer = window.inbox.composer
    composer.text_box.setPlainText(text)
    qtbot.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: composer.collision_dialog is not None, timeout=10_000)
    dialog = composer.collision_dialog
    assert dialog is not None
    return dialog


def test_a_reply_refused_for_a_colleagues_message_can_be_sent_anyway(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    backend.colleague_messages = [COLLEAGUE_MESSAGE]
    composer = window.inbox.composer
    _open(qtbot, window, 1)
    dialog = _send_reply(qtbot, window, "It ships today.")
    assert dialog.isVisible() and dialog.textFormat() == Qt.TextFormat.PlainText
    assert "sam wrote to this customer after you last looked" in dialog.text()
    assert "sam: It ships <b>tomorrow</b>." in dialog.text()
    ((_params, first, first_headers),) = backend.sent("POST", "/1/reply")
    assert first == {"text": "It ships today.", "seen_up_to": _time(NEWEST_SEEN)}
    with qtbot.waitSignal(composer.reply_sent, timeout=10_000):
        next(button for button in dialog.buttons() if button.text() == SEND_ANYWAY).click()
    second = backend.sent("POST", "/1/reply")[1]
    assert second[1] == {"text": "It ships today.", "seen_up_to": _time(NEWEST_SEEN), "force": True}
    assert second[2]["idempotency-key"] == first_headers["idempotency-key"]
    assert composer.text_box.toPlainText() == ""


def test_a_reply_refused_for_a_colleagues_message_can_be_held_back(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    backend.colleague_messages = [COLLEAGUE_MESSAGE]
    composer = window.inbox.composer
    _open(qtbot, window, 1)
    dialog = _send_reply(qtbot, window, "It ships today.")
    threads_before = len(backend.sent("GET", "/1/thread"))
    dialog.button(QMessageBox.StandardButton.Cancel).click()
    assert composer.collision_dialog is None
    assert len(backend.sent("POST", "/1/reply")) == 1
    assert composer.text_box.toPlainText() == "It ships today."
    assert "Not sent" in composer.status_label.text()
    # The thread loads again so the agent reads what the colleague wrote.
    qtbot.waitUntil(lambda: len(backend.sent("GET", "/1/thread")) > threads_before, timeout=10_000)
    assert composer.send_button.isEnabled()


def test_the_conversation_changed_refusal_is_read_strictly() -> None:
    def refuse(_request: httpx.Request) -> httpx.Response:
        error = {"code": "conversation_changed", "message": "Changed.", "messages": [COLLEAGUE_MESSAGE]}
        return httpx.Response(409, json={"error": error})

    client = ApiClient("http://backend.test", "token", transport=httpx.MockTransport(refuse))
    with pytest.raises(ConversationChangedError) as refused:
        client.reply(1, "k", text="hi", seen_up_to=NOW)
    assert refused.value.status == 409 and refused.value.code == "conversation_changed"
    assert [(message.created_by, message.body) for message in refused.value.messages] == [
        ("sam", "It ships <b>tomorrow</b>.")
    ]

    def without_author(_request: httpx.Request) -> httpx.Response:
        message = {key: value for key, value in COLLEAGUE_MESSAGE.items() if key != "created_by"}
        error = {"code": "conversation_changed", "message": "Changed.", "messages": [message]}
        return httpx.Response(409, json={"error": error})

    odd = ApiClient("http://backend.test", "token", transport=httpx.MockTransport(without_author))
    with pytest.raises(ApiError) as bad:
        odd.reply(1, "k", text="hi")
    assert bad.value.code == BAD_RESPONSE and "created_by" in bad.value.message
    client.close()
    odd.close()


# -- placement -----------------------------------------------------------------------------------
def test_a_message_placed_in_the_conversation_reads_as_plain_chat(qtbot: Any, window: MainWindow) -> None:
    inbox = window.inbox
    _open(qtbot, window, 1)
    model = inbox.thread_model
    chat = model.index_of_inbound("wamid.chat")
    loose = model.index_of_inbound("wamid.loose")
    chat_item, loose_item = model.item(chat), model.item(loose)
    assert isinstance(chat_item, InboundMessage) and chat_item.placement == "conversation"
    assert isinstance(loose_item, InboundMessage) and loose_item.needs_placing
    assert inbox.thread_delegate._lines(chat_item)[2] == ""
    assert "Not linked to a message" in inbox.thread_delegate._lines(loose_item)[2]
    assert "not linked" not in model.data(chat, Qt.ItemDataRole.DisplayRole)
    inbox.thread_view.setCurrentIndex(chat)
    assert not inbox.details.link_button.isVisibleTo(inbox.details)
    assert inbox.details.state_label.text() == "part of the conversation"
    inbox.thread_view.setCurrentIndex(loose)
    assert inbox.details.link_button.isVisibleTo(inbox.details)


# -- notifications -------------------------------------------------------------------------------
def test_the_assignee_is_told_an_hour_before_an_unanswered_window_closes(
    qtbot: Any, window: MainWindow
) -> None:
    closing = Event(seq=1, type=WINDOW_CLOSING, at=NOW, conversation_id=1, assignee=ME, unanswered=True)
    with qtbot.waitSignal(window.notified, timeout=5000) as notified:
        window.handle_events([closing])
    assert notified.args == ["Ana is still waiting for an answer: their window closes within the hour"]
    # A conversation outside the list (resolved, here) is looked up for its customer's name.
    elsewhere = Event(seq=5, type=WINDOW_CLOSING, at=NOW, conversation_id=3, assignee=ME, unanswered=True)
    with qtbot.waitSignal(window.notified, timeout=5000) as notified:
        window.handle_events([elsewhere])
    assert notified.args == ["Carla is still waiting for an answer: their window closes within the hour"]
    for quiet in (
        Event(seq=2, type=WINDOW_CLOSING, at=NOW, conversation_id=1, assignee=ME, unanswered=False),
        Event(seq=3, type=WINDOW_CLOSING, at=NOW, conversation_id=1, assignee="sam", unanswered=True),
        Event(seq=4, type=WINDOW_CLOSING, at=NOW, conversation_id=1, assignee=None, unanswered=True),
    ):
        with qtbot.assertNotEmitted(window.notified):
            window.handle_events([quiet])


def test_a_mention_in_a_note_notifies_the_user_named(qtbot: Any, window: MainWindow) -> None:
    mention = Event(seq=1, type=NOTE_ADDED, at=NOW, conversation_id=2, author="sam", mentions=("Dana",))
    with qtbot.waitSignal(window.notified, timeout=5000) as notified:
        window.handle_events([mention])
    assert notified.args == ["sam mentioned you in a note on Ben"]
    for quiet in (
        Event(seq=2, type=NOTE_ADDED, at=NOW, conversation_id=2, author="sam", mentions=("lee",)),
        Event(seq=3, type=NOTE_ADDED, at=NOW, conversation_id=2, author=ME, mentions=(ME,)),
    ):
        with qtbot.assertNotEmitted(window.notified):
            window.handle_events([quiet])


def test_a_status_change_elsewhere_updates_the_list(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    backend.conversations[2]["status"] = "resolved"
    window.handle_events(
        [
            Event(
                seq=1,
                type=CONVERSATION_STATUS_CHANGED,
                at=NOW,
                conversation_id=2,
                status="resolved",
                by="sam",
                reason="user",
            )
        ]
    )
    qtbot.waitUntil(lambda: window.inbox.conversations.row_of(2) is None, timeout=10_000)


# -- search --------------------------------------------------------------------------------------
def test_a_search_result_opens_its_conversation_at_the_message(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    window.show_tab("health")
    window.open_search()
    dialog = window.search_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.view.message_chosen.emit(1, "wamid.chat")
    inbox = window.inbox
    assert window.tabs.currentWidget() is inbox
    qtbot.waitUntil(lambda: inbox.thread_view.currentIndex().isValid(), timeout=10_000)
    assert inbox.thread_model.item(inbox.thread_view.currentIndex()).wamid == "wamid.chat"
    assert not dialog.isVisible()
    # A conversation outside the list as filtered opens all the same.
    window.show_message(3, "no-such-message")
    qtbot.waitUntil(
        lambda: inbox.selected_conversation is not None and inbox.selected_conversation.id == 3,
        timeout=10_000,
    )
    assert inbox.thread_header.text().startswith("Carla")


# -- wire format ---------------------------------------------------------------------------------
def test_threads_carry_notes_viewers_and_placement() -> None:
    page = parse_thread_page(
        {
            "messages": [
                _inbound("wamid.a", "hi", "conversation", 3),
                {"direction": "note", "id": 4, "author": "sam", "text": "VIP", "created_at": _time(NOW)},
            ],
            "next_cursor": None,
            "viewers": [{"user": "sam", "typing": True, "since": _time(NOW)}],
        }
    )
    assert page.viewers == (Viewer("sam", True, NOW),)
    inbound, note = page.items
    assert (
        isinstance(inbound, InboundMessage)
        and inbound.placement == "conversation"
        and not inbound.needs_placing
    )
    assert note == Note(id=4, author="sam", text="VIP", created_at=NOW)
    with pytest.raises(ValueError, match="viewers"):
        parse_thread_page({"messages": [], "next_cursor": None})
    with pytest.raises(ValueError, match="placement"):
        parse_thread_page(
            {
                "messages": [{k: v for k, v in _inbound("w", "hi", "reply", 1).items() if k != "placement"}],
                "next_cursor": None,
                "viewers": [],
            }
        )


def test_the_new_journal_entries_are_read() -> None:
    def entry(seq: int, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"seq": seq, "type": kind, "at": _time(NOW), "data": data}

    batch = parse_event_batch(
        {
            "events": [
                entry(
                    1,
                    "conversation.status_changed",
                    {
                        "conversation_id": 1,
                        "status": "snoozed",
                        "snoozed_until": _time(NOW),
                        "by": "sam",
                        "reason": "user",
                    },
                ),
                entry(
                    2,
                    "presence.changed",
                    {
                        "conversation_id": 1,
                        "viewers": [{"user": "sam", "typing": False, "since": _time(NOW)}],
                    },
                ),
                entry(
                    3, "note.added", {"conversation_id": 1, "id": 5, "author": "sam", "mentions": ["dana"]}
                ),
                entry(
                    4, "conversation.labels_changed", {"conversation_id": 1, "labels": ["vip"], "by": "sam"}
                ),
                entry(5, "canned_replies.changed", {}),
                entry(
                    6,
                    "window.closing",
                    {"conversation_id": 1, "closes_at": _time(NOW), "assignee": "dana", "unanswered": True},
                ),
            ],
            "next": 6,
        }
    )
    status, presence, note, labels, canned, closing = batch.events
    assert (status.status, status.snoozed_until, status.by, status.reason) == ("snoozed", NOW, "sam", "user")
    assert presence.viewers == (Viewer("sam", False, NOW),)
    assert (note.author, note.mentions) == ("sam", ("dana",))
    assert labels.labels == ("vip",)
    assert canned.type == "canned_replies.changed"
    assert (closing.assignee, closing.unanswered) == ("dana", True)
    with pytest.raises(ValueError, match="status"):
        parse_event_batch(
            {
                "events": [
                    entry(
                        1,
                        "conversation.status_changed",
                        {
                            "conversation_id": 1,
                            "status": "closed",
                            "snoozed_until": None,
                            "by": "sam",
                            "reason": "user",
                        },
                    )
                ],
                "next": 1,
            }
        )
    with pytest.raises(ValueError, match="unanswered"):
        parse_event_batch(
            {"events": [entry(1, "window.closing", {"conversation_id": 1, "assignee": None})], "next": 1}
        )


def test_the_new_calls_send_what_the_contract_says() -> None:
    seen: list[tuple[str, str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        seen.append((request.method, str(request.url), body))
        path = request.url.path
        if path.endswith("/presence"):
            return httpx.Response(200, json={"viewers": []})
        if path.endswith("/notes"):
            return httpx.Response(201, json={"id": 1, "author": ME, "text": "x", "created_at": _time(NOW)})
        if path == "/v1/labels":
            return httpx.Response(200, json={"labels": [{"name": "vip", "count": 2}]})
        if path == "/v1/conversations":
            return httpx.Response(200, json={"conversations": [], "next_cursor": None})
        return httpx.Response(
            200, json={k: v for k, v in _conversation(1, "Ana").items() if k != "last_message"}
        )

    client = ApiClient("http://backend.test", "token", transport=httpx.MockTransport(answer))
    until = datetime(2026, 5, 7, 9, 0, tzinfo=timezone(timedelta(hours=2)))
    assert client.set_status(1, "snoozed", until).id == 1
    assert client.presence(1, typing=True) == ()
    client.presence(1, typing=False, viewing=False)
    assert client.add_note(1, "x").author == ME
    client.labels(1, add=["vip"], remove=["old"])
    assert [(label.name, label.count) for label in client.all_labels()] == [("vip", 2)]
    client.conversations(status=["open", "snoozed"], label="vip", window="closing")
    client.close()
    assert [body for _method, _url, body in seen[:6]] == [
        {"status": "snoozed", "until": "2026-05-07T09:00:00+02:00"},
        {"typing": True, "viewing": True},
        {"typing": False, "viewing": False},
        {"text": "x"},
        {"add": ["vip"], "remove": ["old"]},
        None,
    ]
    listed = httpx.URL(seen[6][1])
    assert listed.params["status"] == "open,snoozed" and listed.params["label"] == "vip"
    assert listed.params["window"] == "closing"


def test_the_thread_model_knows_the_newest_entry_seen(qtbot: Any, window: MainWindow) -> None:
    _open(qtbot, window, 1)
    assert window.inbox.thread_model.newest_time() == NEWEST_SEEN
    assert window.inbox.thread_model.index_of_message("order-1") == window.inbox.thread_model.index_of_key(
        "order-1"
    )
    assert not window.inbox.thread_model.index_of_message("nothing").isValid()
    assert window.inbox.thread_model.canFetchMore(QModelIndex()) is False


def test_a_restore_of_the_backend_reloads_what_the_desk_shows(
    qtbot: Any, window: MainWindow, backend: FakeBackend
) -> None:
    inbox = window.inbox
    with qtbot.waitSignal(inbox.conversations.loaded, timeout=10_000):
        inbox.conversations.start()
    assert inbox.conversations.row_of(4) is None
    # The restored data holds a conversation this desk never heard of: no event will name it.
    with backend.lock:
        backend.conversations[4] = _conversation(4, "Dora")
    window.handle_events([Event(seq=90, type=DATABASE_RESTORED, at=NOW)])
    qtbot.waitUntil(lambda: inbox.conversations.row_of(4) is not None, timeout=10_000)
    assert "restored from a backup" in window.statusBar().currentMessage()
