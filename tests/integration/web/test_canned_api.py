"""Canned replies: everyone reads them, supervisors change them, {{name}} and {{number}} are filled."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import journal_entries
from tests.integration.web.conftest import Api, add_inbound

THANKS = {"shortcut": "thanks", "title": "Thank you", "text": "Thank you {{name}}! We'll text {{number}}."}


def _create(api: Api, body: dict[str, Any], token: str | None = None) -> Any:
    return api.client().post(
        "/v1/canned-replies", json=body, headers=api.headers(token or api.supervisor_token)
    )


def _list(api: Api, query: str = "") -> list[dict[str, Any]]:
    response = api.client().get(f"/v1/canned-replies{query}", headers=api.headers())
    assert response.status_code == 200, response.get_json()
    replies: list[dict[str, Any]] = response.get_json()["canned_replies"]
    return replies


def _error(response: Any) -> tuple[int, str]:
    return response.status_code, response.get_json()["error"]["code"]


def test_a_supervisor_creates_changes_and_deletes_and_desks_are_told(api: Api) -> None:
    created = _create(api, THANKS)
    assert created.status_code == 201
    reply = created.get_json()
    assert reply == {**THANKS, "id": reply["id"], "updated_at": "2026-11-29T09:00:00Z"}
    assert (
        _create(api, {"shortcut": "address", "title": "Address", "text": "Which address?"}).status_code == 201
    )
    assert [item["shortcut"] for item in _list(api)] == ["address", "thanks"]

    api.clock.advance(60)
    changed = api.client().put(
        f"/v1/canned-replies/{reply['id']}",
        json={"title": "Thanks"},
        headers=api.headers(api.supervisor_token),
    )
    assert changed.status_code == 200
    assert changed.get_json() == {**reply, "title": "Thanks", "updated_at": "2026-11-29T09:01:00Z"}

    deleted = api.client().delete(
        f"/v1/canned-replies/{reply['id']}", headers=api.headers(api.supervisor_token)
    )
    assert (deleted.status_code, deleted.get_data()) == (204, b"")
    assert [item["shortcut"] for item in _list(api)] == ["address"]
    entries = journal_entries(api.database, "canned_replies.")
    assert [(entry.type, entry.data) for entry in entries] == [("canned_replies.changed", {})] * 4


def test_agents_read_but_may_not_change(api: Api) -> None:
    reply_id = _create(api, THANKS).get_json()["id"]
    assert _error(_create(api, {**THANKS, "shortcut": "other"}, api.agent_token)) == (403, "forbidden")
    put = api.client().put(f"/v1/canned-replies/{reply_id}", json={"title": "x"}, headers=api.headers())
    assert _error(put) == (403, "forbidden")
    delete = api.client().delete(f"/v1/canned-replies/{reply_id}", headers=api.headers())
    assert _error(delete) == (403, "forbidden")
    assert [item["shortcut"] for item in _list(api)] == ["thanks"]


def test_a_shortcut_is_taken_once(api: Api) -> None:
    assert _create(api, THANKS).status_code == 201
    assert _error(_create(api, {**THANKS, "title": "Again"})) == (409, "shortcut_taken")
    other_id = _create(api, {**THANKS, "shortcut": "thanks-2"}).get_json()["id"]
    headers = api.headers(api.supervisor_token)
    taken = api.client().put(f"/v1/canned-replies/{other_id}", json={"shortcut": "thanks"}, headers=headers)
    assert _error(taken) == (409, "shortcut_taken")
    # Keeping its own shortcut is no conflict.
    same = api.client().put(f"/v1/canned-replies/{other_id}", json={"shortcut": "thanks-2"}, headers=headers)
    assert same.status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {**THANKS, "shortcut": ""},
        {**THANKS, "shortcut": "two words"},
        {**THANKS, "shortcut": "/thanks"},
        {**THANKS, "shortcut": "x" * 33},
        {**THANKS, "shortcut": "café"},
        {**THANKS, "shortcut": "thanks\n"},
        {**THANKS, "shortcut": 7},
        {**THANKS, "title": ""},
        {**THANKS, "title": "   "},
        {**THANKS, "title": "t" * 101},
        {**THANKS, "text": ""},
        {**THANKS, "text": "x" * 4097},
        {**THANKS, "text": None},
        {"shortcut": "thanks", "title": "Thank you"},
        {},
    ],
)
def test_invalid_canned_replies_are_refused(api: Api, body: dict[str, Any]) -> None:
    assert _error(_create(api, body)) == (400, "invalid_canned_reply")
    assert _list(api) == []


def test_limits_are_inclusive(api: Api) -> None:
    body = {"shortcut": "A_z-9" + "x" * 27, "title": "t" * 100, "text": "x" * 4096}
    assert _create(api, body).status_code == 201


def test_a_change_must_name_something_valid(api: Api) -> None:
    reply_id = _create(api, THANKS).get_json()["id"]
    headers = api.headers(api.supervisor_token)
    for body in ({}, {"other": 1}, {"text": ""}, {"shortcut": "a b"}):
        response = api.client().put(f"/v1/canned-replies/{reply_id}", json=body, headers=headers)
        assert _error(response) == (400, "invalid_canned_reply"), body
    assert _list(api)[0]["text"] == THANKS["text"]


def test_unknown_ids_are_404(api: Api) -> None:
    headers = api.headers(api.supervisor_token)
    put = api.client().put("/v1/canned-replies/999", json={"title": "x"}, headers=headers)
    assert _error(put) == (404, "not_found")
    assert _error(api.client().delete("/v1/canned-replies/999", headers=headers)) == (404, "not_found")


def test_replies_are_filled_for_a_conversations_contact(api: Api) -> None:
    _create(api, THANKS)
    named, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now, name="Dana")
    unnamed, _ = add_inbound(api.database, "+447911123456", "wamid.B", at=api.clock.now)
    [for_dana] = _list(api, f"?conversation_id={named}")
    assert for_dana["filled"] == "Thank you Dana! We'll text +16505551234."
    assert for_dana["text"] == THANKS["text"]
    [for_unnamed] = _list(api, f"?conversation_id={unnamed}")
    assert for_unnamed["filled"] == "Thank you +447911123456! We'll text +447911123456."
    assert "filled" not in _list(api)[0]


def test_filling_for_an_unknown_or_malformed_conversation_is_refused(api: Api) -> None:
    _create(api, THANKS)
    unknown = api.client().get("/v1/canned-replies?conversation_id=999", headers=api.headers())
    assert _error(unknown) == (404, "not_found")
    for value in ("abc", "0", "-1", str(2**31)):
        malformed = api.client().get(f"/v1/canned-replies?conversation_id={value}", headers=api.headers())
        assert _error(malformed) == (400, "invalid_parameter"), value
