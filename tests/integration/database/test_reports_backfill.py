"""Migration 0007 fills, for agents' replies written before it, the customer message each answered first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import MetaData, insert, select

from backend.database import create_database, upgrade_database
from backend.database.models import OutboxMessage
from tests.conftest import DatabaseMaker

AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def test_replies_before_the_migration_learn_what_they_answered(database_maker: DatabaseMaker) -> None:
    url = database_maker.new_empty_url()
    database = create_database(url)
    try:
        upgrade_database(database, "0004")
        tables = MetaData()
        tables.reflect(database.engine)
        minute = timedelta(minutes=1)
        outbox = tables.tables["outbox_messages"]
        with database.engine.begin() as connection:
            connection.execute(
                insert(tables.tables["contacts"]), [{"id": 1, "number": "+16505551234", "created_at": AT}]
            )
            connection.execute(
                insert(tables.tables["conversations"]),
                [{"id": 1, "contact_id": 1, "status": "open", "unread_count": 0, "created_at": AT}],
            )
            inbound = [AT, AT + 2 * minute, AT + 10 * minute]  # two waiting, then one after the 1st reply
            connection.execute(
                insert(tables.tables["inbound_messages"]),
                [
                    {
                        "wamid": f"wamid.{number}",
                        "contact_id": 1,
                        "conversation_id": 1,
                        "type": "text",
                        "placement": "conversation",
                        "raw": "{}",
                        "sent_at": moment.replace(tzinfo=None) if database.is_sqlite else moment,
                        "received_at": moment.replace(tzinfo=None) if database.is_sqlite else moment,
                    }
                    for number, moment in enumerate(inbound)
                ],
            )
            replies = [("r1", "agent", 5), ("r2", "agent", 6), ("r3", "agent", 12), ("b1", "api", 13)]
            for key, origin, minutes in replies:
                moment = AT + minutes * minute
                stored = moment.replace(tzinfo=None) if database.is_sqlite else moment
                connection.execute(
                    insert(outbox).values(
                        dedupe_key=key,
                        to_number="+16505551234",
                        purpose="reply",
                        origin=origin,
                        priority=0,
                        kind="text",
                        payload="{}",
                        state="read",
                        attempts=1,
                        not_before=stored,
                        business_initiated=False,
                        urgent=False,
                        conversation_id=1,
                        created_at=stored,
                        updated_at=stored,
                    )
                )
        upgrade_database(database)
        with database.reader() as session:
            found = dict(session.execute(select(OutboxMessage.dedupe_key, OutboxMessage.waiting_since)).all())
        assert found == {"r1": AT, "r2": None, "r3": AT + 10 * minute, "b1": None}
    finally:
        database.dispose()
        database_maker.drop(url)
