"""A reply whose text holds a NUL character is stored (without it), not set aside by a database error."""

from __future__ import annotations

from flask.testing import FlaskClient
from sqlalchemy import select

from backend.database import Database
from backend.database.models import InboundMessage
from backend.webhooks.processor import WebhookProcessor
from tests.integration.webhooks.support import deliver, text_message


def test_a_reply_with_a_nul_character_is_stored(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    deliver(client, processor, text_message("wamid.NUL", body="before\u0000after", name="Jo\u0000"))
    with database.reader() as session:
        stored = session.scalars(select(InboundMessage)).one()
    assert stored.wamid == "wamid.NUL"
    assert stored.text == "beforeafter"
