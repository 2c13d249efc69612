"""An agent files a work-queue reply under one of our messages, or as a new topic."""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select

from backend.database import Database
from backend.database.models import InboundMessage
from backend.inbox.attribution import AttributionError, attribute_inbound
from backend.webhooks.processor import WebhookProcessor
from tests.conftest import journal_entries
from tests.integration.webhooks.support import NOW, add_outbox_row, deliver, text_message


def test_linking_and_new_topic_take_a_reply_out_of_the_work_queue(
    database: Database, client: FlaskClient, processor: WebhookProcessor, agent: int
) -> None:
    row_id = add_outbox_row(database, key="order-9:shipped", wamid="wamid.OUT9")
    deliver(client, processor, text_message("wamid.Q1"))
    deliver(client, processor, text_message("wamid.Q2", sent_at=NOW + timedelta(minutes=5)))
    with database.reader() as session:
        placements = session.execute(select(InboundMessage.wamid, InboundMessage.placement)).all()
    # The answer to our message is a work item; what the customer adds after it is chat.
    assert sorted(placements) == [("wamid.Q1", "work_queue"), ("wamid.Q2", "conversation")]
    with database.transaction() as session:
        linked = attribute_inbound(
            session, "wamid.Q1", message_key="order-9:shipped", new_topic=False, user_id=agent, now=NOW
        )
        assert (linked.placement, linked.reply_to_message_id, linked.attributed_by) == (
            "linked",
            row_id,
            agent,
        )
        topic = attribute_inbound(
            session, "wamid.Q2", message_key=None, new_topic=True, user_id=agent, now=NOW
        )
        assert (topic.placement, topic.reply_to_message_id) == ("new_topic", None)
    with database.reader() as session:
        queue = session.scalars(select(InboundMessage).where(InboundMessage.placement == "work_queue")).all()
        assert queue == []
    entries = journal_entries(database, "inbound.attributed")
    assert [(e.data["wamid"], e.data["message_key"], e.data["new_topic"]) for e in entries] == [
        ("wamid.Q1", "order-9:shipped", False),
        ("wamid.Q2", None, True),
    ]


@pytest.mark.parametrize(
    "case",
    [
        ("wamid.NONE", None, True, "not_found"),
        ("wamid.Q1", "no-such-key", False, "not_found"),
        ("wamid.Q1", None, False, "invalid_attribution"),
        ("wamid.Q1", "order-9:shipped", True, "invalid_attribution"),
        ("wamid.Q1", "other-contact", False, "invalid_attribution"),
    ],
)
def test_attributions_we_refuse(
    database: Database,
    client: FlaskClient,
    processor: WebhookProcessor,
    agent: int,
    case: tuple[str, str | None, bool, str],
) -> None:
    wamid, message_key, new_topic, code = case
    add_outbox_row(database, key="order-9:shipped", wamid="wamid.OUT9")
    add_outbox_row(database, key="other-contact", wamid="wamid.OUT10", to="+447911123456")
    deliver(client, processor, text_message("wamid.Q1"))
    with pytest.raises(AttributionError) as raised, database.transaction() as session:
        attribute_inbound(
            session, wamid, message_key=message_key, new_topic=new_topic, user_id=agent, now=NOW
        )
    assert raised.value.code == code
