"""The search index follows every insert, update and delete, and the migration indexes what was there."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, MetaData, Table, delete, insert, select, update

from app.composition import build_parts
from backend.database import create_database, upgrade_database
from backend.database.models import Base, Contact, Conversation, InboundMessage, OutboxMessage
from backend.inbox.retention import RetentionSweeper
from backend.inbox.search import conversation_ids_matching, search_messages
from backend.settings import PurposeRule
from tests.conftest import DatabaseMaker
from tests.integration.web.conftest import Api, add_inbound, add_outbox_row

AT = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def _found(api: Api, query: str) -> list[str]:
    with api.database.reader() as session:
        page = search_messages(session, query, limit=100, catalog=api.parts.templates)
    return [result.get("wamid") or result["key"] for result in page.results]


def test_new_and_changed_inbound_text_is_found_and_deleted_text_is_not(api: Api) -> None:
    add_inbound(api.database, "+16505551234", "wamid.A", at=AT, text="The blender arrived broken")
    assert _found(api, "blender") == ["wamid.A"]
    with api.database.transaction() as session:
        session.execute(
            update(InboundMessage).where(InboundMessage.wamid == "wamid.A").values(text="The toaster is fine")
        )
    assert _found(api, "blender") == []
    assert _found(api, "toaster") == ["wamid.A"]
    with api.database.transaction() as session:
        session.execute(delete(InboundMessage).where(InboundMessage.wamid == "wamid.A"))
    assert _found(api, "toaster") == []


def test_state_changes_keep_an_outbound_message_found_and_a_new_payload_replaces_it(api: Api) -> None:
    conversation_id, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=AT, text="hi")
    add_outbox_row(
        api, "msg-1", "queued", conversation_id=conversation_id, payload={"text": "Kettle on its way"}
    )
    with api.database.transaction() as session:
        session.execute(update(OutboxMessage).values(state="delivered", wamid="wamid.OUT"))
    assert _found(api, "kettle") == ["msg-1"]
    with api.database.transaction() as session:
        session.execute(update(OutboxMessage).values(payload={"text": "Teapot on its way"}))
    assert (_found(api, "kettle"), _found(api, "teapot")) == ([], ["msg-1"])


def test_rows_removed_by_retention_leave_the_index(api: Api) -> None:
    conversation_id, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=AT, text="about my parcel")
    for key, state in (("old-read", "read"), ("old-queued", "queued")):
        add_outbox_row(
            api,
            key,
            state,
            conversation_id=conversation_id,
            purpose="otp",
            payload={"text": f"parcel code {key}"},
            updated_at=AT - timedelta(days=30),
        )
    assert sorted(_found(api, "parcel")) == ["old-queued", "old-read", "wamid.A"]
    settings = replace(api.settings, purposes={"otp": PurposeRule(retention_days=7)})
    result = RetentionSweeper(build_parts(settings, api.database, clock=lambda: AT)).run_once()
    assert result.outbox_rows == 1
    # Only the finished row went; the index lost it and nothing else.
    assert sorted(_found(api, "parcel")) == ["old-queued", "wamid.A"]


def test_conversation_ids_matching_finds_conversations_by_either_direction(api: Api) -> None:
    first, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=AT, text="Olá, preciso de ajuda")
    second, _ = add_inbound(api.database, "+447911123456", "wamid.B", at=AT, text="hello")
    add_outbox_row(api, "msg-1", "sent", conversation_id=second, payload={"text": "Ajuda is on the way"})
    with api.database.reader() as session:
        assert sorted(session.scalars(conversation_ids_matching("AJUDA"))) == [first, second]
        assert list(session.scalars(conversation_ids_matching("ola"))) == [first]
        assert list(session.scalars(conversation_ids_matching("%"))) == []
        found = session.scalars(
            select(Conversation.id).where(Conversation.id.in_(conversation_ids_matching("preci")))
        )
        assert sorted(found) == [first]


def _insert_as_of_then(connection: Connection, model: type[Base], **values: Any) -> int:
    """Insert into the table as it is at an older revision, with the model's defaults filled in.

    Columns that later migrations add are left out, so the test keeps working as the schema grows.
    """
    table = Table(model.__tablename__, MetaData(), autoload_with=connection)
    for column in model.__table__.columns:
        default = column.default
        if column.name in table.c and column.name not in values and default is not None and default.is_scalar:
            values[column.name] = default.arg
    row_id: int = connection.execute(insert(table).values(**values).returning(table.c.id)).scalar_one()
    return row_id


def test_the_migration_indexes_messages_stored_before_it(database_maker: DatabaseMaker) -> None:
    url = database_maker.new_empty_url()
    database = create_database(url)
    try:
        upgrade_database(database, "0003")
        with database.engine.begin() as connection:
            contact_id = _insert_as_of_then(
                connection, Contact, wa_id="16505551234", number="+16505551234", created_at=AT
            )
            conversation_id = _insert_as_of_then(
                connection, Conversation, contact_id=contact_id, unread_count=0, created_at=AT
            )
            _insert_as_of_then(
                connection,
                InboundMessage,
                wamid="wamid.OLD",
                contact_id=contact_id,
                conversation_id=conversation_id,
                type="text",
                text="Müller here, about the invoice",
                placement="conversation",
                raw={},
                sent_at=AT,
                received_at=AT,
            )
            _insert_as_of_then(
                connection,
                OutboxMessage,
                dedupe_key="invoice-1",
                to_number="+16505551234",
                purpose="invoice",
                kind="buttons",
                payload={"buttons": {"body": "Pay the invoice?", "buttons": [{"id": "y", "title": "Pay"}]}},
                state="sent",
                not_before=AT,
                conversation_id=conversation_id,
                created_at=AT + timedelta(minutes=1),
                updated_at=AT,
            )
        upgrade_database(database)
        with database.reader() as session:
            page = search_messages(session, "invoice", limit=10)
            assert [result["direction"] for result in page.results] == ["outbound", "inbound"]
            assert [
                result["direction"] for result in search_messages(session, "muller", limit=10).results
            ] == ["inbound"]
    finally:
        database.dispose()
        database_maker.drop(url)
