"""A shuffled stream of 2,000 webhooks with 30 % duplicates converges to the ground truth, once each."""

from __future__ import annotations

import random
import threading
from datetime import timedelta

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select

from app.composition import build_parts
from backend import counters
from backend.database import Database
from backend.database.models import InboundMessage, OutboxMessage, WebhookDelivery
from backend.settings import Settings
from backend.webhooks.processor import WebhookProcessor
from tests.conftest import journal_entries
from tests.integration.webhooks.support import (
    NOW,
    add_outbox_row,
    encode,
    envelope,
    post_signed,
    status,
    statuses,
    text_message,
)

TOTAL = 2000
DUPLICATE_SHARE = 0.3
OUTBOUND = 200
FINAL_STATES = ("sent", "delivered", "read", "failed")
PATHS = {
    "sent": ("sent",),
    "delivered": ("sent", "delivered"),
    "read": ("sent", "delivered", "read"),
    "failed": ("sent", "failed"),
}
TIME_FIELDS = {"sent": "sent_at", "delivered": "delivered_at", "read": "read_at", "failed": "failed_at"}


@pytest.mark.timeout(120)
def test_a_shuffled_stream_with_duplicates_ends_in_the_ground_truth(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    chooser = random.Random(20261129)
    truth: dict[str, str] = {}
    times: dict[tuple[str, str], int] = {}
    unique_bodies: list[bytes] = []
    for index in range(OUTBOUND):
        wamid = f"wamid.OUT{index}"
        add_outbox_row(database, key=f"order-{index}", wamid=wamid)
        truth[wamid] = chooser.choice(FINAL_STATES)
        for step, name in enumerate(PATHS[truth[wamid]]):
            at = NOW + timedelta(minutes=index, seconds=step)
            times[(wamid, name)] = int(at.timestamp())
            unique_bodies.append(encode(envelope(statuses(status(wamid, name, at=at)))))
    duplicates = int(TOTAL * DUPLICATE_SHARE)
    inbound_count = TOTAL - duplicates - len(unique_bodies)
    assert inbound_count > 0
    for index in range(inbound_count):
        sender = f"1650555{index % 50:04d}"
        context = f"wamid.OUT{index % OUTBOUND}" if index % 3 == 0 else None
        message = text_message(f"wamid.IN{index}", sender=sender, context_id=context, body=f"reply {index}")
        unique_bodies.append(encode(envelope(message)))
    stream = unique_bodies + [chooser.choice(unique_bodies) for _ in range(duplicates)]
    chooser.shuffle(stream)
    assert len(stream) == TOTAL

    for offset, body in enumerate(stream):
        assert post_signed(client, body).status_code == 200
        # Process now and then, so some copies arrive after their original was applied.
        if offset % 700 == 699:
            processor.drain()
    result = processor.drain()
    assert result.failed_deliveries == 0

    assert len(journal_entries(database, "inbound.received")) == inbound_count
    with database.reader() as session:
        for row in session.scalars(select(OutboxMessage)):
            assert row.state == truth[row.wamid], row.wamid
            for name in PATHS[truth[row.wamid]]:
                assert int(getattr(row, TIME_FIELDS[name]).timestamp()) == times[(row.wamid, name)]
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == inbound_count
        assert counters.read(session, counters.DUPLICATE_WEBHOOKS) == duplicates
        assert counters.read(session, counters.UNMATCHED_STATUSES) == 0


@pytest.mark.timeout(120)
def test_two_processors_at_once_apply_each_event_once(
    database: Database, client: FlaskClient, settings: Settings
) -> None:
    chooser = random.Random(7)
    for index in range(60):
        add_outbox_row(database, key=f"order-{index}", wamid=f"wamid.OUT{index}")
    unique = [
        encode(envelope(statuses(status(f"wamid.OUT{index}", name, at=NOW + timedelta(seconds=step)))))
        for index in range(60)
        for step, name in enumerate(("sent", "delivered", "read"))
    ] + [
        encode(envelope(text_message(f"wamid.IN{index}", context_id=f"wamid.OUT{index}")))
        for index in range(60)
    ]
    copies = [chooser.choice(unique) for _ in range(120)]
    stream = unique + copies
    chooser.shuffle(stream)
    for body in stream:
        assert post_signed(client, body).status_code == 200

    def work() -> None:
        WebhookProcessor(build_parts(settings, database), batch_size=7).drain()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    WebhookProcessor(build_parts(settings, database)).drain()

    with database.reader() as session:
        assert {row.state for row in session.scalars(select(OutboxMessage))} == {"read"}
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 60
        assert counters.read(session, counters.DUPLICATE_WEBHOOKS) == len(copies)
        pending = (
            select(func.count()).select_from(WebhookDelivery).where(WebhookDelivery.processed_at.is_(None))
        )
        assert session.scalar(pending) == 0
