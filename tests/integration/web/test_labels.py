"""Labels: added and removed on a conversation, checked, journaled, used to filter and listed with counts."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import journal_entries
from tests.integration.web.conftest import Api, add_inbound


def _labels(api: Api, conversation: int, body: Any, token: str | None = None):  # type: ignore[no-untyped-def]
    return api.client().post(
        f"/v1/conversations/{conversation}/labels", json=body, headers=api.headers(token)
    )


def _label_events(api: Api) -> list[dict[str, Any]]:
    return [entry.data for entry in journal_entries(api.database, "conversation.labels_changed")]


def _current(api: Api, conversation: int) -> list[str]:
    labels: list[str] = (
        api.client().get(f"/v1/conversations/{conversation}", headers=api.headers()).get_json()["labels"]
    )
    return labels


def test_labels_are_added_removed_sorted_and_journaled(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    added = _labels(api, conversation, {"add": ["vip", " refund ", "Zebra", "vip", "été"]})
    assert added.status_code == 200
    resource = added.get_json()
    assert resource["id"] == conversation
    assert resource["labels"] == ["Zebra", "refund", "vip", "été"]
    assert resource["status"] == "open"
    changed = _labels(
        api, conversation, {"add": ["urgent"], "remove": ["refund", "missing"]}, api.other_agent_token
    )
    assert changed.get_json()["labels"] == ["Zebra", "urgent", "vip", "été"]
    # Nothing to change: answered, not journaled.
    assert _labels(api, conversation, {"add": ["vip"], "remove": ["refund"]}).status_code == 200
    assert _labels(api, conversation, {"remove": ["Zebra", "été"]}).get_json()["labels"] == ["urgent", "vip"]
    assert _current(api, conversation) == ["urgent", "vip"]
    assert _label_events(api) == [
        {"conversation_id": conversation, "labels": ["Zebra", "refund", "vip", "été"], "by": "alice"},
        {"conversation_id": conversation, "labels": ["Zebra", "urgent", "vip", "été"], "by": "bob"},
        {"conversation_id": conversation, "labels": ["urgent", "vip"], "by": "alice"},
    ]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"add": [], "remove": []},
        {"add": "vip"},
        {"add": {"vip": True}},
        {"remove": "vip"},
        {"add": [None]},
        {"add": [7]},
        {"add": [""]},
        {"add": ["   "]},
        {"add": ["x" * 41]},
        {"add": ["line\nbreak"]},
        {"add": ["tab\there"]},
        {"add": ["bell\x07"]},
        {"remove": ["x" * 41]},
        {"add": ["vip"], "remove": [" vip"]},
    ],
)
def test_a_bad_label_is_refused_with_invalid_label(api: Api, body: dict[str, Any]) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    response = _labels(api, conversation, body)
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_label"
    assert _current(api, conversation) == []
    assert _label_events(api) == []


def test_the_longest_label_and_forty_characters_after_strip_are_fine(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    response = _labels(api, conversation, {"add": ["  " + "é" * 40 + "  ", "👍 thumbs"]})
    assert response.status_code == 200
    assert response.get_json()["labels"] == ["é" * 40, "👍 thumbs"]


def test_a_conversation_carries_at_most_20_labels(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    too_many = _labels(api, conversation, {"add": [f"label-{index}" for index in range(21)]})
    assert too_many.status_code == 400
    assert too_many.get_json()["error"]["code"] == "too_many_labels"
    nineteen = [f"label-{index:02}" for index in range(19)]
    assert _labels(api, conversation, {"add": nineteen}).status_code == 200
    over = _labels(api, conversation, {"add": ["one", "two"]})
    assert over.status_code == 400
    assert over.get_json()["error"]["code"] == "too_many_labels"
    assert _current(api, conversation) == nineteen
    # Swapping within the limit is fine.
    swapped = _labels(api, conversation, {"add": ["one", "two"], "remove": ["label-00", "label-01"]})
    assert swapped.status_code == 200
    assert len(swapped.get_json()["labels"]) == 19
    assert _labels(api, conversation, {"add": ["twenty"]}).status_code == 200
    assert len(_current(api, conversation)) == 20


def test_labels_filter_the_list_and_are_listed_with_counts(api: Api) -> None:
    first, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    second, _ = add_inbound(api.database, "+447911123456", "wamid.B", at=api.clock.now)
    third, _ = add_inbound(api.database, "+33612345678", "wamid.C", at=api.clock.now)
    assert _labels(api, first, {"add": ["vip", "refund"]}).status_code == 200
    assert _labels(api, second, {"add": ["vip"]}).status_code == 200
    assert api.client().post(
        f"/v1/conversations/{second}/status", json={"status": "resolved"}, headers=api.headers()
    ).get_json()["labels"] == ["vip"]

    def ids(query: str) -> list[int]:
        response = api.client().get(f"/v1/conversations{query}", headers=api.headers())
        assert response.status_code == 200
        return sorted(item["id"] for item in response.get_json()["conversations"])

    assert ids("?label=vip") == [first]  # the resolved one is not in the default list
    assert ids("?label=vip&status=all") == [first, second]
    assert ids("?label=%20vip%20&status=all") == [first, second]
    assert ids("?label=refund") == [first]
    assert ids("?label=VIP") == []
    assert ids("?label=nothing") == []
    assert ids("?status=all") == [first, second, third]
    assert api.client().get(f"/v1/conversations?label={'x' * 41}", headers=api.headers()).status_code == 400
    listed = api.client().get("/v1/labels", headers=api.headers())
    assert listed.status_code == 200
    assert listed.get_json() == {"labels": [{"name": "refund", "count": 1}, {"name": "vip", "count": 2}]}
    assert _labels(api, first, {"remove": ["refund"]}).status_code == 200
    assert api.client().get("/v1/labels", headers=api.headers()).get_json() == {
        "labels": [{"name": "vip", "count": 2}]
    }


def test_labels_of_an_unknown_conversation_are_404(api: Api) -> None:
    response = _labels(api, 999, {"add": ["vip"]})
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"
