"""Webhooks leave the sandbox signed over their exact ASCII-escaped bytes, in Meta's shapes, retried."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from backend.sandbox.server import Sandbox
from backend.sandbox.webhooks import serialize, signature

from .conftest import (
    CUSTOMER,
    PHONE_NUMBER_ID,
    WebhookSink,
    graph_client,
    template_message,
    valid_signature,
    wait_for_stats,
)

pytestmark = pytest.mark.timeout(30)

REFERENCE_BODY = (
    b'{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"value":'
    b'{"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":'
    b'"106540352242922"},"contacts":[{"profile":{"name":"Jos\\u00e9"},"wa_id":"16505551234"}],"messages":'
    b'[{"from":"16505551234","id":"wamid.TEST","timestamp":"1749416383","type":"text","text":{"body":'
    b'"Ol\\u00e1 \\/ hi"}}]},"field":"messages"}]}]}'
)


def test_serialisation_and_signature_match_the_reference_vector() -> None:
    body = serialize(json.loads(REFERENCE_BODY))
    assert body == REFERENCE_BODY
    assert signature("test_app_secret", body) == (
        "sha256=fc43996e152c4e5e11e0dc2e6cbe5c302483743b736d2ecbc59659bcf1cd99aa"
    )


def test_statuses_follow_in_order_with_our_key_pricing_and_a_valid_signature(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url, status_delay=0.05)
    with graph_client(sandbox) as client:
        wamid = client.post("/messages", json=template_message(biz_opaque_callback_data="key-1")).json()[
            "messages"
        ][0]["id"]
    sink.wait_for(lambda s: len(s.statuses()) == 3)
    statuses = sink.statuses()
    assert [s["status"] for s in statuses] == ["sent", "delivered", "read"]
    for status in statuses:
        assert status["id"] == wamid
        assert status["recipient_id"] == CUSTOMER[1:]
        assert status["biz_opaque_callback_data"] == "key-1"
        assert status["timestamp"].isdigit()
    assert "pricing" in statuses[0] and "pricing" in statuses[1] and "pricing" not in statuses[2]
    assert statuses[0]["pricing"] == {
        "billable": True,
        "pricing_model": "PMP",
        "type": "regular",
        "category": "utility",
    }
    assert "expiration_timestamp" in statuses[0]["conversation"]
    for delivery in sink.deliveries:
        assert valid_signature(delivery.headers, delivery.body)
        assert delivery.headers["content-type"] == "application/json"
        value = delivery.payload["entry"][0]["changes"][0]["value"]
        assert value["metadata"]["phone_number_id"] == PHONE_NUMBER_ID
        assert delivery.payload["entry"][0]["changes"][0]["field"] == "messages"


def test_inbound_bodies_are_ascii_escaped_and_signed_over_those_bytes(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url)
    wamid = sandbox.inbound(CUSTOMER, "Olá / hi 👋")
    sink.wait_for(lambda s: len(s.messages()) == 1)
    delivery = sink.deliveries[0]
    assert delivery.body.isascii()
    assert b"Ol\\u00e1 \\/ hi \\ud83d\\udc4b" in delivery.body
    assert valid_signature(delivery.headers, delivery.body)
    message = delivery.messages[0]
    assert (message["id"], message["from"], message["text"]["body"]) == (wamid, CUSTOMER[1:], "Olá / hi 👋")
    assert delivery.payload["entry"][0]["changes"][0]["value"]["contacts"][0]["wa_id"] == CUSTOMER[1:]


def test_read_rate_zero_sends_no_read_and_skipping_delivered_happens(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    unread = start_sandbox(webhook_url=sink.url, read_rate=0.0)
    with graph_client(unread) as client:
        client.post("/messages", json=template_message())
    sink.wait_for(lambda s: len(s.statuses()) == 2)
    assert [s["status"] for s in sink.statuses()] == ["sent", "delivered"]
    skipping = start_sandbox(webhook_url=sink.url, skip_delivered_rate=1.0)
    with graph_client(skipping) as client:
        client.post("/messages", json=template_message(to="+16505551299"))
    sink.wait_for(lambda s: len(s.statuses()) == 4)
    later = sink.statuses()[2:]
    assert [s["status"] for s in later] == ["sent", "read"]
    assert "pricing" in later[1]


def test_a_non_200_answer_is_retried_until_it_gets_a_200(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sink.answers.extend([500, 503, 404])
    sandbox = start_sandbox(webhook_url=sink.url)
    sandbox.inbound(CUSTOMER, "hi")
    sink.wait_for(lambda s: len(s.messages()) == 1)
    wait_for_stats(sandbox, lambda stats: stats["webhooks_sent"] == 1)
    stats = sandbox.stats()
    assert stats["webhooks_retried"] == 3
    assert stats["webhooks_non_200"] == 3
    assert stats["webhooks_sent"] == 1


def test_webhooks_wait_for_a_url_and_for_a_backend_that_is_not_up_yet(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox()
    sandbox.inbound(CUSTOMER, "first")
    with graph_client(sandbox) as client:
        client.post("/messages", json=template_message())
    assert sandbox.stats()["webhooks_pending"] > 0
    sandbox.set_webhook_url("http://127.0.0.1:9/webhooks/whatsapp")
    sandbox.inbound(CUSTOMER, "second")
    sandbox.set_webhook_url(sink.url)
    sink.wait_for(lambda s: len(s.messages()) == 2 and len(s.statuses()) == 3)
    assert sorted(m["text"]["body"] for m in sink.messages()) == ["first", "second"]
    wait_for_stats(sandbox, lambda stats: stats["webhooks_pending"] == 0)


def test_statuses_are_batched_under_load(start_sandbox: Callable[..., Sandbox], sink: WebhookSink) -> None:
    sandbox = start_sandbox(
        webhooks_paused=True, webhook_url=sink.url, webhook_batch_size=10, throughput=1000
    )
    with graph_client(sandbox) as client:
        for n in range(12):
            client.post("/messages", json=template_message(to=f"+1650555{1300 + n}"))
    httpx.post(f"{sandbox.url}/_sandbox/faults", json={"webhooks_paused": False})
    sink.wait_for(lambda s: len(s.statuses()) == 36)
    assert max(len(d.statuses) for d in sink.deliveries) == 10
    assert len({s["id"] for s in sink.statuses()}) == 12
