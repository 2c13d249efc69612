"""A database made by an earlier release's migrations upgrades in place with its data intact.

The rows below are written as plain table rows (ids follow insertion order, from 1) against the
schema of release 0.1.0 (revision 0001), reflected from the database itself, so they stay what
that release stored even when the models move on. Each later release adds its revision to
RELEASES and keeps this data set.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import MetaData, func, select

from app.composition import build_parts
from backend.database import create_database, upgrade_database
from backend.database.migrate import current_revision
from backend.database.models import Contact, Conversation, InboundMessage, OutboxMessage, WebhookDelivery
from backend.settings import load_settings
from backend.users import hash_token
from backend.web import create_app
from tests.conftest import DatabaseMaker

# Revision each released version of the product shipped with, oldest first.
RELEASES = {"0.1.0": "0001"}

RELEASED_AT = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
TOKEN = "token-of-a-supervisor-from-release-0-1"
BODY = b'{"object":"whatsapp_business_account","entry":[]}'


def _release_rows() -> dict[str, list[dict[str, object]]]:
    at = RELEASED_AT
    return {
        "users": [
            {
                "name": "dana",
                "role": "supervisor",
                "token_hash": hash_token(TOKEN),
                "created_at": at,
                "disabled": False,
            }
        ],
        "contacts": [
            {
                "wa_id": "16505551234",
                "number": "+16505551234",
                "profile_name": "José",
                "last_inbound_at": at + timedelta(minutes=5),
                "window_closes_at": at + timedelta(hours=24, minutes=5),
                "created_at": at,
            }
        ],
        "conversations": [
            {
                "contact_id": 1,
                "assignee_id": 1,
                "state": "open",
                "last_message_at": at + timedelta(minutes=5),
                "unread_count": 1,
                "created_at": at,
            }
        ],
        "outbox_messages": [
            {
                "dedupe_key": "order-44812:shipped:16505551234",
                "to_number": "+16505551234",
                "purpose": "order_shipped",
                "priority": 0,
                "trigger_ref": "orders/44812",
                "kind": "template",
                "payload": {"template": {"name": "order_shipped", "language": "en", "parameters": ["44812"]}},
                "state": "read",
                "attempts": 1,
                "wamid": "wamid.RELEASED.1",
                "not_before": at,
                "business_initiated": True,
                "urgent": False,
                "created_by": 1,
                "conversation_id": 1,
                "created_at": at,
                "updated_at": at + timedelta(minutes=3),
                "accepted_at": at + timedelta(seconds=1),
                "sent_at": at + timedelta(seconds=2),
                "delivered_at": at + timedelta(seconds=3),
                "read_at": at + timedelta(minutes=3),
            },
            {
                "dedupe_key": "reminder-7:16505551234",
                "to_number": "+16505551234",
                "purpose": "appointment_reminder",
                "priority": 0,
                "kind": "text",
                "payload": {"text": "See you at 10:00"},
                "state": "unknown",
                "attempts": 1,
                "not_before": at,
                "business_initiated": False,
                "urgent": False,
                "conversation_id": 1,
                "last_error_title": "ReadTimeout",
                "created_at": at,
                "updated_at": at + timedelta(minutes=1),
                "unknown_since": at + timedelta(minutes=1),
            },
        ],
        "inbound_messages": [
            {
                "wamid": "wamid.REPLY.1",
                "contact_id": 1,
                "conversation_id": 1,
                "type": "text",
                "text": "Thanks! Ol\u00e1",
                "context_id": "wamid.RELEASED.1",
                "attribution": "attributed",
                "reply_to_message_id": 1,
                "raw": {"id": "wamid.REPLY.1", "type": "text", "text": {"body": "Thanks! Ol\u00e1"}},
                "sent_at": at + timedelta(minutes=5),
                "received_at": at + timedelta(minutes=5),
            },
            {
                "wamid": "wamid.LOOSE.1",
                "contact_id": 1,
                "conversation_id": 1,
                "type": "text",
                "text": "Also, do you ship abroad?",
                "attribution": "unattributed",
                "raw": {"id": "wamid.LOOSE.1"},
                "sent_at": at + timedelta(minutes=6),
                "received_at": at + timedelta(minutes=6),
            },
        ],
        "webhook_deliveries": [
            {"body": BODY, "signature": "sha256=00", "received_at": at, "processed_at": at},
        ],
        "processed_events": [{"event_key": "msg:wamid.REPLY.1", "delivery_id": 1, "processed_at": at}],
        "journal": [{"type": "message.queued", "at": at, "data": {"key": "x"}}],
        "counters": [{"name": "dedupe_rejections", "value": 3}],
    }


@pytest.mark.parametrize(("version", "revision"), sorted(RELEASES.items()))
def test_a_released_database_upgrades_with_its_data_intact(
    database_maker: DatabaseMaker, tmp_path: Path, version: str, revision: str
) -> None:
    url = database_maker.new_empty_url()
    database = create_database(url)
    try:
        upgrade_database(database, revision)
        released_schema = MetaData()
        released_schema.reflect(database.engine)
        rows = _release_rows()
        with database.engine.begin() as connection:
            for table_name, table_rows in rows.items():
                for row in table_rows:
                    connection.execute(released_schema.tables[table_name].insert(), row)

        upgrade_database(database)
        assert current_revision(database) != revision or len(RELEASES) == 1

        with database.reader() as session:
            for model, count in (
                (Contact, 1),
                (Conversation, 1),
                (OutboxMessage, 2),
                (InboundMessage, 2),
                (WebhookDelivery, 1),
            ):
                assert session.scalar(select(func.count()).select_from(model)) == count
            read = session.scalars(select(OutboxMessage).where(OutboxMessage.id == 1)).one()
            assert (read.state, read.wamid, read.read_at) == (
                "read",
                "wamid.RELEASED.1",
                RELEASED_AT + timedelta(minutes=3),
            )
            assert read.payload["template"]["parameters"] == ["44812"]
            assert session.scalars(select(WebhookDelivery.body)).one() == BODY
            assert session.scalars(select(Contact.profile_name)).one() == "José"

        # The upgraded data serves the current API: the thread nests the reply, and the
        # released supervisor's token still signs in.
        settings = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)})
        client = create_app(build_parts(settings, database)).test_client()
        headers = {"Authorization": f"Bearer {TOKEN}"}
        thread = client.get("/v1/conversations/1/thread", headers=headers)
        assert thread.status_code == 200, thread.get_json()
        messages = thread.get_json()["messages"]
        outbound = next(m for m in messages if m.get("key") == "order-44812:shipped:16505551234")
        assert [reply["wamid"] for reply in outbound["replies"]] == ["wamid.REPLY.1"]
        assert any(m.get("wamid") == "wamid.LOOSE.1" and not m["attributed"] for m in messages)
        queue = client.get("/v1/supervisor/queue", headers=headers)
        assert queue.status_code == 200
        assert "reminder-7:16505551234" in queue.get_data(as_text=True)
        # New rows go on after the released ones (sequences were not left behind).
        sent = client.post(
            "/v1/messages",
            json={"to": "+16505551234", "purpose": "support", "text": "Still here after the upgrade"},
            headers={**headers, "Idempotency-Key": "after-upgrade-1"},
        )
        assert sent.status_code == 202, sent.get_json()
        # The released journal entry stays in the feed, and the new one is numbered after it.
        feed = client.get("/v1/events?after=0", headers=headers).get_json()["events"]
        assert [(event["type"], event["data"].get("key")) for event in feed] == [
            ("message.queued", "x"),
            ("message.queued", "after-upgrade-1"),
        ]
        assert feed[0]["seq"] < feed[1]["seq"]
    finally:
        database.dispose()
        database_maker.drop(url)
