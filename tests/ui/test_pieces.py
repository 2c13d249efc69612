"""The client's small parts: countdowns, status marks, plain errors, wire parsing, runner, health history."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from PySide6.QtCore import QObject

from ui.api.resources import (
    Conversation,
    Event,
    InboundMessage,
    OutboundMessage,
    SendError,
    TemplateInfo,
    parse_supervisor_page,
    parse_thread_item,
)
from ui.health import HealthHistory
from ui.presentation import evidence_text, plain_error, status_mark, window_text
from ui.runner import BackgroundRunner
from ui.sign_in import SignIn, load_sign_in, save_sign_in

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("closes_in", "text", "is_open", "urgent"),
    [
        (timedelta(hours=3, minutes=12, seconds=30), "3 h 12 m left", True, False),
        (timedelta(hours=1), "1 h 0 m left", True, False),
        (timedelta(minutes=59, seconds=59), "59 m left", True, True),
        (timedelta(seconds=30), "0 m left", True, True),
        (timedelta(0), "closed", False, False),
        (-timedelta(hours=2), "closed", False, False),
    ],
)
def test_window_countdown(closes_in: timedelta, text: str, is_open: bool, urgent: bool) -> None:
    shown = window_text(NOW + closes_in, NOW)
    assert (shown.text, shown.is_open, shown.urgent) == (text, is_open, urgent)


def test_a_conversation_never_written_has_a_closed_window() -> None:
    assert window_text(None, NOW).text == "closed"


@pytest.mark.parametrize(
    ("state", "mark"),
    [
        ("queued", "◷"),
        ("sending", "↗"),
        ("sent", "✓"),
        ("delivered", "✓✓"),
        ("read", "✓✓"),
        ("failed", "✕"),
        ("unknown", "⚠"),
    ],
)
def test_status_marks(state: str, mark: str) -> None:
    assert status_mark(state).mark == mark


def test_read_is_coloured_and_delivered_is_not() -> None:
    assert status_mark("read").colour != status_mark("delivered").colour


def test_plain_errors_explain_the_code_in_words() -> None:
    text = plain_error(
        SendError(code=131047, title="Re-engagement message", details=None, reason="meta_error")
    )
    assert "24 hours" in text and "template" in text and "131047" in text
    assert (
        plain_error(SendError(code=999999, title="Odd", details="Something odd", reason="meta_error"))
        == "Something odd (code 999999)"
    )
    assert plain_error(None) == ""


def test_errors_of_our_own_sending_are_explained_by_their_reason_code() -> None:
    text = plain_error(
        SendError(
            code=None,
            title="outcome unknown",
            details="RemoteProtocolError: Server disconnected",
            reason="no_answer_after_send",
        )
    )
    assert text.startswith("No answer from WhatsApp after the message went out")
    assert text.endswith("(RemoteProtocolError: Server disconnected)")
    # The words come from the reason code, whatever free-form title the backend recorded.
    assert "crash" in plain_error(
        SendError(code=None, title="anything", details=None, reason="lease_expired")
    )


def test_an_unrecognised_reason_falls_back_to_the_backends_own_words() -> None:
    assert (
        plain_error(SendError(code=None, title="Odd", details="Very odd", reason="new_reason")) == "Very odd"
    )
    assert plain_error(SendError(code=None, title="Odd", details=None, reason="other")) == "Odd"


def _inbound(wamid: str, **fields: Any) -> dict[str, Any]:
    """An inbound thread entry as the backend writes it."""
    entry: dict[str, Any] = {
        "direction": "inbound",
        "wamid": wamid,
        "type": "text",
        "text": None,
        "choice": None,
        "choice_title": None,
        "context_id": None,
        "attributed": True,
        "placement": "reply",
        "reaction": None,
        "received_at": "2026-05-01T12:00:00Z",
    }
    entry.update(fields)
    return entry


def test_thread_entries_parse_with_replies_choices_and_reactions() -> None:
    outbound = parse_thread_item(
        {
            "direction": "outbound",
            "key": "k1",
            "to": "+16505551234",
            "wamid": "wamid.1",
            "state": "read",
            "purpose": "feedback",
            "kind": "text",
            "body": "How did we do?",
            "attempts": 1,
            "created_at": "2026-05-01T12:00:00Z",
            "trigger_ref": "order-9",
            "error": None,
            "replies": [
                _inbound("in.1", type="interactive", choice="b1", choice_title="Great", context_id="wamid.1"),
                _inbound("in.2", type="reaction", reaction="👍"),
            ],
        }
    )
    assert isinstance(outbound, OutboundMessage)
    assert outbound.trigger_ref == "order-9"
    assert [reply.choice for reply in outbound.replies] == ["Great"]
    assert [reaction.emoji for reaction in outbound.reactions] == ["👍"]
    loose = parse_thread_item(_inbound("in.3", text="hi", attributed=False, placement="work_queue"))
    assert isinstance(loose, InboundMessage) and not loose.attributed


def test_conversation_and_supervisor_items_parse() -> None:
    conversation = Conversation.from_json(
        {
            "id": 3,
            "contact": {"wa_id": "16505551234", "number": "+16505551234", "name": None},
            "assignee": None,
            "last_message_at": "2026-05-01T12:00:00+00:00",
            "unread": 2,
            "window_closes_at": None,
            "window_open": False,
            "status": "snoozed",
            "snoozed_until": "2026-05-02T09:00:00+02:00",
            "labels": ["vip"],
            "viewers": [{"user": "sam", "typing": True, "since": "2026-05-01T12:00:00Z"}],
        }
    )
    assert conversation.contact.display_name == "+16505551234" and conversation.last_message is None
    assert conversation.status == "snoozed" and conversation.labels == ("vip",)
    assert conversation.snoozed_until == datetime(2026, 5, 2, 7, 0, tzinfo=UTC)
    assert [(viewer.user, viewer.typing) for viewer in conversation.viewers] == [("sam", True)]
    page = parse_supervisor_page(
        {
            "items": [
                {
                    "key": "k",
                    "to": "+16505551234",
                    "purpose": "support",
                    "state": "unknown",
                    "wamid": None,
                    "attempts": 1,
                    "error": None,
                    "created_at": "2026-05-01T11:58:45Z",
                    "conversation_id": 3,
                    "hold_reason": None,
                    "body": "Your code is 123456",
                    "reason": "unknown",
                    "name": "Ana",
                    "age_seconds": 75.0,
                    "evidence": [
                        {
                            "wamid": "w",
                            "status": "delivered",
                            "callback_data": "k",
                            "occurred_at": "2026-05-01T12:00:00Z",
                            "received_at": "2026-05-01T12:00:01Z",
                        }
                    ],
                }
            ],
            "next_cursor": None,
        }
    )
    item = page.items[0]
    assert item.contact_name == "Ana" and item.conversation_id == 3 and item.age(NOW) == 75.0
    assert "delivered" in evidence_text(item.evidence[0])


def test_template_preview_fills_what_is_given_and_names_what_is_missing() -> None:
    template = TemplateInfo("appointment_reminder", "en", "On {{1}} at {{2}}.", ("date", "time"))
    assert template.render(["Friday", ""]) == "On Friday at [time]."


class _Receiver(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.results: list[tuple[Any, bool]] = []
        self.errors: list[Exception] = []

    def take(self, value: Any) -> None:
        self.results.append((value, threading.current_thread() is threading.main_thread()))

    def fail(self, error: Exception) -> None:
        self.errors.append(error)


def _explode() -> None:
    raise ValueError("boom")


def test_the_runner_delivers_results_and_errors_on_the_gui_thread(qtbot: Any) -> None:
    runner = BackgroundRunner()
    receiver = _Receiver()
    runner.submit(threading.get_ident, receiver.take, receiver.fail)
    runner.submit(_explode, receiver.take, receiver.fail)
    qtbot.waitUntil(lambda: runner.pending_count == 0, timeout=5000)
    assert len(receiver.results) == 1
    worker_ident, on_gui_thread = receiver.results[0]
    assert worker_ident != threading.get_ident() and on_gui_thread
    assert [str(error) for error in receiver.errors] == ["boom"]
    runner.shutdown()


def test_the_runner_refuses_a_lambda_for_results(qtbot: Any) -> None:
    runner = BackgroundRunner()
    with pytest.raises(TypeError):
        runner.submit(threading.get_ident, lambda value: None)
    runner.shutdown()


def test_the_runner_can_wait_for_its_calls_in_flight_when_it_shuts_down(qtbot: Any) -> None:
    runner = BackgroundRunner()
    receiver = _Receiver()
    started, release, ended = threading.Event(), threading.Event(), threading.Event()

    def slow_call() -> None:
        started.set()
        release.wait(5.0)
        ended.set()

    runner.submit(slow_call, receiver.take, receiver.fail)
    assert started.wait(5.0)
    runner.shutdown()
    assert not ended.is_set(), "without a wait, shutting down returns while the call still runs"
    threading.Timer(0.2, release.set).start()
    runner.shutdown(wait_seconds=5.0)
    assert ended.is_set()
    qtbot.wait(50)
    assert receiver.results == [], "an abandoned call's outcome is dropped"


def _event(seq: int, at: datetime, key: str, state: str, previous: str) -> Event:
    return Event(
        seq=seq,
        type="message.state_changed",
        at=at,
        conversation_id=1,
        key=key,
        state=state,
        previous_state=previous,
    )


def test_health_history_counts_sends_and_delivery_gaps_once() -> None:
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
    events = [
        _event(1, start, "a", "sending", "queued"),
        _event(2, start + timedelta(seconds=1), "a", "accepted", "sending"),
        _event(3, start + timedelta(seconds=2), "a", "sent", "accepted"),
        _event(4, start + timedelta(seconds=5), "a", "delivered", "sent"),
        _event(5, start + timedelta(seconds=2), "b", "accepted", "sending"),
    ]
    history = HealthHistory()
    history.add(events)
    history.add(events)  # the same events again change nothing
    assert sum(point.value for point in history.send_rate()) * 10 / 60 == pytest.approx(2)
    assert [point.value for point in history.delivery_gap()] == [3.0]


def test_sign_in_is_remembered_privately(tmp_path: Any) -> None:
    assert load_sign_in(tmp_path) is None
    path = save_sign_in(tmp_path, SignIn("http://127.0.0.1:8080", "secret", "dana"))
    assert load_sign_in(tmp_path) == SignIn("http://127.0.0.1:8080", "secret", "dana")
    assert path.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize(
    "reason",
    [
        "no_answer_after_send",
        "lease_expired",
        "request_not_sent",
        "accepted_without_message_id",
        "payload_unsendable",
    ],
)
def test_every_reason_of_our_own_sending_has_words(reason: str) -> None:
    explained = plain_error(SendError(code=None, title="raw title", details=None, reason=reason))
    assert explained and explained != "raw title", f"no words for the reason {reason!r}"


def _assigned_to(assignee: str | None) -> Conversation:
    return Conversation.from_json(
        {
            "id": 7,
            "contact": {"wa_id": "16505551234", "number": "+16505551234", "name": "Ana"},
            "assignee": assignee,
            "last_message_at": "2026-05-01T11:00:00Z",
            "unread": 0,
            "window_closes_at": None,
            "window_open": False,
            "last_message": "hi",
            "status": "open",
            "snoozed_until": None,
            "labels": [],
            "viewers": [],
        }
    )


@pytest.mark.parametrize(
    ("is_supervisor", "assignee", "expected"),
    [
        (False, None, ("Assign to me", True, False)),
        (False, "sam", ("Give back", True, False)),
        (False, "dana", ("Assign to me", False, False)),
        (True, "sam", ("Assign to me", True, True)),
        (True, "dana", ("Give back", True, True)),
    ],
)
def test_assignment_buttons_offer_what_the_role_may_do(
    qtbot: Any, is_supervisor: bool, assignee: str | None, expected: tuple[str, bool, bool]
) -> None:
    from ui.views.details import DetailsPane

    text, may_take, may_assign_others = expected

    details = DetailsPane()
    qtbot.addWidget(details)
    details.set_user("dana" if is_supervisor else "sam", is_supervisor=is_supervisor)
    details.show_conversation(_assigned_to(assignee))
    assert details.assign_me_button.text() == text
    assert details.assign_me_button.isEnabled() == may_take
    assert details.assign_other_button.isVisibleTo(details) == may_assign_others
    if not may_take:
        assert "a supervisor can reassign it" in details.assign_me_button.toolTip()
