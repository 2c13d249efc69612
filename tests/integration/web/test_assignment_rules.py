"""Agents take unassigned conversations and give back their own; anything else is a supervisor's.

Every assignment is journaled with who made it.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import journal_entries
from tests.integration.web.conftest import Api, add_inbound


def _assign(api: Api, conversation: int, user: str | None, token: str) -> Any:
    return api.client().post(
        f"/v1/conversations/{conversation}/assign", json={"user": user}, headers=api.headers(token)
    )


def _journaled(api: Api) -> list[dict[str, Any]]:
    return [dict(entry.data) for entry in journal_entries(api.database, "conversation.assigned")]


def _assignee(api: Api, conversation: int) -> str | None:
    response = api.client().get(f"/v1/conversations/{conversation}", headers=api.headers())
    assignee: str | None = response.get_json()["assignee"]
    return assignee


def test_an_agent_takes_an_unassigned_conversation_and_gives_it_back(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    taken = _assign(api, conversation, "alice", api.agent_token)
    assert taken.status_code == 200
    assert taken.get_json()["assignee"] == "alice"
    again = _assign(api, conversation, "alice", api.agent_token)
    assert again.status_code == 200
    given_back = _assign(api, conversation, None, api.agent_token)
    assert given_back.status_code == 200
    assert given_back.get_json()["assignee"] is None
    assert _journaled(api) == [
        {"conversation_id": conversation, "assignee": "alice", "by": "alice"},
        {"conversation_id": conversation, "assignee": "alice", "by": "alice"},
        {"conversation_id": conversation, "assignee": None, "by": "alice"},
    ]


def test_an_agent_cannot_assign_to_someone_else(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    for name in ("bob", "sam", "nobody"):
        refused = _assign(api, conversation, name, api.agent_token)
        assert refused.status_code == 403, name
        error = refused.get_json()["error"]
        assert error["code"] == "forbidden"
        assert "supervisor" in error["message"]
    assert _assignee(api, conversation) is None
    assert _journaled(api) == []


def test_an_agent_cannot_take_or_drop_a_colleagues_conversation(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    assert _assign(api, conversation, "bob", api.other_agent_token).status_code == 200
    for name in ("alice", None):
        refused = _assign(api, conversation, name, api.agent_token)
        assert refused.status_code == 403, name
        assert refused.get_json()["error"]["code"] == "forbidden"
    assert _assignee(api, conversation) == "bob"
    assert _journaled(api) == [{"conversation_id": conversation, "assignee": "bob", "by": "bob"}]


def test_a_supervisor_assigns_to_anyone_and_unassigns_anyone(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    assert _assign(api, conversation, "bob", api.supervisor_token).get_json()["assignee"] == "bob"
    assert _assign(api, conversation, "alice", api.supervisor_token).get_json()["assignee"] == "alice"
    assert _assign(api, conversation, None, api.supervisor_token).get_json()["assignee"] is None
    unknown = _assign(api, conversation, "nobody", api.supervisor_token)
    assert unknown.status_code == 400
    assert unknown.get_json()["error"]["code"] == "unknown_user"
    assert _journaled(api) == [
        {"conversation_id": conversation, "assignee": "bob", "by": "sam"},
        {"conversation_id": conversation, "assignee": "alice", "by": "sam"},
        {"conversation_id": conversation, "assignee": None, "by": "sam"},
    ]


def test_the_journal_event_is_served_with_who_assigned(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    _assign(api, conversation, "bob", api.supervisor_token)
    events = api.client().get("/v1/events?after=0", headers=api.headers()).get_json()["events"]
    assigned = [event["data"] for event in events if event["type"] == "conversation.assigned"]
    assert assigned == [{"conversation_id": conversation, "assignee": "bob", "by": "sam"}]
