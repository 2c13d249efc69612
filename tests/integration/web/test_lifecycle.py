"""Conversation status: transitions journaled with who made them, reopening, snoozes ending, filters."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from backend.inbox.conversation_timers import ConversationTimers
from tests.conftest import journal_entries
from tests.integration.web.conftest import Api, add_inbound, deliver_webhook
from tests.integration.webhooks.support import text_message


def _status(api: Api, conversation: int, body: Any, token: str | None = None):  # type: ignore[no-untyped-def]
    return api.client().post(
        f"/v1/conversations/{conversation}/status", json=body, headers=api.headers(token)
    )


def _iso(api: Api, seconds: float) -> str:
    return (api.clock.now + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def _status_events(api: Api) -> list[dict[str, Any]]:
    return [entry.data for entry in journal_entries(api.database, "conversation.status_changed")]


def _ids(api: Api, query: str = "") -> list[int]:
    response = api.client().get(f"/v1/conversations{query}", headers=api.headers())
    assert response.status_code == 200, response.get_json()
    return [item["id"] for item in response.get_json()["conversations"]]


def test_every_conversation_resource_carries_status_snooze_labels_and_viewers(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    listed = api.client().get("/v1/conversations", headers=api.headers()).get_json()["conversations"][0]
    detail = api.client().get(f"/v1/conversations/{conversation}", headers=api.headers()).get_json()
    for resource in (listed, detail):
        assert resource["status"] == "open"
        assert resource["snoozed_until"] is None
        assert resource["labels"] == []
        assert resource["viewers"] == []


def test_status_changes_are_journaled_with_who_made_them(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    pending = _status(api, conversation, {"status": "pending"})
    assert pending.status_code == 200
    assert (pending.get_json()["status"], pending.get_json()["snoozed_until"]) == ("pending", None)
    resolved = _status(api, conversation, {"status": "resolved"}, api.other_agent_token)
    assert resolved.get_json()["status"] == "resolved"
    until = _iso(api, 3600)
    snoozed = _status(api, conversation, {"status": "snoozed", "until": until}, api.supervisor_token)
    assert snoozed.status_code == 200
    assert (snoozed.get_json()["status"], snoozed.get_json()["snoozed_until"]) == ("snoozed", until)
    # Another time zone names the same moment.
    later = (api.clock.now + timedelta(hours=2)).astimezone().isoformat()
    assert _status(api, conversation, {"status": "snoozed", "until": later}).get_json()["snoozed_until"] == (
        _iso(api, 7200)
    )
    reopened = _status(api, conversation, {"status": "open"})
    assert (reopened.get_json()["status"], reopened.get_json()["snoozed_until"]) == ("open", None)
    # Setting the status it already has changes nothing and journals nothing.
    assert _status(api, conversation, {"status": "open"}).status_code == 200

    def entry(status: str, by: str, snoozed_until: str | None = None) -> dict[str, Any]:
        return {
            "conversation_id": conversation,
            "status": status,
            "snoozed_until": snoozed_until,
            "by": by,
            "reason": "user",
        }

    assert _status_events(api) == [
        entry("pending", "alice"),
        entry("resolved", "bob"),
        entry("snoozed", "sam", until),
        entry("snoozed", "alice", _iso(api, 7200)),
        entry("open", "alice"),
    ]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"status": "closed"},
        {"status": None},
        {"status": ["open"]},
        {"status": "snoozed"},
        {"status": "snoozed", "until": None},
        {"status": "snoozed", "until": "tomorrow"},
        {"status": "snoozed", "until": 1893456000},
        {"status": "snoozed", "until": "2026-11-29T10:00:00"},  # no time zone
        {"status": "snoozed", "until": "2026-11-29T08:59:59Z"},  # past
        {"status": "snoozed", "until": "2026-11-29T09:00:00Z"},  # now
        {"status": "snoozed", "until": "0001-01-01T00:00:00+01:00"},
        {"status": "snoozed", "until": "9999-12-31T23:59:59-01:00"},
        {"status": "resolved", "until": "2026-11-30T09:00:00Z"},
    ],
)
def test_a_change_that_cannot_be_made_is_refused_with_invalid_status(api: Api, body: dict[str, Any]) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    response = _status(api, conversation, body)
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_status"
    assert _status_events(api) == []
    detail = api.client().get(f"/v1/conversations/{conversation}", headers=api.headers()).get_json()
    assert detail["status"] == "open"


def test_an_unknown_conversation_or_a_body_that_is_no_object_is_refused(api: Api) -> None:
    assert _status(api, 999, {"status": "resolved"}).status_code == 404
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    response = _status(api, conversation, ["resolved"])
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_json"


@pytest.mark.parametrize("status", ["resolved", "pending", "snoozed"])
def test_a_new_customer_message_reopens_the_conversation(api: Api, status: str) -> None:
    deliver_webhook(api, text_message("wamid.first", sent_at=api.clock.now))
    [conversation] = _ids(api)
    body: dict[str, Any] = {"status": status}
    if status == "snoozed":
        body["until"] = _iso(api, 86400)
    assert _status(api, conversation, body).status_code == 200
    assert _ids(api, f"?status={status}") == [conversation]
    api.clock.advance(60)
    deliver_webhook(api, text_message("wamid.again", sent_at=api.clock.now, body="Still there?"))
    detail = api.client().get(f"/v1/conversations/{conversation}", headers=api.headers()).get_json()
    assert (detail["status"], detail["snoozed_until"]) == ("open", None)
    assert _ids(api) == [conversation]
    assert _status_events(api)[-1] == {
        "conversation_id": conversation,
        "status": "open",
        "snoozed_until": None,
        "by": "system",
        "reason": "customer_wrote",
    }
    # A redelivered copy of that message reopens nothing again.
    assert _status(api, conversation, {"status": "resolved"}).status_code == 200
    deliver_webhook(api, text_message("wamid.again", sent_at=api.clock.now, body="Still there?"))
    assert api.client().get(f"/v1/conversations/{conversation}", headers=api.headers()).get_json()[
        "status"
    ] == ("resolved")


def test_a_message_to_an_open_conversation_journals_no_status_change(api: Api) -> None:
    deliver_webhook(api, text_message("wamid.1", sent_at=api.clock.now))
    deliver_webhook(api, text_message("wamid.2", sent_at=api.clock.now))
    assert _status_events(api) == []


def test_the_list_shows_open_and_pending_unless_asked_for_other_statuses(api: Api) -> None:
    ids: dict[str, int] = {}
    for index, status in enumerate(("open", "pending", "resolved", "snoozed")):
        at = api.clock.now - timedelta(minutes=10 - index)
        ids[status], _ = add_inbound(api.database, f"+1650555123{index}", f"wamid.{status}", at=at)
        if status != "open":
            body = {"status": status, "until": _iso(api, 600)} if status == "snoozed" else {"status": status}
            assert _status(api, ids[status], body).status_code == 200
    newest_first = [ids["snoozed"], ids["resolved"], ids["pending"], ids["open"]]
    assert _ids(api) == [ids["pending"], ids["open"]]
    assert _ids(api, "?status=open,pending") == [ids["pending"], ids["open"]]
    assert _ids(api, "?status=resolved") == [ids["resolved"]]
    assert _ids(api, "?status=snoozed") == [ids["snoozed"]]
    assert _ids(api, "?status=resolved,open") == [ids["resolved"], ids["open"]]
    assert _ids(api, "?status=all") == newest_first
    assert _ids(api, "?status=all&view=unassigned") == newest_first
    assert _ids(api, "?status=") == [ids["pending"], ids["open"]]
    for bad in ("closed", "open,", "all,open", "OPEN", ",", "open;pending"):
        response = api.client().get(f"/v1/conversations?status={bad}", headers=api.headers())
        assert response.status_code == 400, bad
        assert response.get_json()["error"]["code"] == "invalid_parameter"


def test_the_sweeper_ends_a_snooze_within_one_run_after_its_time(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    other, _ = add_inbound(api.database, "+447911123456", "wamid.B", at=api.clock.now)
    until = _iso(api, 300)
    assert _status(api, conversation, {"status": "snoozed", "until": until}).status_code == 200
    assert _status(api, other, {"status": "snoozed", "until": _iso(api, 3600)}).status_code == 200
    timers = ConversationTimers(api.parts)
    assert timers.interval_seconds <= 1.0
    api.clock.advance(299)
    assert timers.run_once().snoozes_ended == 0
    api.clock.advance(1)
    assert timers.run_once().snoozes_ended == 1
    detail = api.client().get(f"/v1/conversations/{conversation}", headers=api.headers()).get_json()
    assert (detail["status"], detail["snoozed_until"]) == ("open", None)
    assert _ids(api) == [conversation]
    assert timers.run_once().snoozes_ended == 0
    assert _status_events(api)[-1] == {
        "conversation_id": conversation,
        "status": "open",
        "snoozed_until": None,
        "by": "system",
        "reason": "snooze_ended",
    }
    assert len(_status_events(api)) == 3
    api.clock.advance(3600)
    assert timers.run_once().snoozes_ended == 1
    assert sorted(_ids(api)) == sorted([conversation, other])


def test_a_snooze_changed_before_its_time_does_not_end_early(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    assert _status(api, conversation, {"status": "snoozed", "until": _iso(api, 60)}).status_code == 200
    assert _status(api, conversation, {"status": "snoozed", "until": _iso(api, 600)}).status_code == 200
    timers = ConversationTimers(api.parts)
    api.clock.advance(120)
    assert timers.run_once().snoozes_ended == 0
    assert _status(api, conversation, {"status": "resolved"}).status_code == 200
    api.clock.advance(600)
    assert timers.run_once().snoozes_ended == 0
    detail = api.client().get(f"/v1/conversations/{conversation}", headers=api.headers()).get_json()
    assert detail["status"] == "resolved"
