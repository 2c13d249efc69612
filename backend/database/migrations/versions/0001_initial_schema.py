"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-29 09:01:18.318433
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "counters",
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_counters")),
    )

    op.create_table(
        "contacts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("wa_id", sa.String(length=32), nullable=True),
        sa.Column("user_id", sa.String(length=128), nullable=True),
        sa.Column("number", sa.String(length=20), nullable=True),
        sa.Column("profile_name", sa.String(length=256), nullable=True),
        sa.Column("last_inbound_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("window_closes_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("window_warning_sent_for", sa.DateTime(timezone=True), nullable=True),
        sa.Column("window_closed_sent_for", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_contacts")),
        sa.UniqueConstraint("user_id", name=op.f("uq_contacts_user_id")),
        sa.UniqueConstraint("wa_id", name=op.f("uq_contacts_wa_id")),
    )
    with op.batch_alter_table("contacts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_contacts_number"), ["number"], unique=False)
        batch_op.create_index(batch_op.f("ix_contacts_window_closes_at"), ["window_closes_at"], unique=False)

    op.create_table(
        "journal",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("type", sa.String(length=60), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_journal")),
    )
    with op.batch_alter_table("journal", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_journal_at"), ["at"], unique=False)

    op.create_table(
        "pacing_slots",
        sa.Column("key", sa.String(length=80), nullable=False),
        sa.Column("next_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_pacing_slots")),
    )
    op.create_table(
        "processed_events",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("event_key", sa.String(length=400), nullable=False),
        sa.Column("delivery_id", sa.BigInteger(), nullable=True),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_processed_events")),
        sa.UniqueConstraint("event_key", name=op.f("uq_processed_events_event_key")),
    )
    with op.batch_alter_table("processed_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_processed_events_processed_at"), ["processed_at"], unique=False)

    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("disabled", sa.Boolean(), server_default=sa.text("(false)"), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("name", name=op.f("uq_users_name")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_users_token_hash")),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("signature", sa.String(length=100), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("parse_error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_deliveries")),
    )
    with op.batch_alter_table("webhook_deliveries", schema=None) as batch_op:
        batch_op.create_index("ix_webhook_deliveries_pending", ["processed_at", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_webhook_deliveries_received_at"), ["received_at"], unique=False)

    op.create_table(
        "batches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("client_ref", sa.String(length=255), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("message_count", sa.Integer(), nullable=False),
        sa.Column("duplicate_count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["created_by"], ["users.id"], name=op.f("fk_batches_created_by_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_batches")),
        sa.UniqueConstraint("created_by", "client_ref", name=op.f("uq_batches_created_by_client_ref")),
    )
    op.create_table(
        "conversations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("contact_id", sa.Integer(), nullable=False),
        sa.Column("assignee_id", sa.Integer(), nullable=True),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("last_message_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("unread_count", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignee_id"], ["users.id"], name=op.f("fk_conversations_assignee_id_users")
        ),
        sa.ForeignKeyConstraint(
            ["contact_id"], ["contacts.id"], name=op.f("fk_conversations_contact_id_contacts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_conversations")),
        sa.UniqueConstraint("contact_id", name=op.f("uq_conversations_contact_id")),
    )
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_conversations_assignee_id"), ["assignee_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_conversations_last_message_at"), ["last_message_at"], unique=False
        )

    op.create_table(
        "idempotency_records",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("method", sa.String(length=10), nullable=False),
        sa.Column("path", sa.String(length=512), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("response_status", sa.Integer(), nullable=True),
        sa.Column("response_body", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_idempotency_records_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_idempotency_records")),
        sa.UniqueConstraint("user_id", "key", name=op.f("uq_idempotency_records_user_id_key")),
    )
    with op.batch_alter_table("idempotency_records", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_idempotency_records_created_at"), ["created_at"], unique=False)

    op.create_table(
        "outbox_messages",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("dedupe_key", sa.String(length=255), nullable=False),
        sa.Column("to_number", sa.String(length=20), nullable=False),
        sa.Column("purpose", sa.String(length=64), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("trigger_ref", sa.String(length=255), nullable=True),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("hold_reason", sa.String(length=40), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("wamid", sa.String(length=255), nullable=True),
        sa.Column("not_before", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("claimed_by", sa.String(length=100), nullable=True),
        sa.Column("last_error_code", sa.Integer(), nullable=True),
        sa.Column("last_error_title", sa.String(length=255), nullable=True),
        sa.Column("last_error_details", sa.Text(), nullable=True),
        sa.Column("business_initiated", sa.Boolean(), nullable=False),
        sa.Column("urgent", sa.Boolean(), nullable=False),
        sa.Column("reply_to", sa.String(length=255), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("batch_id", sa.Integer(), nullable=True),
        sa.Column("conversation_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("unknown_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["batch_id"], ["batches.id"], name=op.f("fk_outbox_messages_batch_id_batches")
        ),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_outbox_messages_conversation_id_conversations"),
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_outbox_messages_created_by_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox_messages")),
        sa.UniqueConstraint("dedupe_key", name=op.f("uq_outbox_messages_dedupe_key")),
        sa.UniqueConstraint("wamid", name=op.f("uq_outbox_messages_wamid")),
    )
    with op.batch_alter_table("outbox_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_outbox_messages_batch_id"), ["batch_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_outbox_messages_conversation_id"), ["conversation_id"], unique=False
        )
        batch_op.create_index(
            "ix_outbox_messages_due", ["state", "priority", "not_before", "id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_outbox_messages_last_attempt_at"), ["last_attempt_at"], unique=False
        )
        batch_op.create_index("ix_outbox_messages_lease", ["state", "lease_expires_at"], unique=False)
        batch_op.create_index("ix_outbox_messages_recipient_sent", ["to_number", "sent_at"], unique=False)

    op.create_table(
        "inbound_messages",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("wamid", sa.String(length=255), nullable=False),
        sa.Column("contact_id", sa.Integer(), nullable=False),
        sa.Column("conversation_id", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("choice_kind", sa.String(length=20), nullable=True),
        sa.Column("choice_id", sa.String(length=256), nullable=True),
        sa.Column("choice_title", sa.String(length=256), nullable=True),
        sa.Column("reaction_target", sa.String(length=255), nullable=True),
        sa.Column("reaction_emoji", sa.String(length=32), nullable=True),
        sa.Column("media_id", sa.String(length=255), nullable=True),
        sa.Column("media_mime_type", sa.String(length=100), nullable=True),
        sa.Column("caption", sa.Text(), nullable=True),
        sa.Column("context_id", sa.String(length=255), nullable=True),
        sa.Column("attribution", sa.String(length=20), nullable=False),
        sa.Column(
            "reply_to_message_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=True,
        ),
        sa.Column("attributed_by", sa.Integer(), nullable=True),
        sa.Column("errors", sa.JSON(), nullable=True),
        sa.Column("raw", sa.JSON(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["attributed_by"], ["users.id"], name=op.f("fk_inbound_messages_attributed_by_users")
        ),
        sa.ForeignKeyConstraint(
            ["contact_id"], ["contacts.id"], name=op.f("fk_inbound_messages_contact_id_contacts")
        ),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_inbound_messages_conversation_id_conversations"),
        ),
        sa.ForeignKeyConstraint(
            ["reply_to_message_id"],
            ["outbox_messages.id"],
            name=op.f("fk_inbound_messages_reply_to_message_id_outbox_messages"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inbound_messages")),
        sa.UniqueConstraint("wamid", name=op.f("uq_inbound_messages_wamid")),
    )
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.create_index("ix_inbound_messages_attribution", ["attribution", "received_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_inbound_messages_contact_id"), ["contact_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_inbound_messages_context_id"), ["context_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_inbound_messages_conversation_id"), ["conversation_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_inbound_messages_reaction_target"), ["reaction_target"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_inbound_messages_reply_to_message_id"),
            ["reply_to_message_id"],
            unique=False,
        )

    op.create_table(
        "send_decisions",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("message_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(length=100), nullable=False),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["outbox_messages.id"],
            name=op.f("fk_send_decisions_message_id_outbox_messages"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_send_decisions")),
    )
    with op.batch_alter_table("send_decisions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_send_decisions_message_id"), ["message_id"], unique=False)

    op.create_table(
        "status_events",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("wamid", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("occurred_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("recipient_id", sa.String(length=64), nullable=True),
        sa.Column("callback_data", sa.String(length=512), nullable=True),
        sa.Column("message_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("errors", sa.JSON(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["outbox_messages.id"],
            name=op.f("fk_status_events_message_id_outbox_messages"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_status_events")),
    )
    with op.batch_alter_table("status_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_status_events_callback_data"), ["callback_data"], unique=False)
        batch_op.create_index(batch_op.f("ix_status_events_message_id"), ["message_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_status_events_wamid"), ["wamid"], unique=False)


def downgrade() -> None:
    """Undo this revision."""

    with op.batch_alter_table("status_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_status_events_wamid"))
        batch_op.drop_index(batch_op.f("ix_status_events_message_id"))
        batch_op.drop_index(batch_op.f("ix_status_events_callback_data"))

    op.drop_table("status_events")
    with op.batch_alter_table("send_decisions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_send_decisions_message_id"))

    op.drop_table("send_decisions")
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inbound_messages_reply_to_message_id"))
        batch_op.drop_index(batch_op.f("ix_inbound_messages_reaction_target"))
        batch_op.drop_index(batch_op.f("ix_inbound_messages_conversation_id"))
        batch_op.drop_index(batch_op.f("ix_inbound_messages_context_id"))
        batch_op.drop_index(batch_op.f("ix_inbound_messages_contact_id"))
        batch_op.drop_index("ix_inbound_messages_attribution")

    op.drop_table("inbound_messages")
    with op.batch_alter_table("outbox_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_messages_recipient_sent")
        batch_op.drop_index("ix_outbox_messages_lease")
        batch_op.drop_index(batch_op.f("ix_outbox_messages_last_attempt_at"))
        batch_op.drop_index("ix_outbox_messages_due")
        batch_op.drop_index(batch_op.f("ix_outbox_messages_conversation_id"))
        batch_op.drop_index(batch_op.f("ix_outbox_messages_batch_id"))

    op.drop_table("outbox_messages")
    with op.batch_alter_table("idempotency_records", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_idempotency_records_created_at"))

    op.drop_table("idempotency_records")
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_conversations_last_message_at"))
        batch_op.drop_index(batch_op.f("ix_conversations_assignee_id"))

    op.drop_table("conversations")
    op.drop_table("batches")
    with op.batch_alter_table("webhook_deliveries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_deliveries_received_at"))
        batch_op.drop_index("ix_webhook_deliveries_pending")

    op.drop_table("webhook_deliveries")
    op.drop_table("users")
    with op.batch_alter_table("processed_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_processed_events_processed_at"))

    op.drop_table("processed_events")
    op.drop_table("pacing_slots")
    with op.batch_alter_table("journal", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_journal_at"))

    op.drop_table("journal")
    with op.batch_alter_table("contacts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_contacts_window_closes_at"))
        batch_op.drop_index(batch_op.f("ix_contacts_number"))

    op.drop_table("contacts")
    op.drop_table("counters")
