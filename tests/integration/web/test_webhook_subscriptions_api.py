"""The webhook subscription routes: who may use them, what they refuse, what they answer."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from backend.dispatch.dispatcher import WebhookDispatcher
from backend.journal import journal, sequence_pending
from tests.integration.web.conftest import Api

PATH = "/v1/webhook-subscriptions"


def _create(api: Api, body: Any, token: str | None = None) -> Any:
    return api.client().post(PATH, json=body, headers=api.headers(token or api.supervisor_token))


def test_a_subscription_is_created_with_a_secret_shown_once(api: Api) -> None:
    answer = _create(
        api, {"url": "https://shop.example/hooks", "events": ["inbound.received"], "description": "CRM"}
    )
    assert answer.status_code == 201
    created = answer.get_json()
    assert set(created) >= {"id", "url", "events", "secret", "created_at", "enabled"}
    assert created["enabled"] is True and created["events"] == ["inbound.received"]
    assert created["secret"].startswith("whsec_")
    assert len(base64.b64decode(created["secret"].removeprefix("whsec_"), validate=True)) == 32
    listed = api.client().get(PATH, headers=api.headers(api.supervisor_token)).get_json()
    assert [item["id"] for item in listed["webhook_subscriptions"]] == [created["id"]]
    assert "secret" not in listed["webhook_subscriptions"][0]
    assert created["secret"] not in api.client().get(
        PATH, headers=api.headers(api.supervisor_token)
    ).get_data(as_text=True)


@pytest.mark.parametrize(
    "body",
    [
        {"url": "https://shop.example/hooks", "events": ["order.paid"]},
        {"url": "https://shop.example/hooks", "events": []},
        {"url": "https://shop.example/hooks", "events": "*"},
        {"url": "ftp://shop.example/hooks", "events": ["*"]},
        {"url": "https://user:pass@shop.example/hooks", "events": ["*"]},
        {"url": "https://token@shop.example/hooks", "events": ["*"]},
        {"url": "https:///hooks", "events": ["*"]},
        {"url": "https://shop.example:port/hooks", "events": ["*"]},
        {"url": "shop.example/hooks", "events": ["*"]},
        {"events": ["*"]},
        {"url": "https://shop.example/hooks", "events": ["*"], "description": 5},
        {"url": "https://shop.example/hooks", "events": ["*"], "secret": "mine"},
    ],
)
def test_bad_subscriptions_are_400_invalid_subscription(api: Api, body: Any) -> None:
    answer = _create(api, body)
    assert answer.status_code == 400
    assert answer.get_json()["error"]["code"] == "invalid_subscription"


def test_agents_may_not_manage_subscriptions(api: Api) -> None:
    assert _create(api, {"url": "https://shop.example/", "events": ["*"]}, api.agent_token).status_code == 403
    assert api.client().get(PATH, headers=api.headers()).status_code == 403
    assert api.client().delete(f"{PATH}/1", headers=api.headers()).status_code == 403


def test_unknown_ids_are_404(api: Api) -> None:
    headers = api.headers(api.supervisor_token)
    assert api.client().delete(f"{PATH}/99", headers=headers).status_code == 404
    assert api.client().get(f"{PATH}/99/deliveries", headers=headers).status_code == 404
    created = _create(api, {"url": "https://shop.example/", "events": ["*"]}).get_json()
    answer = api.client().post(f"{PATH}/{created['id']}/deliveries/5/redeliver", headers=headers)
    assert answer.status_code == 404
    assert answer.get_json()["error"]["code"] == "not_found"


def test_deliveries_are_listed_newest_first_a_page_at_a_time(api: Api) -> None:
    created = _create(api, {"url": "https://shop.example/", "events": ["*"]}).get_json()
    for number in range(5):
        with api.database.transaction() as session:
            journal(session, "inbound.received", {"n": number}, api.clock())
    sequence_pending(api.database, wait=True)
    WebhookDispatcher(api.parts).fan_out()
    headers = api.headers(api.supervisor_token)
    first = api.client().get(f"{PATH}/{created['id']}/deliveries?limit=3", headers=headers).get_json()
    assert [item["state"] for item in first["deliveries"]] == ["pending"] * 3
    assert first["next_cursor"]
    rest = (
        api.client()
        .get(f"{PATH}/{created['id']}/deliveries?limit=3&cursor={first['next_cursor']}", headers=headers)
        .get_json()
    )
    seqs = [item["seq"] for item in first["deliveries"] + rest["deliveries"]]
    assert seqs == sorted(seqs, reverse=True) and len(seqs) == 5
    assert rest["next_cursor"] is None
    item = first["deliveries"][0]
    assert set(item) >= {"id", "type", "attempts", "state", "last_status", "next_attempt_at"}
    bad = api.client().get(f"{PATH}/{created['id']}/deliveries?cursor=zzz", headers=headers)
    assert bad.status_code == 400
