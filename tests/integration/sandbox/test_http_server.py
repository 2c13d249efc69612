"""The sandbox's own HTTP/1.1 server: keep-alive, pipelining in order, chunked bodies, bad input."""

from __future__ import annotations

import argparse
import socket
from collections.abc import Callable
from dataclasses import fields

import pytest

from app.commands.sandbox import RATE_FLAGS, config_from, register
from backend.sandbox.faults import Faults
from backend.sandbox.server import Sandbox, SandboxConfig

from .conftest import TOKEN

pytestmark = pytest.mark.timeout(20)


def exchange(port: int, data: bytes, *, answers: int) -> bytes:
    """Send raw bytes and read until `answers` complete responses (or the connection closes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(data)
        received = b""
        while received.count(b"HTTP/1.1 ") < answers or not _complete(received, answers):
            chunk = connection.recv(65536)
            if not chunk:
                break
            received += chunk
        return received


def _complete(received: bytes, answers: int) -> bool:
    position = 0
    for _ in range(answers):
        end = received.find(b"\r\n\r\n", position)
        if end < 0:
            return False
        head = received[position:end].decode("latin-1").lower()
        length = int(head.split("content-length:")[1].split("\r\n")[0])
        position = end + 4 + length
        if len(received) < position:
            return False
    return True


def test_pipelined_requests_are_answered_in_order_on_one_connection(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    sandbox = start_sandbox()
    requests = b"".join(
        f"GET /_sandbox/{path} HTTP/1.1\r\nHost: x\r\n\r\n".encode() for path in ("stats", "faults", "ledger")
    )
    answer = exchange(sandbox.port, requests, answers=3)
    bodies = [part.split(b"\r\n\r\n", 1)[1] for part in answer.split(b"HTTP/1.1 ")[1:]]
    assert bodies[0].startswith(b'{"accepted"')
    assert bodies[1].startswith(b'{"latency_ms"')
    assert bodies[2] == b'{"messages":[]}'


def test_a_chunked_body_is_read(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox()
    body = b'{"from": "+16505551234", "text": "chunked hello"}'
    request = (
        b"POST /_sandbox/inbound HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        + f"{10:x}\r\n".encode()
        + body[:10]
        + b"\r\n"
        + f"{len(body) - 10:x}\r\n".encode()
        + body[10:]
        + b"\r\n0\r\n\r\n"
    )
    answer = exchange(sandbox.port, request, answers=1)
    assert answer.startswith(b"HTTP/1.1 200 OK")
    assert b'"wamid":"wamid.' in answer


def test_connection_close_is_honoured_and_garbage_is_400(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox()
    closing = exchange(sandbox.port, b"GET /_sandbox/stats HTTP/1.1\r\nConnection: close\r\n\r\n", answers=1)
    assert b"Connection: close" in closing
    garbage = exchange(sandbox.port, b"NONSENSE\r\n\r\n", answers=1)
    assert garbage.startswith(b"HTTP/1.1 400")


def test_a_withheld_answer_does_not_hold_up_other_connections(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox(read_timeout_rate=1.0)
    body = (
        b'{"messaging_product":"whatsapp","to":"+16505551234","type":"template","template":{"name":'
        b'"order_shipped","language":{"code":"en"},"components":[{"type":"body","parameters":'
        b'[{"type":"text","text":"A-1"}]}]}}'
    )
    held = socket.create_connection(("127.0.0.1", sandbox.port), timeout=5)
    try:
        held.sendall(
            f"POST /v23.0/{sandbox.config.phone_number_id}/messages HTTP/1.1\r\nHost: x\r\n"
            f"Authorization: Bearer {TOKEN}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        for _ in range(20):
            answer = exchange(sandbox.port, b"GET /_sandbox/stats HTTP/1.1\r\n\r\n", answers=1)
            assert answer.startswith(b"HTTP/1.1 200")
        assert sandbox.stats()["timeouts_injected"] == 1
    finally:
        held.close()


def test_the_config_contract_keeps_its_names_and_defaults() -> None:
    config = SandboxConfig()
    assert (config.port, config.customers, config.read_rate, config.throughput, config.status_delay) == (
        0,
        0,
        1.0,
        80,
        0.5,
    )
    assert config.templates_file is None and config.webhook_url is None
    names = {field.name for field in fields(SandboxConfig)}
    assert {"app_secret", "token", "phone_number_id"} <= names
    assert {field.name for field in fields(Faults)} <= names
    assert config.faults() == Faults()


def test_every_fault_flag_reaches_the_config() -> None:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    arguments = ["sandbox", "--app-secret", "s", "--token", "t", "--latency-ms", "5", "--webhook-shuffle"]
    arguments += ["--webhooks-paused", "--throughput", "7", "--status-delay", "0.1", "--customers", "2"]
    for flag, _name, _text in RATE_FLAGS:
        arguments += [flag, "0.25"]
    config = config_from(parser.parse_args(arguments))
    faults = config.faults()
    assert faults.latency_ms == 5 and faults.webhook_shuffle and faults.webhooks_paused
    for _flag, name, _text in RATE_FLAGS:
        assert getattr(faults, name) == 0.25
    assert (config.throughput, config.status_delay, config.customers) == (7, 0.1, 2)
