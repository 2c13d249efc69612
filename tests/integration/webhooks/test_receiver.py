"""The receiver: verify handshake, signature over raw bytes, store before 200, 503 when storing fails."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import event, func, select, text

from app.composition import build_parts
from backend import counters
from backend.database import Database, create_database
from backend.database.models import WebhookDelivery
from backend.domain.webhook_signature import sign
from backend.settings import Settings
from backend.web import create_app
from backend.webhooks.processor import WebhookProcessor
from backend.webhooks.receiver import WebhookReceiver
from backend.webhooks.store import DeliveryStore
from tests.integration.webhooks.support import (
    APP_SECRET,
    VERIFY_TOKEN,
    encode,
    envelope,
    make_app,
    post_signed,
    text_message,
)

BODY = encode(envelope(text_message("wamid.RECEIVER1")))


def _stored(database: Database) -> list[WebhookDelivery]:
    with database.reader() as session:
        return list(session.scalars(select(WebhookDelivery).order_by(WebhookDelivery.id)))


def test_the_handshake_echoes_the_challenge_only_for_the_right_token(client: FlaskClient) -> None:
    good = {"hub.mode": "subscribe", "hub.verify_token": VERIFY_TOKEN, "hub.challenge": "1158201444"}
    response = client.get("/webhooks/whatsapp", query_string=good)
    assert response.status_code == 200
    assert response.get_data() == b"1158201444"
    for wrong in ({"hub.verify_token": "nope"}, {"hub.mode": "unsubscribe"}, {"hub.verify_token": ""}):
        response = client.get("/webhooks/whatsapp", query_string={**good, **wrong})
        assert response.status_code == 403
        assert response.get_json()["error"]["code"] == "forbidden"


def test_a_signed_body_is_stored_byte_for_byte_before_the_200(
    client: FlaskClient, database: Database
) -> None:
    response = post_signed(client, BODY)
    assert response.status_code == 200
    [stored] = _stored(database)
    assert stored.body == BODY
    assert stored.signature == sign(BODY, APP_SECRET)
    assert stored.processed_at is None


def test_missing_signature_is_401_and_wrong_signature_403_and_neither_is_stored(
    client: FlaskClient, database: Database
) -> None:
    response = client.post("/webhooks/whatsapp", data=BODY)
    assert response.status_code == 401
    assert response.get_json()["error"]["code"] == "missing_signature"
    response = client.post(
        "/webhooks/whatsapp", data=BODY, headers={"X-Hub-Signature-256": sign(BODY, "other-secret")}
    )
    assert response.status_code == 403
    assert response.get_json()["error"]["code"] == "bad_signature"
    tampered = BODY.replace(b"hello", b"HELLO")
    response = client.post(
        "/webhooks/whatsapp", data=tampered, headers={"X-Hub-Signature-256": sign(BODY, APP_SECRET)}
    )
    assert response.status_code == 403
    assert _stored(database) == []


def test_a_body_over_3_mb_is_413(client: FlaskClient, database: Database) -> None:
    body = b'{"object":"whatsapp_business_account","entry":[],"pad":"' + b"x" * (3 * 1024 * 1024) + b'"}'
    response = post_signed(client, body)
    assert response.status_code == 413
    assert response.get_json()["error"]["code"] == "payload_too_large"
    assert _stored(database) == []


def test_a_signed_body_we_cannot_read_is_stored_counted_and_answered_200(
    client: FlaskClient, database: Database, processor: WebhookProcessor
) -> None:
    for body in (b"not json at all", b'{"object":"page","entry":[]}', b"[1,2,3]"):
        assert post_signed(client, body).status_code == 200
    result = processor.drain()
    assert result.parse_failures == 3
    stored = _stored(database)
    assert len(stored) == 3
    assert all(row.processed_at is not None and row.parse_error for row in stored)
    # Never retried: a second pass finds nothing to do and counts nothing more.
    assert processor.drain().deliveries == 0
    with database.reader() as session:
        assert counters.read(session, counters.WEBHOOK_PARSE_FAILURES) == 3


def test_without_an_app_secret_nothing_is_accepted(database: Database, settings: Settings) -> None:
    from dataclasses import replace

    client = make_app(database, replace(settings, whatsapp_app_secret=None)).test_client()
    assert post_signed(client, BODY).status_code == 503
    assert _stored(database) == []


def _read_only_on_connect(database: Database) -> None:
    statement = "PRAGMA query_only=ON" if database.is_sqlite else "SET default_transaction_read_only = on"

    @event.listens_for(database.engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(statement)
        cursor.close()
        if not database.is_sqlite:
            dbapi_connection.commit()


def test_a_read_only_database_gets_a_503_and_no_200(database_url: str, settings: Settings) -> None:
    read_only = create_database(database_url)
    _read_only_on_connect(read_only)
    try:
        client = make_app(read_only, settings).test_client()
        response = post_signed(client, BODY)
        assert response.status_code == 503
        assert response.get_json()["error"]["code"] == "storage_unavailable"
    finally:
        read_only.dispose()


@contextmanager
def _write_lock_held(database: Database) -> Iterator[None]:
    """Another connection holds the table's write lock until the block ends."""
    with database.engine.connect() as connection:
        if database.is_sqlite:
            # The engine begins every write transaction with BEGIN IMMEDIATE: the write lock is ours now.
            connection.execute(text("SELECT 1"))
        else:
            connection.execute(text("LOCK TABLE webhook_deliveries IN ACCESS EXCLUSIVE MODE"))
        try:
            yield
        finally:
            connection.rollback()


@pytest.mark.timeout(60)
def test_a_lock_held_past_the_timeout_gets_a_503(database: Database, settings: Settings) -> None:
    parts = build_parts(settings, database)
    store = parts.delivery_store
    assert isinstance(store, DeliveryStore)
    store.timeout_seconds = 0.5
    client = create_app(parts).test_client()
    with _write_lock_held(database):
        response = post_signed(client, BODY)
        assert response.status_code == 503
    # Once the lock is gone the same delivery (Meta's retry) is stored and answered 200.
    assert post_signed(client, BODY).status_code == 200
    with database.reader() as session:
        # The timed-out attempt may have been committed after all; stored >= answered is what matters.
        assert session.scalar(select(func.count()).select_from(WebhookDelivery)) >= 1


@pytest.mark.timeout(60)
def test_concurrent_posts_are_each_stored_once(client: FlaskClient, app: Any, database: Database) -> None:
    bodies = [encode(envelope(text_message(f"wamid.C{index}"))) for index in range(40)]
    codes: list[int] = []

    def post(body: bytes) -> None:
        local = app.test_client()
        codes.append(post_signed(local, body).status_code)

    threads = [threading.Thread(target=post, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert codes == [200] * 40
    assert sorted(row.body for row in _stored(database)) == sorted(bodies)


@pytest.mark.timeout(60)
def test_on_an_event_loop_a_commit_past_the_timeout_is_503_and_the_body_still_lands(
    database: Database, settings: Settings
) -> None:
    parts = build_parts(settings, database)
    store = parts.delivery_store
    assert isinstance(store, DeliveryStore)
    store.timeout_seconds = 0.3
    receiver = WebhookReceiver(store, APP_SECRET)
    with _write_lock_held(database):
        status, answer = asyncio.run(receiver.receive_async(BODY, sign(BODY, APP_SECRET)))
        assert status == 503
        assert json.loads(answer)["error"]["code"] == "storage_unavailable"
    # The abandoned wait leaves the commit alone: the writer finishes it without an error of its own
    # (one would fail this test as an unhandled thread exception), and the body is there.
    deadline = time.monotonic() + 10
    while not _stored(database) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [row.body for row in _stored(database)] == [BODY]
    assert asyncio.run(receiver.receive_async(BODY, sign(BODY, APP_SECRET)))[0] == 200


def test_on_an_event_loop_refusals_are_the_same_and_store_nothing(
    database: Database, settings: Settings
) -> None:
    receiver = WebhookReceiver(build_parts(settings, database).delivery_store, APP_SECRET)
    assert asyncio.run(receiver.receive_async(BODY, None))[0] == 401
    assert asyncio.run(receiver.receive_async(BODY, sign(b"other", APP_SECRET)))[0] == 403
    too_large = b" " * (3 * 1024 * 1024 + 1)
    assert asyncio.run(receiver.receive_async(too_large, sign(too_large, APP_SECRET)))[0] == 413
    assert _stored(database) == []
