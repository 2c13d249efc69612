"""Each fault the sandbox injects does what the control API promises, and the control API keeps its shape."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from backend.sandbox.http import Request
from backend.sandbox.server import Sandbox

from .conftest import CUSTOMER, WebhookSink, graph_client, template_message, wait_for_stats

pytestmark = pytest.mark.timeout(30)

FAULT_FIELDS = {
    "latency_ms",
    "read_timeout_rate",
    "retryable_error_rate",
    "accepted_then_502_rate",
    "drop_rate",
    "webhook_duplicate_rate",
    "webhook_shuffle",
    "webhook_failure_rate",
    "webhooks_paused",
    "message_failure_rate",
    "media_download_failure_rate",
    "media_upload_failure_rate",
    "media_corruption_rate",
}


def set_faults(sandbox: Sandbox, **faults: Any) -> dict[str, Any]:
    """POST /_sandbox/faults and return the full fault set it answers."""
    response = httpx.post(f"{sandbox.url}/_sandbox/faults", json=faults)
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_latency_delays_every_answer(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox()
    set_faults(sandbox, latency_ms=300)
    with graph_client(sandbox) as client:
        started = time.monotonic()
        assert client.post("/messages", json=template_message()).status_code == 200
        assert time.monotonic() - started >= 0.23
    set_faults(sandbox, latency_ms=0)
    with graph_client(sandbox) as client:
        started = time.monotonic()
        client.post("/messages", json=template_message("A-2"))
        assert time.monotonic() - started < 0.2


def test_requested_at_is_when_the_call_arrived_before_the_injected_latency(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    sandbox = start_sandbox(latency_ms=300)
    with graph_client(sandbox) as client:
        before = datetime.now(UTC)
        assert client.post("/messages", json=template_message()).status_code == 200
        after = datetime.now(UTC)
    entry = httpx.get(f"{sandbox.url}/_sandbox/ledger").json()["messages"][0]
    requested_at = datetime.fromisoformat(entry["requested_at"])
    received_at = datetime.fromisoformat(entry["received_at"])
    # The latency is 300 ms ± 20 %: acceptance comes at least 240 ms after the request arrived.
    assert before <= requested_at <= received_at - timedelta(milliseconds=235) <= after
    assert received_at <= after


def test_read_timeout_accepts_withholds_the_answer_and_blocks_nobody_else(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url, read_timeout_rate=1.0)
    with graph_client(sandbox, timeout=0.5) as client, pytest.raises(httpx.ReadTimeout):
        client.post("/messages", json=template_message(biz_opaque_callback_data="key-timeout"))
    ledger = sandbox.ledger()
    assert [entry["biz_opaque_callback_data"] for entry in ledger] == ["key-timeout"]
    sink.wait_for(lambda s: [st["status"] for st in s.statuses()] == ["sent", "delivered", "read"])
    assert sink.statuses()[0]["biz_opaque_callback_data"] == "key-timeout"
    set_faults(sandbox, read_timeout_rate=0.0)
    with graph_client(sandbox, timeout=2) as client:
        assert client.post("/messages", json=template_message("B", to="+16505551288")).status_code == 200
    assert sandbox.stats()["timeouts_injected"] == 1


def test_a_withheld_answer_comes_after_the_hold(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox(read_timeout_rate=1.0, read_timeout_hold_seconds=0.4)
    with graph_client(sandbox, timeout=5) as client:
        started = time.monotonic()
        response = client.post("/messages", json=template_message())
        assert time.monotonic() - started >= 0.35
    assert response.status_code == 200
    assert response.json()["messages"][0]["id"] == sandbox.ledger()[0]["wamid"]


def test_retryable_error_is_503_code_131016_and_not_accepted(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox(retryable_error_rate=1.0)
    with graph_client(sandbox) as client:
        response = client.post("/messages", json=template_message())
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == 131016
    assert error["error_data"]["details"]
    assert sandbox.ledger() == []
    assert sandbox.stats()["retryable_errors_injected"] == 1


def test_accepted_then_502_reaches_the_customer_but_answers_like_a_broken_proxy(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url, accepted_then_502_rate=1.0)
    with graph_client(sandbox) as client:
        response = client.post("/messages", json=template_message(biz_opaque_callback_data="key-502"))
    assert response.status_code == 502
    assert response.headers["content-type"].startswith("text/html")
    assert len(sandbox.ledger()) == 1
    sink.wait_for(lambda s: len(s.statuses()) == 3)
    assert {s["biz_opaque_callback_data"] for s in sink.statuses()} == {"key-502"}


def test_drop_closes_the_connection_without_accepting(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox(drop_rate=1.0)
    with graph_client(sandbox) as client, pytest.raises(httpx.RemoteProtocolError):
        client.post("/messages", json=template_message())
    assert sandbox.ledger() == []
    assert sandbox.stats()["drops_injected"] == 1


def test_webhook_duplicates_send_the_same_bytes_again(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url, webhook_duplicate_rate=1.0)
    sandbox.inbound(CUSTOMER, "hi")
    sink.wait_for(lambda s: len(s.deliveries) == 2)
    assert sink.deliveries[0].body == sink.deliveries[1].body
    wait_for_stats(sandbox, lambda stats: stats["webhooks_duplicated"] == 1)


def test_webhook_shuffle_delivers_statuses_out_of_order(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url, webhook_shuffle=True, status_delay=0.02, throughput=1000)
    with graph_client(sandbox) as client:
        for n in range(10):
            client.post("/messages", json=template_message(to=f"+1650555{1400 + n}"))
    sink.wait_for(lambda s: len(s.statuses()) == 30)
    orders: dict[str, list[str]] = {}
    for status in sink.statuses():
        orders.setdefault(status["id"], []).append(status["status"])
    assert any(order != ["sent", "delivered", "read"] for order in orders.values())
    assert all(sorted(order) == ["delivered", "read", "sent"] for order in orders.values())


def test_webhook_failures_are_retried_later(start_sandbox: Callable[..., Sandbox], sink: WebhookSink) -> None:
    sandbox = start_sandbox(webhook_url=sink.url, webhook_failure_rate=1.0)
    sandbox.inbound(CUSTOMER, "hi")
    time.sleep(0.3)
    assert sink.deliveries == []
    assert sandbox.stats()["webhook_failures_injected"] >= 2
    set_faults(sandbox, webhook_failure_rate=0.0)
    sink.wait_for(lambda s: len(s.messages()) == 1)
    assert sandbox.stats()["webhooks_retried"] >= 2


def test_paused_webhooks_are_held_until_released(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url)
    set_faults(sandbox, webhooks_paused=True)
    sandbox.inbound(CUSTOMER, "hi")
    with graph_client(sandbox) as client:
        client.post("/messages", json=template_message())
    time.sleep(0.3)
    assert sink.deliveries == []
    set_faults(sandbox, webhooks_paused=False)
    sink.wait_for(lambda s: len(s.messages()) == 1 and len(s.statuses()) == 3)


def test_message_failure_sends_a_failed_status_and_reaches_nobody(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url, message_failure_rate=1.0)
    with graph_client(sandbox) as client:
        response = client.post("/messages", json=template_message(biz_opaque_callback_data="key-f"))
    assert response.status_code == 200
    sink.wait_for(lambda s: len(s.statuses()) == 1)
    failed = sink.statuses()[0]
    assert failed["status"] == "failed"
    assert failed["errors"][0]["code"] == 131026
    assert failed["biz_opaque_callback_data"] == "key-f"
    assert sandbox.ledger() == []


def test_faults_answer_the_full_set_and_reset_clears_them_and_releases_held_answers(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    sandbox = start_sandbox()
    full = set_faults(sandbox, drop_rate=0.5, webhook_shuffle=True)
    assert set(full) == FAULT_FIELDS
    assert (full["drop_rate"], full["webhook_shuffle"], full["latency_ms"]) == (0.5, True, 0.0)
    set_faults(sandbox, drop_rate=0.0, read_timeout_rate=1.0)
    outcome: list[int] = []

    def send() -> None:
        with graph_client(sandbox, timeout=10) as client:
            outcome.append(client.post("/messages", json=template_message()).status_code)

    sender = threading.Thread(target=send)
    sender.start()
    time.sleep(0.3)
    assert outcome == []
    cleared = set_faults(sandbox, reset=True)
    assert cleared["read_timeout_rate"] == 0.0 and cleared["webhook_shuffle"] is False
    sender.join(timeout=5)
    assert outcome == [200]


@pytest.mark.parametrize(
    "body",
    [
        {"drop_rate": 2},
        {"drop_rate": "half"},
        {"webhook_shuffle": 1},
        {"latency_ms": -1},
        {"nonsense": 1},
        [1],
    ],
)
def test_bad_fault_settings_are_400_with_a_product_error(
    start_sandbox: Callable[..., Sandbox], body: Any
) -> None:
    sandbox = start_sandbox()
    response = httpx.post(f"{sandbox.url}/_sandbox/faults", json=body)
    assert response.status_code == 400
    assert set(response.json()["error"]) == {"code", "message"}


def test_faults_can_be_set_at_start(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox(drop_rate=0.25, webhooks_paused=True)
    faults = httpx.get(f"{sandbox.url}/_sandbox/faults").json()
    assert (faults["drop_rate"], faults["webhooks_paused"]) == (0.25, True)


# ------------------------------------------------------------------------------ control API


def test_ledger_entries_have_the_contract_fields(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox()
    with graph_client(sandbox) as client:
        wamid = client.post(
            "/messages", json=template_message(to="16505551234", biz_opaque_callback_data="k")
        ).json()["messages"][0]["id"]
    entries = httpx.get(f"{sandbox.url}/_sandbox/ledger").json()["messages"]
    assert entries == [
        {
            "wamid": wamid,
            "to": "16505551234",
            "type": "template",
            "body": "Good news! Your order A-1 has shipped and is on its way.",
            "biz_opaque_callback_data": "k",
            "received_at": entries[0]["received_at"],
            "requested_at": entries[0]["requested_at"],
        }
    ]
    assert len(entries[0]["received_at"]) == len("2026-01-01T00:00:00.000000+00:00")
    assert len(entries[0]["requested_at"]) == len("2026-01-01T00:00:00.000000+00:00")
    with graph_client(sandbox) as client:
        client.post("/messages", json=template_message(to="+16505551299", biz_opaque_callback_data="other"))
    ledger = f"{sandbox.url}/_sandbox/ledger"
    assert len(httpx.get(ledger).json()["messages"]) == 2
    by_key = httpx.get(ledger, params={"biz_opaque_callback_data": "other"}).json()["messages"]
    assert [entry["to"] for entry in by_key] == ["+16505551299"]
    by_number = httpx.get(ledger, params={"to": "+16505551299"}).json()["messages"]
    assert [entry["biz_opaque_callback_data"] for entry in by_number] == ["other"]


def test_inbound_variants_make_meta_shaped_messages(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url)
    with graph_client(sandbox) as client:
        sent = client.post("/messages", json=_buttons_body())
    assert sent.status_code == 400  # the window is closed: nobody wrote yet
    control = f"{sandbox.url}/_sandbox/inbound"
    first = httpx.post(control, json={"from": CUSTOMER, "text": "hi"}).json()["wamid"]
    with graph_client(sandbox) as client:
        sent = client.post("/messages", json=_buttons_body())
    context = sent.json()["messages"][0]["id"]
    httpx.post(control, json={"from": CUSTOMER, "interactive_reply_id": "keep", "context_id": context})
    httpx.post(control, json={"from": CUSTOMER, "button_payload": "Track order", "context_id": "wamid.X"})
    sink.wait_for(lambda s: len(s.messages()) == 3)
    text, tap, button = sink.messages()
    assert text["id"] == first and "context" not in text
    assert tap["interactive"] == {"type": "button_reply", "button_reply": {"id": "keep", "title": "Keep it"}}
    assert tap["context"] == {"from": sandbox.config.display_phone_number, "id": context}
    assert button["button"] == {"payload": "Track order", "text": "Track order"}
    assert button["context"]["id"] == "wamid.X"
    assert sandbox.stats()["inbound"] == 3


def _buttons_body() -> dict[str, Any]:
    return {
        "messaging_product": "whatsapp",
        "to": CUSTOMER,
        "type": "interactive",
        "interactive": {
            "type": "button",
            "body": {"text": "Keep the slot?"},
            "action": {"buttons": [{"type": "reply", "reply": {"id": "keep", "title": "Keep it"}}]},
        },
    }


@pytest.mark.parametrize(
    "body",
    [
        {"text": "no sender"},
        {"from": "+97250", "text": "bad number"},
        {"from": CUSTOMER},
        {"from": CUSTOMER, "text": "a", "button_payload": "b"},
        {"from": CUSTOMER, "text": "a", "context_id": 5},
    ],
)
def test_bad_inbound_requests_are_400(start_sandbox: Callable[..., Sandbox], body: dict[str, Any]) -> None:
    sandbox = start_sandbox()
    response = httpx.post(f"{sandbox.url}/_sandbox/inbound", json=body)
    assert response.status_code == 400
    assert set(response.json()["error"]) == {"code", "message"}


def test_the_control_api_refuses_other_machines(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox()
    request = Request("GET", "/_sandbox/ledger", {}, b"", "192.0.2.10")
    answer = sandbox._call(lambda: sandbox._handle(request))
    assert getattr(answer, "status", None) == 403
    local = Request("GET", "/_sandbox/ledger", {}, b"", "127.0.0.1")
    assert getattr(sandbox._call(lambda: sandbox._handle(local)), "status", None) == 200


def test_stats_count_outcomes(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox()
    with graph_client(sandbox) as client:
        client.post("/messages", json=template_message())
        client.post("/messages", json={"messaging_product": "whatsapp", "to": CUSTOMER, "type": "text"})
    stats = httpx.get(f"{sandbox.url}/_sandbox/stats").json()
    assert stats["accepted"] == 1
    assert stats["rejected"] == {"100": 1}
    for key in ("timeouts_injected", "webhooks_sent", "webhooks_retried", "webhooks_duplicated"):
        assert stats[key] == 0
