"""A backup taken under sends and webhooks restores into an empty data folder without a single second send."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from app.composition import build_parts
from app.http_server import HttpServer
from app.service import build_service
from backend.clock import utc_now
from backend.database import create_database
from backend.database.models import Conversation, InboundMessage, OutboxMessage
from backend.operations.archive import read_manifest, take_backup
from backend.operations.restore import restore_archive
from backend.users import create_user
from tests.conftest import DatabaseMaker

from .conftest import Stack

pytestmark = [pytest.mark.processes, pytest.mark.timeout(90)]

MESSAGES = 24


def _customer(number: int) -> str:
    return f"+1650555{number:04d}"


def test_a_backup_under_load_restores_everything_and_nothing_goes_out_twice(
    start_stack: Callable[..., Stack], database_maker: DatabaseMaker, tmp_path: Path
) -> None:
    # Slow enough that the backup finds sends queued, reserved and in flight.
    stack = start_stack(send_rate=6.0, sandbox_latency_ms=120.0)
    settings = stack.service.parts.settings
    (settings.data_dir / "media" / "ab").mkdir(parents=True)
    (settings.data_dir / "media" / "ab" / "photo.jpg").write_bytes(b"\xff\xd8 a customer's photo")
    (settings.data_dir / "inbox.toml").write_text('[purposes.order_update]\nunknown_rule = "review"\n')
    keys = [f"order-{n}-shipped" for n in range(MESSAGES)]
    batch = stack.api.post(
        "/v1/messages/batch",
        json={
            "client_ref": "backup-under-load",
            "messages": [
                {
                    "key": key,
                    "to": _customer(number),
                    "purpose": "order_update",
                    "template": {"name": "order_shipped", "language": "en", "parameters": [key]},
                }
                for number, key in enumerate(keys)
            ],
        },
    )
    assert batch.status_code in (200, 201, 202), batch.text

    # Customers keep writing while the backup runs: webhooks arrive throughout.
    writing = threading.Event()
    inbound: list[str] = []

    def customers_write() -> None:
        number = 0
        while not writing.is_set():
            inbound.append(stack.sandbox.inbound(_customer(number % MESSAGES), f"question {number}"))
            number += 1
            time.sleep(0.02)

    writer = threading.Thread(target=customers_write)
    writer.start()
    try:
        time.sleep(0.5)
        archive = take_backup(
            settings, stack.service.parts.database, tmp_path / "archives", reason="manual", now=utc_now()
        ).path
        time.sleep(0.3)
    finally:
        writing.set()
        writer.join()
    manifest = read_manifest(archive)
    assert manifest["counts"]["outbox_messages"] == MESSAGES
    # The original installation sends everything once and is then left idle (as if stopped).
    for key in keys:
        stack.wait_for_state(key, {"read"}, timeout=30)
    assert Counter(entry["biz_opaque_callback_data"] for entry in stack.sandbox.ledger()) == Counter(keys)

    restored_dir = tmp_path / "restored"
    if database_maker.postgres_url:
        restored_url = database_maker.new_empty_url()
    else:
        restored_url = f"sqlite:///{restored_dir / 'inbox.db'}"
    restored_settings = replace(settings, data_dir=restored_dir, database_url=restored_url)
    report = restore_archive(restored_settings, archive, now=utc_now)
    database = create_database(restored_url)
    server: HttpServer | None = None
    service = None
    try:
        assert (restored_dir / "media" / "ab" / "photo.jpg").read_bytes() == b"\xff\xd8 a customer's photo"
        assert "unknown_rule" in (restored_dir / "inbox.toml").read_text()
        assert list(restored_dir.glob("pre-restore-*"))
        with database.reader() as session:
            assert session.scalar(select(func.count()).select_from(OutboxMessage)) == MESSAGES
            assert (
                session.scalar(select(func.count()).select_from(Conversation))
                == manifest["counts"]["conversations"]
            )
            assert (
                session.scalar(select(func.count()).select_from(InboundMessage))
                == manifest["counts"]["inbound_messages"]
            )
            states = {
                row.dedupe_key: row.state
                for row in session.execute(select(OutboxMessage.dedupe_key, OutboxMessage.state))
            }
        in_flight = set(report.made_unknown)
        assert in_flight, f"the backup should have found sends still on their way: {Counter(states.values())}"
        assert in_flight <= set(keys)
        assert {states[key] for key in in_flight} == {"unknown"}
        assert all(states[key] not in {"queued", "sending"} for key in keys)

        # The restored installation runs against the same Meta stand-in.
        service = build_service(build_parts(restored_settings, database))
        server = HttpServer(service.web_app, "127.0.0.1", 0).start()
        stack.sandbox.set_webhook_url(f"{server.url}/webhooks/whatsapp")
        with database.transaction() as session:
            token = create_user(session, "after-restore", "supervisor", utc_now())
        service.start_workers()
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as api:
            for key in sorted(in_flight):
                message = api.get(f"/v1/messages/{key}").json()
                if message["state"] == "unknown":
                    assert message["error"]["reason"] == "restored_from_backup"
            queued = api.post(
                "/v1/messages",
                json={
                    "to": _customer(MESSAGES + 1),
                    "purpose": "order_update",
                    "template": {"name": "order_shipped", "language": "en", "parameters": ["after"]},
                },
                headers={"Idempotency-Key": "after-restore-1"},
            )
            assert queued.status_code == 202, queued.text
            deadline = time.monotonic() + 20
            while api.get("/v1/messages/after-restore-1").json()["state"] != "read":
                assert time.monotonic() < deadline, "a message enqueued after the restore was not sent"
                time.sleep(0.05)
            # Past the unknown wait (1 s) and the sweeper's pass: the rule decided, nothing was resent.
            time.sleep(2.0)
            queue = api.get("/v1/supervisor/queue").json()["items"]
        reviewed = {item["key"] for item in queue}
        assert reviewed <= in_flight
        received = Counter(entry["biz_opaque_callback_data"] for entry in stack.sandbox.ledger())
        assert received == Counter([*keys, "after-restore-1"])
    finally:
        if server is not None:
            server.stop()
        if service is not None:
            service.stop()
        database.dispose()
        if database_maker.postgres_url:
            database_maker.drop(restored_url)
