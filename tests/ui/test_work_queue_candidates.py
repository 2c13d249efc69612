"""A work-queue reply shows the messages it may answer, the newest chosen; linking files it under that one."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PySide6.QtCore import Qt

from ui.api.client import ApiClient
from ui.api.resources import parse_work_queue_page
from ui.runner import BackgroundRunner
from ui.views.linking import CANDIDATES_HEADING, RECENT_HEADING, LinkChooser
from ui.views.work_queue import WorkQueueView

MARKUP = "<b style='color:#ff0000'>Reminder</b>: your table at 7 pm"


def _candidate(key: str, minute: int, body: str, purpose: str = "appointment_reminder") -> dict[str, Any]:
    return {
        "key": key,
        "wamid": f"wamid.{key}",
        "purpose": purpose,
        "body": body,
        "sent_at": f"2026-05-01T11:{minute:02d}:00Z",
    }


def _work_item(wamid: str, conversation_id: int, candidates: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "wamid": wamid,
        "conversation_id": conversation_id,
        "from": "+16505551234",
        "name": "Ana",
        "type": "text",
        "text": "yes",
        "context_id": None,
        "received_at": "2026-05-01T12:00:00Z",
        "placement": "work_queue",
        "candidates": candidates,
    }


def _outbound(key: str, minute: int, body: str) -> dict[str, Any]:
    return {
        "direction": "outbound",
        "key": key,
        "to": "+16505551234",
        "wamid": f"wamid.{key}",
        "state": "read",
        "purpose": "support",
        "kind": "text",
        "body": body,
        "attempts": 1,
        "created_at": f"2026-05-01T10:{minute:02d}:00Z",
        "trigger_ref": None,
        "error": None,
        "replies": [],
    }


class FakeQueueBackend:
    """The work queue, threads and the attribute route, remembering what was asked."""

    def __init__(self) -> None:
        self.items = [
            _work_item(
                "wamid.yes",
                1,
                [_candidate("dentist", 30, MARKUP), _candidate("haircut", 10, "Haircut tomorrow at 9?")],
            ),
            _work_item("wamid.loose", 2, []),
        ]
        self.threads: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
        self.requests: list[tuple[str, str, Any]] = []
        # Set to hold thread answers back until a test lets them go.
        self.thread_gate = threading.Event()
        self.thread_gate.set()
        self.lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        path = request.url.path
        with self.lock:
            self.requests.append((request.method, path, body))
        parts = path.strip("/").split("/")
        if path == "/v1/work-queue":
            return httpx.Response(200, json={"items": self.items, "next_cursor": None})
        if parts[:2] == ["v1", "conversations"] and parts[-1] == "thread":
            self.thread_gate.wait(10)
            messages = self.threads[int(parts[2])]
            return httpx.Response(200, json={"messages": messages, "next_cursor": None, "viewers": []})
        if parts[:2] == ["v1", "inbound"] and parts[-1] == "attribute":
            return httpx.Response(
                200,
                json={
                    "wamid": parts[2],
                    "type": "text",
                    "text": "yes",
                    "choice": None,
                    "choice_title": None,
                    "context_id": None,
                    "attributed": True,
                    "placement": "new_topic" if body.get("new_topic") else "linked",
                    "reaction": None,
                    "received_at": "2026-05-01T12:00:00Z",
                },
            )
        return httpx.Response(404, json={"error": {"code": "not_found", "message": path}})

    def asked(self, method: str, fragment: str) -> list[tuple[str, str, Any]]:
        """The requests of a method whose path holds `fragment`."""
        with self.lock:
            return [entry for entry in self.requests if entry[0] == method and fragment in entry[1]]


@pytest.fixture
def backend() -> FakeQueueBackend:
    """A backend with one reply that has two candidates and one that has none."""
    return FakeQueueBackend()


@pytest.fixture
def api(backend: FakeQueueBackend, runner: BackgroundRunner, qtbot: Any) -> Iterator[ApiClient]:
    """A client on the fake backend."""
    client = ApiClient("http://backend.test", "token", transport=httpx.MockTransport(backend))
    yield client
    backend.thread_gate.set()
    qtbot.waitUntil(lambda: runner.pending_count == 0, timeout=10_000)
    client.close()


@pytest.fixture
def queue(qtbot: Any, api: ApiClient, runner: BackgroundRunner) -> WorkQueueView:
    """The work-queue tab, loaded."""
    view = WorkQueueView(api, runner)
    qtbot.addWidget(view)
    view.show()
    view.start()
    qtbot.waitUntil(lambda: len(view.model.items) == 2, timeout=10_000)
    return view


def test_the_candidates_show_with_the_newest_chosen(
    queue: WorkQueueView, backend: FakeQueueBackend, qtmodeltester: Any
) -> None:
    assert queue.select_wamid("wamid.yes")
    chooser = queue.chooser
    assert chooser.heading.text() == CANDIDATES_HEADING
    assert [option.key for option in chooser.messages] == ["dentist", "haircut"]
    assert chooser.chosen is not None and chooser.chosen.key == "dentist"
    assert chooser.message_list.currentRow() == 0
    first = chooser.message_list.item(0).text()
    # Purpose in words, when it was sent, and the body as plain text, markup and all.
    assert first.startswith("Appointment reminder · sent ") and first.endswith("\n" + MARKUP)
    assert chooser.link_button.isEnabled() and chooser.new_topic_button.isEnabled()
    # The candidates came with the reply: no thread had to be read.
    assert backend.asked("GET", "/thread") == []
    # The list row says there is more than one message it may answer.
    assert queue.model.display_text(queue.model.items[0]).endswith("(2 messages it may answer)")
    qtmodeltester.check(queue.model)


def test_linking_sends_the_chosen_candidates_key(
    qtbot: Any, queue: WorkQueueView, backend: FakeQueueBackend
) -> None:
    assert queue.select_wamid("wamid.yes")
    with qtbot.waitSignal(queue.reply_placed, timeout=5_000) as placed:
        qtbot.mouseClick(queue.chooser.link_button, Qt.MouseButton.LeftButton)
    assert backend.asked("POST", "/attribute") == [
        ("POST", "/v1/inbound/wamid.yes/attribute", {"message_key": "dentist"})
    ]
    assert placed.args == ["wamid.yes", 1, "dentist"]
    assert queue.model.row_of("wamid.yes") is None


def test_another_candidate_can_be_chosen(qtbot: Any, queue: WorkQueueView, backend: FakeQueueBackend) -> None:
    assert queue.select_wamid("wamid.yes")
    chooser = queue.chooser
    chooser.message_list.setCurrentRow(1)
    with qtbot.waitSignal(chooser.attributed, timeout=5_000) as attributed:
        chooser.link()
    assert attributed.args == ["wamid.yes", "haircut"]
    assert backend.asked("POST", "/attribute")[-1][2] == {"message_key": "haircut"}
    assert queue.model.row_of("wamid.yes") is None


def test_without_candidates_the_recent_messages_are_offered(
    qtbot: Any, queue: WorkQueueView, backend: FakeQueueBackend
) -> None:
    backend.threads[2] = [_outbound("older", 1, "Order shipped"), _outbound("newer", 5, "Order delivered")]
    assert queue.select_wamid("wamid.loose")
    chooser = queue.chooser
    assert chooser.heading.text() == RECENT_HEADING
    qtbot.waitUntil(lambda: bool(chooser.messages), timeout=5_000)
    assert [option.key for option in chooser.messages] == ["newer", "older"]
    assert chooser.chosen is not None and chooser.chosen.key == "newer"
    assert chooser.message_list.item(0).text().startswith("Support · sent ")


def test_without_candidates_or_recent_messages_only_a_new_topic_is_possible(
    qtbot: Any, queue: WorkQueueView, backend: FakeQueueBackend
) -> None:
    assert queue.select_wamid("wamid.loose")
    chooser = queue.chooser
    qtbot.waitUntil(lambda: chooser.status_label.text().startswith("No recent messages"), timeout=5_000)
    assert chooser.messages == [] and chooser.message_list.count() == 0
    assert not chooser.link_button.isEnabled() and chooser.new_topic_button.isEnabled()
    with qtbot.waitSignal(queue.reply_placed, timeout=5_000) as placed:
        qtbot.mouseClick(chooser.new_topic_button, Qt.MouseButton.LeftButton)
    assert backend.asked("POST", "/attribute") == [
        ("POST", "/v1/inbound/wamid.loose/attribute", {"new_topic": True})
    ]
    assert placed.args == ["wamid.loose", 2, ""]


def test_recent_messages_arriving_late_do_not_replace_the_next_replys_candidates(
    qtbot: Any, api: ApiClient, runner: BackgroundRunner, backend: FakeQueueBackend
) -> None:
    backend.threads[2] = [_outbound("stale", 1, "From the other conversation")]
    backend.thread_gate.clear()
    chooser = LinkChooser(api, runner)
    qtbot.addWidget(chooser)
    chooser.show_reply("wamid.loose", 2)
    qtbot.waitUntil(lambda: bool(backend.asked("GET", "/thread")), timeout=5_000)
    candidates = parse_work_queue_page({"items": backend.items[:1], "next_cursor": None}).items[0].candidates
    chooser.show_reply("wamid.yes", 1, candidates)
    backend.thread_gate.set()
    qtbot.waitUntil(lambda: runner.pending_count == 0, timeout=5_000)
    assert [option.key for option in chooser.messages] == ["dentist", "haircut"]
    assert chooser.heading.text() == CANDIDATES_HEADING and chooser.status_label.text() == ""
