"""The log says what happened to each send, webhook refusal and sweep; never a secret or a message's text."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import httpx
import pytest

from .conftest import APP_SECRET, GRAPH_TOKEN, Stack

pytestmark = [pytest.mark.processes, pytest.mark.timeout(60)]

PRIVATE_TEXT = "my card number is 4111 1111 1111 1111"


def test_one_line_per_outcome_refusal_and_decision_without_secrets_or_text(
    start_stack: Callable[..., Stack], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    stack = start_stack(sandbox_read_timeout_rate=1.0, sandbox_webhooks_paused=True)
    stack.send("invoice-9", "+16505551299", purpose="invoice")
    stack.wait_for_state("invoice-9", {"unknown"})
    stack.sandbox.set_faults(reset=True, webhooks_paused=True)
    time.sleep(1.6)  # past the unknown wait: the rule decides (review by default)
    stack.sandbox.set_faults(reset=True)
    customer = stack.sandbox.inbound("+16505551298", PRIVATE_TEXT)
    stack.wait_for_event("inbound.received", lambda data: data["wamid"] == customer)
    stack.send("answer-1", "+16505551298", purpose="support", text=f"We never log this: {PRIVATE_TEXT}")
    stack.wait_for_state("answer-1", {"accepted", "sent", "delivered", "read"})
    url = f"{stack.server.url}/webhooks/whatsapp"
    assert httpx.post(url, content=b"{}", headers={"X-Hub-Signature-256": "sha256=00"}).status_code == 403
    assert httpx.post(url, content=b"{}").status_code == 401

    lines = [record.getMessage() for record in caplog.records]
    assert "send invoice-9: unknown (wamid None, code None)" in lines
    assert any(line.startswith("unknown send invoice-9: review (") for line in lines), lines
    assert any(line.startswith("send answer-1: accepted (wamid wamid.") for line in lines), lines
    assert "webhook refused: 403 bad_signature" in lines
    assert "webhook refused: 401 missing_signature" in lines
    everything = caplog.text + "\n".join(lines)
    for secret in (GRAPH_TOKEN, APP_SECRET, "e2e-verify", PRIVATE_TEXT, "4111"):
        assert secret not in everything
