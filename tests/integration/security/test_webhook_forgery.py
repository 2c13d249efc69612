"""Forged webhooks are never processed; a replayed genuine body changes nothing a second time.

Missing (401) and wrong (403) signatures not being stored are in tests/integration/webhooks/test_receiver.py;
here a forged body that *would* create a message is run through the processor to show it never does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.composition import build_parts
from app.http_server import is_loopback
from backend.database import Database
from backend.database.models import InboundMessage, ProcessedEvent, WebhookDelivery
from backend.domain.webhook_signature import sign
from backend.web import create_app
from backend.webhooks.processor import WebhookProcessor
from tests.conftest import journal_entries
from tests.integration.webhooks.support import APP_SECRET, encode, envelope, make_settings, text_message


def _count(database: Database, model: type) -> int:
    with database.reader() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def test_forged_bodies_are_refused_and_never_become_messages(
    database: Database, database_url: str, tmp_path: Path
) -> None:
    settings = make_settings(tmp_path, database_url)
    client = create_app(build_parts(settings, database)).test_client()
    genuine = encode(envelope(text_message("wamid.GENUINE", body="pay to account 1")))
    forged_body = encode(envelope(text_message("wamid.FORGED", body="pay to account 2")))
    # The same JSON re-serialised (spaces added) no longer matches a signature made over the raw bytes.
    reformatted = json.dumps(json.loads(genuine)).encode()
    attempts = [
        (forged_body, sign(forged_body, "not-the-app-secret")),
        (forged_body, sign(genuine, APP_SECRET)),
        (reformatted, sign(genuine, APP_SECRET)),
        (forged_body, "sha256=" + "0" * 64),
        (forged_body, "sha1=" + "0" * 40),
        (forged_body, ""),
        (forged_body, None),
    ]
    for body, signature in attempts:
        headers = {} if signature is None else {"X-Hub-Signature-256": signature}
        response = client.post("/webhooks/whatsapp", data=body, headers=headers)
        assert response.status_code in {401, 403}, (signature, response.status_code)
    WebhookProcessor(build_parts(settings, database)).drain()
    assert _count(database, WebhookDelivery) == 0
    assert _count(database, InboundMessage) == 0


def test_a_replayed_genuine_body_is_stored_but_applied_once(
    database: Database, database_url: str, tmp_path: Path
) -> None:
    settings = make_settings(tmp_path, database_url)
    parts = build_parts(settings, database)
    client = create_app(parts).test_client()
    processor = WebhookProcessor(parts)
    body = encode(envelope(text_message("wamid.REPLAYED", body="hello once")))
    headers = {"X-Hub-Signature-256": sign(body, APP_SECRET)}
    for _ in range(3):
        # Meta itself retries, so a replay gets a 200 (or Meta would keep retrying), never a second effect.
        assert client.post("/webhooks/whatsapp", data=body, headers=headers).status_code == 200
        processor.drain()
    assert _count(database, WebhookDelivery) == 3
    assert _count(database, InboundMessage) == 1
    assert _count(database, ProcessedEvent) == 1
    assert len(journal_entries(database, "inbound.received")) == 1


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("", False),
        ("192.168.1.20", False),
        ("localhost.example.com", False),
        ("::ffff:10.0.0.1", False),
    ],
)
def test_only_loopback_addresses_count_as_local(host: str, loopback: bool) -> None:
    # `inbox serve` refuses anything else without INBOX_ALLOW_REMOTE_BIND (tests/integration/test_cli.py).
    assert is_loopback(host) is loopback
