"""Simulated customers write first and answer like people; without --customers nobody does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from backend.domain.phone import normalize_number
from backend.sandbox.customers import customer_numbers
from backend.sandbox.server import Sandbox

from .conftest import CUSTOMER, WebhookSink, graph_client, template_message

pytestmark = pytest.mark.timeout(30)


def test_customer_numbers_are_valid_and_distinct() -> None:
    numbers = customer_numbers(50)
    assert len(set(numbers)) == 50
    assert all(normalize_number(number) == number for number in numbers)


def test_customers_write_first_and_tap_template_buttons_quoting_the_message(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(
        webhook_url=sink.url,
        customers=3,
        customer_interval_seconds=0.3,
        customer_reply_rate=1.0,
        customer_think_seconds=0.01,
        seed=3,
    )
    sink.wait_for(lambda s: len(s.messages()) >= 2)
    first = sink.messages()[0]
    assert first["type"] == "text" and "context" not in first
    assert "+" + first["from"] in sandbox.customer_numbers
    customer = sandbox.customer_numbers[0]
    with graph_client(sandbox) as client:
        sent = [
            client.post("/messages", json=template_message(str(n), to=customer)).json()["messages"][0]["id"]
            for n in range(6)
        ]
    sink.wait_for(lambda s: sum(1 for m in s.messages() if m.get("context", {}).get("id") in sent) >= 4)
    answers = [m for m in sink.messages() if m.get("context", {}).get("id") in sent]
    taps = [m for m in answers if m["type"] == "button"]
    assert taps, answers
    assert taps[0]["button"]["text"] in ("Track order", "Talk to us")
    assert taps[0]["context"]["from"] == sandbox.config.display_phone_number


def test_customers_press_reply_buttons(start_sandbox: Callable[..., Sandbox], sink: WebhookSink) -> None:
    sandbox = start_sandbox(
        webhook_url=sink.url,
        customers=1,
        customer_interval_seconds=3600,
        customer_reply_rate=1.0,
        customer_think_seconds=0.01,
    )
    customer = sandbox.customer_numbers[0]
    sandbox.inbound(customer, "hello")
    body = {
        "messaging_product": "whatsapp",
        "to": customer,
        "type": "interactive",
        "interactive": {
            "type": "button",
            "body": {"text": "Keep the slot?"},
            "action": {
                "buttons": [
                    {"type": "reply", "reply": {"id": "keep", "title": "Keep it"}},
                    {"type": "reply", "reply": {"id": "move", "title": "Move it"}},
                ]
            },
        },
    }
    with graph_client(sandbox) as client:
        wamid = client.post("/messages", json=body).json()["messages"][0]["id"]
    sink.wait_for(lambda s: any(m["type"] == "interactive" for m in s.messages()))
    tap = next(m for m in sink.messages() if m["type"] == "interactive")
    assert tap["context"]["id"] == wamid
    assert tap["interactive"]["button_reply"] in (
        {"id": "keep", "title": "Keep it"},
        {"id": "move", "title": "Move it"},
    )


def test_without_customers_nobody_answers(start_sandbox: Callable[..., Sandbox], sink: WebhookSink) -> None:
    sandbox = start_sandbox(webhook_url=sink.url, customer_reply_rate=1.0, customer_think_seconds=0.0)
    with graph_client(sandbox) as client:
        client.post("/messages", json=template_message())
    sink.wait_for(lambda s: len(s.statuses()) == 3)
    time.sleep(0.2)
    assert sink.messages() == []
    assert sandbox.customer_numbers == []


def test_inbox_sandbox_serves_until_sigterm() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "sandbox", "--app-secret", "s", "--token", "t", "--drop-rate", "0.5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("sandbox Graph API: http://127.0.0.1:")
        base = line.split(": ", 1)[1].strip().removesuffix("/v23.0")
        faults = httpx.get(f"{base}/_sandbox/faults", timeout=5).json()
        assert faults["drop_rate"] == 0.5
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=10)


def test_a_named_scripted_customer_writes_under_that_name_and_only_when_told(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(
        webhook_url=sink.url,
        customers=1,
        customer_interval_seconds=3600,
        customer_reply_rate=1.0,
        customer_think_seconds=0.01,
    )
    control = f"{sandbox.url}/_sandbox/customers"
    named = httpx.post(control, json={"number": "+1 650 555 0101", "name": " Grace Whitfield "})
    assert named.json() == {"number": "+16505550101", "name": "Grace Whitfield", "scripted": True}
    listed = httpx.get(control).json()["customers"]
    assert {"number": "+16505550101", "name": "Grace Whitfield", "scripted": True} in listed
    regular = sandbox.customer_numbers[0]
    sandbox.inbound("+16505550101", "hello")
    sandbox.inbound(regular, "hi")
    sink.wait_for(lambda s: len(s.messages()) == 2)
    contacts = [
        contact
        for delivery in sink.deliveries
        for entry in delivery.payload["entry"]
        for change in entry["changes"]
        for contact in change["value"].get("contacts", [])
    ]
    assert {"profile": {"name": "Grace Whitfield"}, "wa_id": "16505550101"} in contacts
    with graph_client(sandbox) as client:
        for number in ("+16505550101", regular):
            assert client.post("/messages", json=template_message(to=number)).status_code == 200
    # The regular customer answers on their own; the scripted one waits for the control API.
    sink.wait_for(lambda s: len(s.messages()) == 3)
    time.sleep(0.3)
    assert [message["from"] for message in sink.messages()[2:]] == [regular.lstrip("+")]


@pytest.mark.parametrize(
    "body",
    [
        {"name": "No number"},
        {"number": "+16505550101"},
        {"number": "+16505550101", "name": "   "},
        {"number": "+16505550101", "name": "x" * 101},
        {"number": "+97250", "name": "Bad number"},
        {"number": "+16505550101", "name": "Grace", "scripted": "yes"},
    ],
)
def test_bad_customer_requests_are_400(start_sandbox: Callable[..., Sandbox], body: dict[str, Any]) -> None:
    sandbox = start_sandbox()
    response = httpx.post(f"{sandbox.url}/_sandbox/customers", json=body)
    assert response.status_code == 400
    assert set(response.json()["error"]) == {"code", "message"}


def test_the_control_api_sends_a_photo_and_a_reaction(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url)
    control = f"{sandbox.url}/_sandbox/inbound"
    photo = httpx.post(control, json={"from": CUSTOMER, "image": "The crack"}).json()["wamid"]
    bare = httpx.post(control, json={"from": CUSTOMER, "image": ""}).json()["wamid"]
    with graph_client(sandbox) as client:
        ours = client.post("/messages", json=template_message()).json()["messages"][0]["id"]
    reaction = httpx.post(control, json={"from": CUSTOMER, "reaction": "❤️", "context_id": ours})
    missing_target = httpx.post(control, json={"from": CUSTOMER, "reaction": "❤️"})
    assert missing_target.status_code == 400
    sink.wait_for(lambda s: len(s.messages()) == 3)
    first, second, third = sink.messages()
    assert first["id"] == photo and first["type"] == "image" and first["image"]["caption"] == "The crack"
    assert first["image"]["mime_type"] == "image/png" and first["image"]["id"]
    assert second["id"] == bare and "caption" not in second["image"]
    assert third["id"] == reaction.json()["wamid"] and "context" not in third
    assert third["reaction"] == {"message_id": ours, "emoji": "❤️"}
    with graph_client(sandbox) as client:
        info = client.get(f"{sandbox.graph_url}/{first['image']['id']}").json()
        media = client.get(info["url"])
    assert media.content.startswith(b"\x89PNG") and len(media.content) == info["file_size"]


def test_simulated_customers_have_names_of_their_own(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox(customers=8, customer_interval_seconds=3600)
    customers = httpx.get(f"{sandbox.url}/_sandbox/customers").json()["customers"]
    assert len({customer["name"] for customer in customers}) == 8
    assert not any(customer["scripted"] for customer in customers)


def test_customers_answer_business_templates_by_their_button_or_by_quoting_them(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(
        webhook_url=sink.url,
        customers=1,
        customer_interval_seconds=3600,
        customer_reply_rate=1.0,
        customer_think_seconds=0.01,
        seed=11,
    )
    customer = sandbox.customer_numbers[0]
    with graph_client(sandbox) as client:
        sent = {
            client.post("/messages", json=template_message(str(n), to=customer)).json()["messages"][0]["id"]
            for n in range(8)
        }
    sink.wait_for(lambda s: len(s.messages()) == 8)
    assert {message["context"]["id"] for message in sink.messages()} == sent


def test_a_customer_starts_no_new_topic_while_in_a_chat(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    # Twenty customers write every 0.15 s on average, but each waits 3 s after their last message.
    start_sandbox(webhook_url=sink.url, customers=20, customer_interval_seconds=3.0, seed=5)
    sink.wait_for(lambda s: len(s.messages()) >= 5)
    time.sleep(0.3)
    senders = [message["from"] for message in sink.messages()]
    assert len(senders) == len(set(senders)), senders


def test_simulated_customers_send_photos_and_voice_notes_sometimes(
    start_sandbox: Callable[..., Sandbox], sink: WebhookSink
) -> None:
    sandbox = start_sandbox(webhook_url=sink.url, customers=40, customer_interval_seconds=2.0, seed=11)
    sink.wait_for(lambda s: {"image", "audio"} <= {m["type"] for m in s.messages()}, timeout=30)
    messages = sink.messages()
    assert sum(1 for m in messages if m["type"] == "text") > sum(1 for m in messages if m["type"] != "text")
    note = next(m for m in messages if m["type"] == "audio")["audio"]
    assert note["mime_type"] == "audio/amr" and note["voice"] is False
    with graph_client(sandbox) as client:
        info = client.get(f"{sandbox.graph_url}/{note['id']}").json()
        content = client.get(info["url"]).content
    assert content.startswith(b"#!AMR\n") and len(content) == info["file_size"]
