"""Internal notes: stored in the conversation, mentions of enabled users, never sent to WhatsApp."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.composition import build_parts
from backend.database.models import ConversationNote, OutboxMessage, User
from backend.outbox.sender import OutboxSender
from backend.users import create_user
from tests.conftest import journal_entries
from tests.integration.web.conftest import START, Api, add_inbound


def _note(api: Api, conversation: int, body: Any, token: str | None = None):  # type: ignore[no-untyped-def]
    return api.client().post(f"/v1/conversations/{conversation}/notes", json=body, headers=api.headers(token))


def _note_events(api: Api) -> list[dict[str, Any]]:
    return [entry.data for entry in journal_entries(api.database, "note.added")]


def _notes(api: Api) -> list[tuple[int, str, Any]]:
    with api.database.reader() as session:
        rows = session.scalars(select(ConversationNote).order_by(ConversationNote.id))
        return [(row.conversation_id, row.text, row.mentions) for row in rows]


def test_a_note_is_stored_answered_and_journaled(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    api.clock.advance(5)
    response = _note(api, conversation, {"text": "  Refund approved, waiting on the warehouse.\n"})
    assert response.status_code == 201
    note = response.get_json()
    assert note == {
        "id": note["id"],
        "author": "alice",
        "text": "Refund approved, waiting on the warehouse.",
        "created_at": "2026-11-29T09:00:05Z",
    }
    assert _notes(api) == [(conversation, "Refund approved, waiting on the warehouse.", [])]
    assert _note_events(api) == [
        {"conversation_id": conversation, "id": note["id"], "author": "alice", "mentions": []}
    ]


def test_mentions_name_enabled_users_only(api: Api) -> None:
    with api.database.transaction() as session:
        create_user(session, "Dana Smith", "agent", START)
        create_user(session, "dan", "agent", START)
        create_user(session, "eve", "agent", START)
        session.scalars(select(User).where(User.name == "eve")).one().disabled = True
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    text = (
        "@bob can you call? cc @dana smith, @Sam and @eve; mail bob@example.com; "
        "@nobody, @bobby, @bob again, @dan."
    )
    response = _note(api, conversation, {"text": text}, api.supervisor_token)
    assert response.status_code == 201
    expected = ["bob", "Dana Smith", "sam", "dan"]
    assert _notes(api) == [(conversation, text, expected)]
    assert _note_events(api)[0]["mentions"] == expected
    assert _note_events(api)[0]["author"] == "sam"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"text": None},
        {"text": 12},
        {"text": ["a"]},
        {"text": ""},
        {"text": " \n\t "},
        {"text": "x" * 4001},
    ],
)
def test_a_note_must_be_1_to_4000_characters_of_text(api: Api, body: dict[str, Any]) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    response = _note(api, conversation, body)
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_note"
    assert _notes(api) == []
    assert _note_events(api) == []


def test_the_longest_note_and_odd_text_are_kept(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    assert _note(api, conversation, {"text": "  " + "x" * 4000 + "  "}).status_code == 201
    assert _note(api, conversation, {"text": "<b>not markup</b> 👍 é"}).status_code == 201
    assert [text for _, text, _ in _notes(api)] == ["x" * 4000, "<b>not markup</b> 👍 é"]
    lone_surrogate = _note(api, conversation, {"text": "half \ud83d a pair"})
    assert lone_surrogate.status_code == 400
    # Half a surrogate pair is refused for the whole body, before the note is looked at.
    assert lone_surrogate.get_json()["error"]["code"] == "invalid_json"


def test_a_note_in_an_unknown_conversation_is_404(api: Api) -> None:
    response = _note(api, 999, {"text": "hello"})
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"


def test_notes_never_reach_the_graph_api(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    for text in ("Customer is upset", "@bob please reply"):
        assert _note(api, conversation, {"text": text}).status_code == 201
    with api.database.reader() as session:
        assert session.scalar(select(func.count()).select_from(OutboxMessage)) == 0
    calls: list[httpx.Request] = []

    def graph(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(200, json={"messages": [{"id": "wamid.OUT"}]})

    sender = OutboxSender(
        build_parts(api.settings, api.database, clock=lambda: api.clock.now),
        transport=httpx.MockTransport(graph),
    )
    assert sender.run_once() == 0
    assert calls == []


def test_notes_appear_in_the_thread_in_time_order(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now, text="Hi")
    api.clock.advance(10)
    note = _note(api, conversation, {"text": "VIP customer"}).get_json()
    api.clock.advance(10)
    reply = api.client().post(
        f"/v1/conversations/{conversation}/reply",
        json={"text": "Hello!"},
        headers=api.headers(api.other_agent_token, Idempotency_Key="r-1"),
    )
    assert reply.status_code == 202
    thread = api.client().get(f"/v1/conversations/{conversation}/thread", headers=api.headers()).get_json()
    assert [item["direction"] for item in thread["messages"]] == ["inbound", "note", "outbound"]
    assert thread["messages"][1] == {"direction": "note", **note}
