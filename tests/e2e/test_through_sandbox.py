"""The backend end to end against the sandbox: enqueue → ledger → statuses → final state, and each fault."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from .conftest import Stack

pytestmark = [pytest.mark.processes, pytest.mark.timeout(60)]

FINAL = {"read"}


def test_a_template_reaches_the_customer_once_and_ends_read(start_stack: Callable[..., Stack]) -> None:
    stack = start_stack()
    queued = stack.send("order-1001-shipped", "+16505551234")
    assert queued["state"] == "queued"
    message = stack.wait_for_state("order-1001-shipped", FINAL)
    ledger = stack.ledger_for("order-1001-shipped")
    assert len(ledger) == 1
    assert ledger[0]["wamid"] == message["wamid"]
    assert ledger[0]["body"] == "Good news! Your order order-1001-shipped has shipped and is on its way."
    assert message["sent_at"] and message["delivered_at"] and message["read_at"]
    assert message["attempts"] == 1


def test_a_reply_quoting_our_message_is_threaded_to_it(start_stack: Callable[..., Stack]) -> None:
    stack = start_stack()
    stack.send("order-1002-shipped", "+16505551235")
    wamid = stack.wait_for_state("order-1002-shipped", FINAL)["wamid"]
    reply = stack.sandbox.inbound("+16505551235", "Thanks! When will it arrive?", context_id=wamid)
    received = stack.wait_for_event("inbound.received", lambda data: data["wamid"] == reply)
    assert received["attributed"] is True
    assert received["reply_to_key"] == "order-1002-shipped"
    # The customer wrote, so free text may follow inside the window.
    stack.send("answer-1002", "+16505551235", purpose="support", text="Tomorrow before noon.")
    assert stack.wait_for_state("answer-1002", FINAL)["attempts"] == 1
    assert [entry["type"] for entry in stack.ledger_for("answer-1002")] == ["text"]


def test_read_timeout_after_acceptance_is_unknown_then_resolved_by_our_key(
    start_stack: Callable[..., Stack],
) -> None:
    stack = start_stack(sandbox_read_timeout_rate=1.0, sandbox_webhooks_paused=True)
    stack.send("invoice-77", "+16505551236", purpose="invoice")
    unknown = stack.wait_for_state("invoice-77", {"unknown"})
    assert unknown["wamid"] is None
    assert len(stack.ledger_for("invoice-77")) == 1  # the customer has it even though we never heard
    stack.sandbox.set_faults(reset=True)
    resolved = stack.wait_for_state("invoice-77", FINAL)
    assert resolved["wamid"] == stack.ledger_for("invoice-77")[0]["wamid"]
    time.sleep(1.5)  # past the unknown wait: nothing may resend it
    assert len(stack.ledger_for("invoice-77")) == 1
    assert stack.message("invoice-77")["attempts"] == 1


def test_502_after_acceptance_is_unknown_then_resolved_without_a_second_send(
    start_stack: Callable[..., Stack],
) -> None:
    stack = start_stack(sandbox_accepted_then_502_rate=1.0, sandbox_webhooks_paused=True)
    stack.send("invoice-78", "+16505551237", purpose="invoice")
    stack.wait_for_state("invoice-78", {"unknown"})
    stack.sandbox.set_faults(reset=True)
    stack.wait_for_state("invoice-78", FINAL)
    assert len(stack.ledger_for("invoice-78")) == 1


def test_a_dropped_connection_is_unknown_and_left_for_review_never_resent(
    start_stack: Callable[..., Stack],
) -> None:
    stack = start_stack(sandbox_drop_rate=1.0)
    stack.send("invoice-79", "+16505551238", purpose="invoice")
    stack.wait_for_state("invoice-79", {"unknown"})
    stack.sandbox.set_faults(reset=True)
    deadline = time.monotonic() + 10
    while stack.message("invoice-79")["hold_reason"] is None and time.monotonic() < deadline:
        time.sleep(0.1)
    message = stack.message("invoice-79")
    assert message["state"] == "unknown" and message["hold_reason"] is not None
    assert stack.ledger_for("invoice-79") == []
    # A supervisor who checked with the customer decides to send it again: it goes exactly once.
    resolved = stack.api.post("/v1/messages/invoice-79/resolve", json={"action": "resend"})
    assert resolved.status_code == 200, resolved.text
    stack.wait_for_state("invoice-79", FINAL)
    assert len(stack.ledger_for("invoice-79")) == 1


def test_a_dropped_connection_for_a_resend_purpose_is_resent_once(start_stack: Callable[..., Stack]) -> None:
    stack = start_stack(sandbox_drop_rate=1.0)
    stack.send("reminder-5", "+16505551239", purpose="reminder")
    stack.wait_for_state("reminder-5", {"unknown"})
    stack.sandbox.set_faults(reset=True)
    message = stack.wait_for_state("reminder-5", FINAL)
    assert message["attempts"] == 2
    assert len(stack.ledger_for("reminder-5")) == 1


def test_a_retryable_error_is_queued_again_and_sent_once_later(start_stack: Callable[..., Stack]) -> None:
    stack = start_stack(sandbox_retryable_error_rate=1.0)
    stack.send("order-1003-shipped", "+16505551240")
    deadline = time.monotonic() + 10
    while stack.message("order-1003-shipped")["error"] is None and time.monotonic() < deadline:
        time.sleep(0.05)
    message = stack.message("order-1003-shipped")
    assert message["state"] in {"queued", "sending"}
    assert message["error"]["code"] == 131016
    stack.sandbox.set_faults(reset=True)
    assert stack.wait_for_state("order-1003-shipped", FINAL)["attempts"] >= 2
    assert len(stack.ledger_for("order-1003-shipped")) == 1


def test_latency_below_the_read_timeout_changes_nothing(start_stack: Callable[..., Stack]) -> None:
    stack = start_stack(sandbox_latency_ms=300)
    stack.send("order-1004-shipped", "+16505551241")
    assert stack.wait_for_state("order-1004-shipped", FINAL)["attempts"] == 1
    assert len(stack.ledger_for("order-1004-shipped")) == 1


def test_duplicate_and_shuffled_webhooks_converge_and_apply_once(start_stack: Callable[..., Stack]) -> None:
    stack = start_stack(sandbox_webhook_duplicate_rate=1.0, sandbox_webhook_shuffle=True)
    keys = [f"order-20{n}-shipped" for n in range(4)]
    for n, key in enumerate(keys):
        stack.send(key, f"+1650555130{n}")
    for key in keys:
        stack.wait_for_state(key, FINAL)
    hello = stack.sandbox.inbound("+16505551300", "hello twice")
    stack.wait_for_event("inbound.received", lambda data: data["wamid"] == hello)
    time.sleep(0.5)  # the duplicate delivery has arrived by now
    assert sum(1 for data in stack.events("inbound.received") if data["wamid"] == hello) == 1
    assert stack.sandbox.stats()["webhooks_duplicated"] > 0
    for key in keys:
        changes = [data for data in stack.events("message.state_changed") if data["key"] == key]
        assert [change["state"] for change in changes][-1] == "read"
        assert len({change["state"] for change in changes}) == len(changes)  # each step once


def test_lost_and_paused_webhooks_arrive_later_and_finish_the_message(
    start_stack: Callable[..., Stack],
) -> None:
    stack = start_stack(sandbox_webhook_failure_rate=1.0)
    stack.send("order-1005-shipped", "+16505551242")
    assert stack.wait_for_state("order-1005-shipped", {"accepted"})["wamid"]
    time.sleep(0.3)
    assert stack.message("order-1005-shipped")["state"] == "accepted"
    stack.sandbox.set_faults(webhook_failure_rate=0.0, webhooks_paused=True)
    time.sleep(0.3)
    assert stack.message("order-1005-shipped")["state"] == "accepted"
    stack.sandbox.set_faults(webhooks_paused=False)
    stack.wait_for_state("order-1005-shipped", FINAL)
    assert stack.sandbox.stats()["webhook_failures_injected"] > 0


def test_an_asynchronous_delivery_failure_ends_failed_with_meta_s_code(
    start_stack: Callable[..., Stack],
) -> None:
    stack = start_stack(sandbox_message_failure_rate=1.0)
    stack.send("order-1006-shipped", "+16505551243")
    message = stack.wait_for_state("order-1006-shipped", {"failed"})
    assert message["error"]["code"] == 131026
    assert stack.ledger_for("order-1006-shipped") == []


def test_throughput_rejections_are_retried_and_every_message_arrives_once(
    start_stack: Callable[..., Stack],
) -> None:
    stack = start_stack(sandbox_throughput=2)
    keys = [f"order-30{n}-shipped" for n in range(4)]
    for n, key in enumerate(keys):
        stack.send(key, f"+1650555140{n}")
    for key in keys:
        stack.wait_for_state(key, FINAL, timeout=30)
    assert [len(stack.ledger_for(key)) for key in keys] == [1] * 4
    stats = stack.sandbox.stats()
    assert stats["accepted"] == 4
    assert stats["rejected"].get("130429", 0) > 0


def test_free_text_outside_the_window_is_held_and_never_reaches_the_customer(
    start_stack: Callable[..., Stack],
) -> None:
    stack = start_stack()
    stack.send("note-1", "+16505551244", purpose="support", text="Are you still interested?")
    message = stack.wait_for_state("note-1", {"held"})
    assert message["hold_reason"]
    assert stack.ledger_for("note-1") == []


def test_the_pair_limit_makes_one_customer_wait_and_each_message_arrives_once(
    start_stack: Callable[..., Stack],
) -> None:
    stack = start_stack(sandbox_pair_burst=1, sandbox_pair_interval_seconds=3.0)
    keys = ["order-401-shipped", "order-402-shipped"]
    for key in keys:
        stack.send(key, "+16505551245")
    for key in keys:
        stack.wait_for_state(key, FINAL)
    assert [len(stack.ledger_for(key)) for key in keys] == [1, 1]
    assert stack.sandbox.stats()["rejected"].get("131056", 0) > 0
