"""Windows closing within the hour: the list's filter, and a warning naming the assignee and who waits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from backend.inbox.windows import WindowTimers
from tests.conftest import journal_entries
from tests.integration.web.conftest import Api, add_inbound, add_outbox_row


def _ids(api: Api, query: str) -> list[int]:
    response = api.client().get(f"/v1/conversations{query}", headers=api.headers())
    assert response.status_code == 200
    return [item["id"] for item in response.get_json()["conversations"]]


def _closing_events(api: Api) -> dict[int, dict[str, Any]]:
    return {
        entry.data["conversation_id"]: entry.data for entry in journal_entries(api.database, "window.closing")
    }


def test_window_closing_lists_windows_that_close_within_the_hour(api: Api) -> None:
    now = api.clock.now
    soon, _ = add_inbound(
        api.database, "+16505551230", "wamid.soon", at=now - timedelta(hours=23, minutes=30)
    )
    edge, _ = add_inbound(api.database, "+16505551231", "wamid.edge", at=now - timedelta(hours=23))
    later, _ = add_inbound(api.database, "+16505551232", "wamid.later", at=now - timedelta(hours=22))
    closed, _ = add_inbound(api.database, "+16505551233", "wamid.closed", at=now - timedelta(hours=24))
    assert sorted(_ids(api, "?window=closing")) == sorted([soon, edge])
    assert sorted(_ids(api, "?window=open")) == sorted([soon, edge, later])
    assert _ids(api, "?window=closed") == [closed]
    response = api.client().get("/v1/conversations?window=soon", headers=api.headers())
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_parameter"


def test_the_closing_warning_names_the_assignee_and_whether_the_customer_waits(api: Api) -> None:
    start = api.clock.now
    waiting, _ = add_inbound(api.database, "+16505551230", "wamid.wait", at=start)
    answered, _ = add_inbound(api.database, "+16505551231", "wamid.answered", at=start)
    away_only, _ = add_inbound(api.database, "+16505551232", "wamid.away", at=start)
    failed_only, _ = add_inbound(api.database, "+16505551233", "wamid.failed", at=start)
    assert (
        api.client()
        .post(f"/v1/conversations/{waiting}/assign", json={"user": "alice"}, headers=api.headers())
        .status_code
        == 200
    )
    api.clock.advance(60)
    reply = api.client().post(
        f"/v1/conversations/{answered}/reply",
        json={"text": "Done"},
        headers=api.headers(api.other_agent_token, Idempotency_Key="answer-1"),
    )
    assert reply.status_code == 202
    add_outbox_row(
        api,
        "auto-reply:wamid.away",
        state="sent",
        conversation_id=away_only,
        origin="auto",
        created_at=api.clock.now,
    )
    add_outbox_row(
        api,
        "never-went",
        state="failed",
        conversation_id=failed_only,
        origin="agent",
        created_at=api.clock.now,
    )
    api.clock.now = start + timedelta(hours=23, minutes=5)
    assert WindowTimers(api.parts).run_once().closing == 4
    events = _closing_events(api)
    assert events[waiting] == {
        "conversation_id": waiting,
        "closes_at": "2026-11-30T09:00:00Z",
        "assignee": "alice",
        "unanswered": True,
    }
    assert (events[answered]["assignee"], events[answered]["unanswered"]) == (None, False)
    # The away message and a reply that failed answer no one.
    assert events[away_only]["unanswered"] is True
    assert events[failed_only]["unanswered"] is True
