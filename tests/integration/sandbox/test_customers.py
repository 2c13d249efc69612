"""Simulated customers write first and answer like people; without --customers nobody does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

import httpx
import pytest

from backend.domain.phone import normalize_number
from backend.sandbox.customers import customer_numbers
from backend.sandbox.server import Sandbox

from .conftest import WebhookSink, graph_client, template_message

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
