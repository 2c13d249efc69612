"""Collision control: a reply written against an older view of the thread is stopped unless forced."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from backend.database.models import OutboxMessage
from tests.integration.web.conftest import Api, add_inbound, add_outbox_row

SEEN = "2026-11-29T09:00:00Z"


def _reply(api: Api, conversation: int, body: dict[str, Any], key: str, token: str | None = None):  # type: ignore[no-untyped-def]
    return api.client().post(
        f"/v1/conversations/{conversation}/reply",
        json=body,
        headers=api.headers(token, Idempotency_Key=key),
    )


def _keys(api: Api) -> list[str]:
    with api.database.reader() as session:
        return list(session.scalars(select(OutboxMessage.dedupe_key).order_by(OutboxMessage.id)))


@pytest.fixture
def conversation(api: Api) -> int:
    """A customer's question at START, answered by bob a minute later."""
    conversation_id, _ = add_inbound(
        api.database, "+16505551234", "wamid.Q", at=api.clock.now, text="Where is my parcel?"
    )
    api.clock.advance(60)
    answered = _reply(api, conversation_id, {"text": "It left today."}, "bob-1", api.other_agent_token)
    assert answered.status_code == 202
    api.clock.advance(30)
    return conversation_id


def test_a_reply_after_someone_elses_answer_is_refused_with_their_messages(
    api: Api, conversation: int
) -> None:
    refused = _reply(api, conversation, {"text": "Let me check", "seen_up_to": SEEN}, "alice-1")
    assert refused.status_code == 409
    error = refused.get_json()["error"]
    assert error["code"] == "conversation_changed"
    assert error["message"]
    [message] = error["messages"]
    assert message["key"] == "bob-1"
    assert message["body"] == "It left today."
    assert message["created_by"] == "bob"
    assert message["created_at"] == "2026-11-29T09:01:00Z"
    assert message["conversation_id"] == conversation
    assert _keys(api) == ["bob-1"]
    # Having seen bob's message, the same reply goes (the refusal did not use up its key).
    seen = _reply(api, conversation, {"text": "Let me check", "seen_up_to": message["created_at"]}, "alice-1")
    assert seen.status_code == 202
    assert _keys(api) == ["bob-1", "alice-1"]


def test_force_sends_anyway(api: Api, conversation: int) -> None:
    forced = _reply(api, conversation, {"text": "Anyway", "seen_up_to": SEEN, "force": True}, "alice-f")
    assert forced.status_code == 202
    assert forced.get_json()["key"] == "alice-f"
    not_forced = _reply(api, conversation, {"text": "Again", "seen_up_to": SEEN, "force": False}, "alice-g")
    assert not_forced.status_code == 409


def test_ones_own_messages_and_the_away_message_are_no_collision(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.Q", at=api.clock.now)
    api.clock.advance(60)
    assert _reply(api, conversation, {"text": "First"}, "alice-1").status_code == 202
    add_outbox_row(
        api,
        "auto-reply:wamid.Q",
        state="sent",
        conversation_id=conversation,
        origin="auto",
        created_at=api.clock.now,
    )
    api.clock.advance(30)
    assert _reply(api, conversation, {"text": "Second", "seen_up_to": SEEN}, "alice-2").status_code == 202


def test_a_business_message_from_the_api_counts_as_a_change(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.Q", at=api.clock.now)
    api.clock.advance(60)
    sent = api.send(
        "order-9", {"to": "+16505551234", "purpose": "order", "text": "Shipped!"}, api.supervisor_token
    )
    assert sent.status_code == 202
    refused = _reply(api, conversation, {"text": "Hi", "seen_up_to": SEEN}, "alice-1")
    assert refused.status_code == 409
    [message] = refused.get_json()["error"]["messages"]
    assert (message["key"], message["created_by"], message["body"]) == ("order-9", "sam", "Shipped!")


def test_a_retry_of_an_accepted_reply_replays_whatever_was_sent_since(api: Api, conversation: int) -> None:
    body = {"text": "On it", "seen_up_to": "2026-11-29T09:01:00Z"}
    first = _reply(api, conversation, body, "alice-r")
    assert first.status_code == 202
    api.clock.advance(10)
    assert _reply(api, conversation, {"text": "Me too"}, "bob-2", api.other_agent_token).status_code == 202
    again = _reply(api, conversation, body, "alice-r")
    assert again.status_code == 202
    assert again.data == first.data
    assert again.headers["Idempotent-Replayed"] == "true"
    assert _keys(api) == ["bob-1", "alice-r", "bob-2"]


def test_a_reply_without_seen_up_to_is_not_checked(api: Api, conversation: int) -> None:
    assert _reply(api, conversation, {"text": "Hello"}, "alice-1").status_code == 202


@pytest.mark.parametrize(
    "body",
    [
        {"text": "x", "seen_up_to": "yesterday"},
        {"text": "x", "seen_up_to": 12},
        {"text": "x", "seen_up_to": "2026-11-29T09:00:00"},
        {"text": "x", "seen_up_to": "0001-01-01T00:00:00+01:00"},
        {"text": "x", "seen_up_to": SEEN, "force": "yes"},
        {"text": "x", "force": None},
    ],
)
def test_bad_collision_fields_are_refused(api: Api, conversation: int, body: dict[str, Any]) -> None:
    response = _reply(api, conversation, body, "alice-bad")
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_message"
    assert _keys(api) == ["bob-1"]


def test_messages_before_seen_up_to_or_in_other_conversations_do_not_count(
    api: Api, conversation: int
) -> None:
    other, _ = add_inbound(api.database, "+447911123456", "wamid.O", at=api.clock.now)
    assert _reply(api, other, {"text": "Elsewhere"}, "bob-o", api.other_agent_token).status_code == 202
    seen = (api.clock.now - timedelta(seconds=30)).isoformat()
    assert _reply(api, conversation, {"text": "Fine", "seen_up_to": seen}, "alice-1").status_code == 202
