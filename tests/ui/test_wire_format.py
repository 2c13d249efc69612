"""The client reads exactly what the backend sends: any other shape is a clear `bad_response`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from ui.api.client import BAD_RESPONSE, ApiClient, ApiError
from ui.api.resources import Event, parse_event_batch
from ui.live import EventFeed
from ui.runner import BackgroundRunner

Answer = Callable[[httpx.Request], httpx.Response]

MESSAGE: dict[str, Any] = {
    "key": "k",
    "to": "+16505551234",
    "purpose": "support",
    "state": "unknown",
    "wamid": None,
    "attempts": 1,
    "error": {
        "code": None,
        "title": "outcome unknown",
        "details": "ReadTimeout",
        "reason": "no_answer_after_send",
    },
    "created_at": "2026-05-01T12:00:00Z",
    "sent_at": None,
    "delivered_at": None,
    "read_at": None,
    "failed_at": None,
    "conversation_id": 3,
    "reply_to": None,
    "hold_reason": None,
    "trigger_ref": None,
}
SUPERVISOR_ITEM: dict[str, Any] = {
    **MESSAGE,
    "body": "Your code is 123456",
    "name": "Ana",
    "reason": "unknown",
    "age_seconds": 75.0,
    "unknown_since": "2026-05-01T12:00:10Z",
    "lease_expires_at": None,
    "last_error": MESSAGE["error"],
    "evidence": [],
}


def _without(body: dict[str, Any], name: str) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != name}


def _client(answer: Answer) -> ApiClient:
    return ApiClient("http://backend.test", "token", transport=httpx.MockTransport(answer))


@pytest.fixture
def answering() -> Iterator[Callable[[Answer], ApiClient]]:
    """Makes clients on fake backends and closes them afterwards."""
    made: list[ApiClient] = []

    def make(answer: Answer) -> ApiClient:
        client = _client(answer)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


def _json(body: object, status: int = 200, **headers: str) -> Answer:
    def answer(_request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body, headers=headers)

    return answer


def test_the_shapes_the_backend_sends_are_read(answering: Callable[[Answer], ApiClient]) -> None:
    page = answering(_json({"items": [SUPERVISOR_ITEM], "next_cursor": None})).supervisor_queue()
    item = page.items[0]
    assert item.error is not None and item.error.reason == "no_answer_after_send"
    assert item.contact_name == "Ana" and item.reason == "unknown" and page.next_cursor is None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        # The supervisor queue lists its sends under `items`, never `messages`.
        ({"messages": [SUPERVISOR_ITEM], "next_cursor": None}, "items"),
        # The error is `error`; `last_error` alone is not the shape the client reads.
        ({"items": [_without(SUPERVISOR_ITEM, "error")], "next_cursor": None}, "error"),
        ({"items": [{**SUPERVISOR_ITEM, "error": "gone"}], "next_cursor": None}, "error"),
        # The age is computed from created_at, never read from `age`.
        (
            {"items": [{**_without(SUPERVISOR_ITEM, "created_at"), "age": 5}], "next_cursor": None},
            "created_at",
        ),
        ({"items": [SUPERVISOR_ITEM]}, "next_cursor"),
        ({"items": [{**SUPERVISOR_ITEM, "attempts": "1"}], "next_cursor": None}, "attempts"),
        ({"items": [{**SUPERVISOR_ITEM, "attempts": True}], "next_cursor": None}, "attempts"),
        ({"items": [{**SUPERVISOR_ITEM, "created_at": "2026-05-01T12:00:00"}], "next_cursor": None}, "zone"),
        ({"items": [{**SUPERVISOR_ITEM, "evidence": "delivered"}], "next_cursor": None}, "evidence"),
    ],
)
def test_any_other_supervisor_queue_shape_is_a_bad_response(
    answering: Callable[[Answer], ApiClient], body: dict[str, Any], field: str
) -> None:
    with pytest.raises(ApiError) as raised:
        answering(_json(body)).supervisor_queue()
    assert raised.value.code == BAD_RESPONSE and raised.value.status == 200
    assert field in raised.value.message


def test_an_error_without_its_reason_code_is_a_bad_response(answering: Callable[[Answer], ApiClient]) -> None:
    error = {"code": None, "title": "outcome unknown", "details": None}
    with pytest.raises(ApiError) as raised:
        answering(_json({**MESSAGE, "error": error})).message("k")
    assert raised.value.code == BAD_RESPONSE and "message.error.reason is missing" in raised.value.message


def test_identity_comes_from_me_with_no_fallback(answering: Callable[[Answer], ApiClient]) -> None:
    assert answering(_json({"name": "dana", "role": "supervisor"})).identity().is_supervisor
    not_found = {"error": {"code": "not_found", "message": "no such route"}}
    with pytest.raises(ApiError) as raised:
        answering(_json(not_found, 404)).identity()
    assert (raised.value.status, raised.value.code) == (404, "not_found")
    with pytest.raises(ApiError) as wrapped:
        answering(_json({"user": {"name": "dana", "role": "supervisor"}})).identity()
    assert wrapped.value.code == BAD_RESPONSE


def test_answers_that_are_not_the_apis_json_are_bad_responses(
    answering: Callable[[Answer], ApiClient],
) -> None:
    def html(_request: httpx.Request) -> httpx.Response:
        return httpx.Response(502, text="<html>Bad gateway</html>")

    with pytest.raises(ApiError) as raised:
        answering(html).templates()
    assert (raised.value.status, raised.value.code) == (502, BAD_RESPONSE)
    with pytest.raises(ApiError) as odd_error:
        answering(_json({"message": "nope"}, 400)).templates()
    assert (odd_error.value.status, odd_error.value.code) == (400, BAD_RESPONSE)
    with pytest.raises(ApiError) as refused:
        answering(
            _json({"error": {"code": "forbidden", "message": "Only a supervisor may do this."}}, 403)
        ).metrics()
    assert (refused.value.status, refused.value.code, refused.value.message) == (
        403,
        "forbidden",
        "Only a supervisor may do this.",
    )


def test_template_parameters_are_a_list_of_names(answering: Callable[[Answer], ApiClient]) -> None:
    template = {"name": "t", "language": "en", "body": "{{1}}", "parameters": 1, "buttons": []}
    with pytest.raises(ApiError) as raised:
        answering(_json({"templates": [template], "next_cursor": None})).templates()
    assert "parameters" in raised.value.message


def test_journal_entries_the_client_reacts_to_are_checked() -> None:
    data: dict[str, Any] = {
        "wamid": "w",
        "conversation_id": 3,
        "attributed": False,
        "reply_to_key": None,
        "type": "text",
    }
    entry = {"seq": 4, "type": "inbound.received", "at": "2026-05-01T12:00:00Z", "data": data}
    batch = parse_event_batch({"events": [entry], "next": 4})
    assert batch.events == [
        Event(
            seq=4,
            type="inbound.received",
            at=batch.events[0].at,
            conversation_id=3,
            attributed=False,
            message_type="text",
        )
    ]
    # A type the client does not know passes; a known one with a wrong field does not.
    assert parse_event_batch({"events": [{**entry, "type": "something.new", "data": {}}], "next": 4}).events
    with pytest.raises(ValueError, match="conversation_id"):
        parse_event_batch({"events": [{**entry, "data": {**data, "conversation_id": "3"}}], "next": 4})


def test_a_long_poll_turned_away_waits_as_the_server_asks(qtbot: Any) -> None:
    polls: list[float] = []

    def full(request: httpx.Request) -> httpx.Response:
        polls.append(1)
        return httpx.Response(200, json={"events": [], "next": 0}, headers={"Retry-After": "1"})

    client = _client(full)
    runner = BackgroundRunner()
    feed = EventFeed(client, runner, wait_seconds=20)
    feed.start(after=0)
    qtbot.wait(1500)
    feed.stop()
    qtbot.waitUntil(lambda: runner.pending_count == 0, timeout=5000)
    runner.shutdown()
    client.close()
    # Without honouring Retry-After the feed would ask again at once, hundreds of times a second.
    assert 1 <= len(polls) <= 3
