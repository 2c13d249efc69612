"""The sandbox's account: templates paged and reviewed, the number's quality and limit, stopped marketing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from backend.sandbox.server import Sandbox

from .conftest import CUSTOMER, TOKEN, WebhookSink, graph_client, template_message

pytestmark = pytest.mark.timeout(30)


def _changes(sink: WebhookSink, field: str) -> list[dict[str, Any]]:
    with sink.lock:
        return [
            change["value"]
            for delivery in sink.deliveries
            for entry in delivery.payload["entry"]
            for change in entry["changes"]
            if change["field"] == field
        ]


def _marketing(to: str = CUSTOMER) -> dict[str, Any]:
    return {
        "messaging_product": "whatsapp",
        "to": to,
        "type": "template",
        "template": {
            "name": "we_miss_you",
            "language": {"code": "en"},
            "components": [{"type": "body", "parameters": [{"type": "text", "text": "Sheena"}]}],
        },
    }


def _templates_url(sandbox: Sandbox) -> str:
    return f"{sandbox.graph_url}/{sandbox.config.business_account_id}/message_templates"


def test_message_templates_are_paged_with_cursors_and_next_links(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    sandbox = start_sandbox()
    headers = {"Authorization": f"Bearer {TOKEN}"}
    pages = [httpx.get(_templates_url(sandbox), params={"limit": 1}, headers=headers).json()]
    while "next" in pages[-1]["paging"]:
        pages.append(httpx.get(pages[-1]["paging"]["next"], headers=headers).json())
    assert [len(page["data"]) for page in pages] == [1, 1, 1]
    listed = {item["name"]: item for page in pages for item in page["data"]}
    assert set(listed) == {"order_shipped", "appointment_reminder", "we_miss_you"}
    assert {item["status"] for item in listed.values()} == {"APPROVED"}
    assert listed["we_miss_you"]["category"] == "MARKETING"
    assert listed["order_shipped"]["components"][0]["type"] == "BODY"
    assert "{{1}}" in listed["order_shipped"]["components"][0]["text"]
    assert pages[1]["paging"]["cursors"]["before"] == pages[0]["paging"]["cursors"]["after"]
    everything = httpx.get(_templates_url(sandbox), headers=headers).json()
    assert len(everything["data"]) == 3 and "next" not in everything["paging"]


def test_graph_reads_need_the_token_and_the_right_ids(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox()
    assert httpx.get(_templates_url(sandbox)).status_code == 401
    other = f"{sandbox.graph_url}/123/message_templates"
    assert httpx.get(other, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 400
    bad_cursor = httpx.get(
        _templates_url(sandbox), params={"after": "zz"}, headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert bad_cursor.status_code == 400
    with graph_client(sandbox) as client:
        assert httpx.get(f"{sandbox.graph_url}/{sandbox.config.phone_number_id}").status_code == 401
        answer = client.get("", params={"fields": "quality_rating"}).json()
    assert answer["quality_rating"] == "GREEN"
    assert answer["whatsapp_business_manager_messaging_limit"] == "TIER_UNLIMITED"


def test_a_template_status_change_sends_its_webhook_and_sends_fail_as_meta_s(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink, request: pytest.FixtureRequest
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url)
    control = httpx.Client(base_url=sandbox.url)
    request.addfinalizer(control.close)
    paused = control.post(
        "/_sandbox/templates", json={"name": "order_shipped", "language": "en", "status": "PAUSED"}
    )
    assert paused.status_code == 200
    sink.wait_for(lambda s: len(_changes(s, "message_template_status_update")) == 1)
    value = _changes(sink, "message_template_status_update")[0]
    assert (value["event"], value["message_template_name"], value["message_template_language"]) == (
        "PAUSED",
        "order_shipped",
        "en",
    )
    assert value["message_template_category"] == "UTILITY"
    with graph_client(sandbox) as client:
        refused = client.post("/messages", json=template_message())
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == 132015
        control.post(
            "/_sandbox/templates", json={"name": "order_shipped", "language": "en", "status": "REJECTED"}
        )
        missing = client.post("/messages", json=template_message())
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == 132001
        control.post(
            "/_sandbox/templates", json={"name": "order_shipped", "language": "en", "status": "APPROVED"}
        )
        assert client.post("/messages", json=template_message()).status_code == 200
    page = httpx.get(_templates_url(sandbox), headers={"Authorization": f"Bearer {TOKEN}"}).json()
    assert {item["name"]: item["status"] for item in page["data"]}["order_shipped"] == "APPROVED"
    for bad in (
        {},
        {"name": "order_shipped", "language": "en", "status": "GONE"},
        {"name": "x", "language": "en", "status": "PAUSED"},
        [1],
    ):
        answer = control.post("/_sandbox/templates", json=bad)
        assert answer.status_code == 400, bad
        assert answer.json()["error"]["code"] == "invalid_change"


def test_a_quality_change_sends_phone_number_quality_update(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink, request: pytest.FixtureRequest
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url)
    control = httpx.Client(base_url=sandbox.url)
    request.addfinalizer(control.close)
    answer = control.post("/_sandbox/quality", json={"quality_rating": "YELLOW", "tier": "TIER_2K"})
    assert answer.status_code == 200
    assert answer.json()["webhook"]["event"] == "DOWNGRADE"
    control.post("/_sandbox/quality", json={"quality_rating": "RED"})
    control.post("/_sandbox/quality", json={"tier": "TIER_10K"})
    sink.wait_for(lambda s: len(_changes(s, "phone_number_quality_update")) == 3)
    events = [
        (v["event"], v["current_limit"], v["old_limit"])
        for v in _changes(sink, "phone_number_quality_update")
    ]
    assert sorted(events) == sorted(
        [
            ("DOWNGRADE", "TIER_2K", "TIER_UNLIMITED"),
            ("FLAGGED", "TIER_2K", "TIER_2K"),
            ("UPGRADE", "TIER_10K", "TIER_2K"),
        ]
    )
    with graph_client(sandbox) as client:
        number = client.get("").json()
    assert (number["quality_rating"], number["whatsapp_business_manager_messaging_limit"]) == (
        "RED",
        "TIER_10K",
    )
    for bad in ({}, {"quality_rating": "PURPLE"}, {"tier": "TIER_3"}):
        assert control.post("/_sandbox/quality", json=bad).status_code == 400, bad


def test_marketing_to_a_customer_who_sent_stop_fails_with_131050(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink, request: pytest.FixtureRequest
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url)
    control = httpx.Client(base_url=sandbox.url)
    request.addfinalizer(control.close)
    assert control.post("/_sandbox/inbound", json={"from": CUSTOMER, "text": "Stop!"}).status_code == 200
    with graph_client(sandbox) as client:
        marketing = client.post("/messages", json=_marketing())
        assert marketing.status_code == 200
        utility = client.post("/messages", json=template_message())
        assert utility.status_code == 200
    marketing_id = marketing.json()["messages"][0]["id"]
    utility_id = utility.json()["messages"][0]["id"]
    sink.wait_for(lambda s: any(x["id"] == marketing_id and x["status"] == "failed" for x in s.statuses()))
    failed = next(x for x in sink.statuses() if x["id"] == marketing_id)
    assert failed["errors"][0]["code"] == 131050
    sink.wait_for(lambda s: any(x["id"] == utility_id and x["status"] == "delivered" for x in s.statuses()))
    assert [entry["to"] for entry in sandbox.ledger()] == [CUSTOMER]
    # A customer who only talked about stopping still gets marketing.
    other = "+16505550000"
    control.post("/_sandbox/inbound", json={"from": other, "text": "stop sending me the wrong size"})
    with graph_client(sandbox) as client:
        assert client.post("/messages", json=_marketing(other)).status_code == 200
    sink.wait_for(lambda s: len(sandbox.ledger()) == 2)
