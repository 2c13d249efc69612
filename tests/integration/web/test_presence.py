"""Presence: who views and types in a conversation, live for 30 s, journaled on change, swept on expiry."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from backend.database.models import ConversationPresence
from backend.inbox.conversation_timers import ConversationTimers
from tests.conftest import journal_entries
from tests.integration.web.conftest import Api, add_inbound

SINCE = "2026-11-29T09:00:00Z"


def _presence(api: Api, conversation: int, body: Any, token: str | None = None):  # type: ignore[no-untyped-def]
    return api.client().post(
        f"/v1/conversations/{conversation}/presence", json=body, headers=api.headers(token)
    )


def _viewers(api: Api, conversation: int) -> list[dict[str, Any]]:
    detail = api.client().get(f"/v1/conversations/{conversation}", headers=api.headers()).get_json()
    listed = api.client().get("/v1/conversations", headers=api.headers()).get_json()["conversations"]
    assert [item["viewers"] for item in listed if item["id"] == conversation] == [detail["viewers"]]
    viewers: list[dict[str, Any]] = detail["viewers"]
    return viewers


def _presence_events(api: Api) -> list[dict[str, Any]]:
    return [entry.data for entry in journal_entries(api.database, "presence.changed")]


def _rows(api: Api) -> int:
    with api.database.reader() as session:
        return int(session.scalar(select(func.count()).select_from(ConversationPresence)) or 0)


def test_viewers_and_typing_are_shown_and_journaled_only_when_they_change(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    alice = {"user": "alice", "typing": False, "since": SINCE}
    viewing = _presence(api, conversation, {"typing": False})
    assert viewing.status_code == 200
    assert viewing.get_json() == {"viewers": [alice]}
    api.clock.advance(5)
    bob_typing = {"user": "bob", "typing": True, "since": "2026-11-29T09:00:05Z"}
    assert _presence(api, conversation, {"typing": True}, api.other_agent_token).get_json() == {
        "viewers": [alice, bob_typing]
    }
    assert _viewers(api, conversation) == [alice, bob_typing]
    # A refresh with nothing new keeps the rows alive and journals nothing.
    api.clock.advance(10)
    assert _presence(api, conversation, {"typing": False}).status_code == 200
    assert _presence(api, conversation, {}).status_code == 200  # typing defaults to false
    assert len(_presence_events(api)) == 2
    # Typing stops: journaled; leaving: journaled.
    assert _presence(api, conversation, {"typing": False}, api.other_agent_token).status_code == 200
    gone = _presence(api, conversation, {"viewing": False})
    assert gone.get_json() == {"viewers": [{**bob_typing, "typing": False}]}
    # Leaving twice is no change.
    assert _presence(api, conversation, {"viewing": False}).status_code == 200
    assert _presence_events(api) == [
        {"conversation_id": conversation, "viewers": [alice]},
        {"conversation_id": conversation, "viewers": [alice, bob_typing]},
        {"conversation_id": conversation, "viewers": [alice, {**bob_typing, "typing": False}]},
        {"conversation_id": conversation, "viewers": [{**bob_typing, "typing": False}]},
    ]


def test_a_presence_row_lives_30_seconds_unless_refreshed(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    assert _presence(api, conversation, {"typing": True}).status_code == 200
    assert _presence(api, conversation, {"typing": False}, api.other_agent_token).status_code == 200
    api.clock.advance(20)
    assert _presence(api, conversation, {"typing": False}, api.other_agent_token).status_code == 200
    api.clock.advance(10)
    # Expired rows are left out at once, before any sweep.
    assert [viewer["user"] for viewer in _viewers(api, conversation)] == ["bob"]
    assert _rows(api) == 2
    timers = ConversationTimers(api.parts)
    assert timers.run_once().presence_expired == 1
    assert _rows(api) == 1
    assert _presence_events(api)[-1] == {
        "conversation_id": conversation,
        "viewers": [{"user": "bob", "typing": False, "since": SINCE}],
    }
    assert timers.run_once().presence_expired == 0
    api.clock.advance(20)
    assert timers.run_once().presence_expired == 1
    assert _rows(api) == 0
    assert _viewers(api, conversation) == []
    assert _presence_events(api)[-1] == {"conversation_id": conversation, "viewers": []}


def test_coming_back_after_expiry_is_a_new_arrival(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    assert _presence(api, conversation, {}).status_code == 200
    api.clock.advance(45)  # expired, not yet swept
    back = _presence(api, conversation, {}).get_json()
    assert back == {"viewers": [{"user": "alice", "typing": False, "since": "2026-11-29T09:00:45Z"}]}
    assert len(_presence_events(api)) == 2
    # The sweeper leaves the refreshed row alone.
    assert ConversationTimers(api.parts).run_once().presence_expired == 0
    assert _rows(api) == 1


def test_the_sweeper_journals_each_conversation_once(api: Api) -> None:
    first, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    second, _ = add_inbound(api.database, "+447911123456", "wamid.B", at=api.clock.now)
    for conversation in (first, second):
        for token in (api.agent_token, api.other_agent_token):
            assert _presence(api, conversation, {}, token).status_code == 200
    before = len(_presence_events(api))
    api.clock.advance(31)
    assert ConversationTimers(api.parts).run_once().presence_expired == 2
    assert _presence_events(api)[before:] == [
        {"conversation_id": first, "viewers": []},
        {"conversation_id": second, "viewers": []},
    ]


@pytest.mark.parametrize(
    "body", [{"typing": "yes"}, {"typing": None}, {"viewing": 1}, {"typing": True, "viewing": "no"}]
)
def test_presence_flags_must_be_booleans(api: Api, body: dict[str, Any]) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    response = _presence(api, conversation, body)
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_presence"
    assert _rows(api) == 0


def test_presence_in_an_unknown_conversation_is_404(api: Api) -> None:
    response = _presence(api, 999, {"typing": True})
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"


def test_the_thread_carries_the_live_viewers(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    assert _presence(api, conversation, {"typing": True}, api.other_agent_token).status_code == 200
    thread = api.client().get(f"/v1/conversations/{conversation}/thread", headers=api.headers()).get_json()
    assert thread["viewers"] == [{"user": "bob", "typing": True, "since": SINCE}]
    assert [item["direction"] for item in thread["messages"]] == ["inbound"]
    api.clock.advance(30)
    thread = api.client().get(f"/v1/conversations/{conversation}/thread", headers=api.headers()).get_json()
    assert thread["viewers"] == []
    assert api.client().get("/v1/conversations/999/thread", headers=api.headers()).status_code == 404
