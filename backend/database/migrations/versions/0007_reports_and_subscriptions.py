"""reports and outgoing webhooks

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 21:30:00.000000

Reports: conversation_status_changes records each status change and who made it (resolutions per
agent, reopenings), and indexes let the report count messages and conversations in a period.
Outgoing webhooks: webhook_subscriptions (endpoint, events, secret, journal cursor) and
outgoing_deliveries (one journal event to one subscription, its body fixed at fan-out).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Apply this revision."""
    op.create_index(op.f("ix_conversations_created_at"), "conversations", ["created_at"])
    op.create_index("ix_outbox_messages_created", "outbox_messages", ["created_at", "purpose", "state"])
    op.add_column("outbox_messages", sa.Column("waiting_since", sa.DateTime(timezone=True), nullable=True))
    # Agents' replies written before this revision: the first customer message since the reply before.
    op.execute(
        """
        UPDATE outbox_messages SET waiting_since = (
            SELECT min(i.received_at) FROM inbound_messages i
            WHERE i.conversation_id = outbox_messages.conversation_id
              AND i.received_at <= outbox_messages.created_at
              AND NOT EXISTS (
                  SELECT 1 FROM outbox_messages e
                  WHERE e.conversation_id = outbox_messages.conversation_id
                    AND e.origin = 'agent'
                    AND e.created_at < outbox_messages.created_at
                    AND e.created_at >= i.received_at
              )
        )
        WHERE origin = 'agent' AND conversation_id IS NOT NULL
        """
    )
    op.create_index(
        "ix_outbox_messages_origin_created",
        "outbox_messages",
        ["origin", "created_at", "created_by", "waiting_since"],
    )
    op.create_index(
        "ix_outbox_messages_conversation_origin_created",
        "outbox_messages",
        ["conversation_id", "origin", "created_at"],
    )
    op.create_index("ix_inbound_messages_received", "inbound_messages", ["received_at", "conversation_id"])
    op.create_index(
        "ix_inbound_messages_conversation_received", "inbound_messages", ["conversation_id", "received_at"]
    )
    op.create_table(
        "conversation_status_changes",
        sa.Column("id", _ID, nullable=False),
        sa.Column("conversation_id", sa.Integer(), nullable=False),
        sa.Column("previous_status", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("waiting_since", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_conversation_status_changes_conversation_id_conversations"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_conversation_status_changes_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_conversation_status_changes")),
    )
    op.create_index(
        op.f("ix_conversation_status_changes_at"), "conversation_status_changes", ["at"], unique=False
    )
    op.create_index(
        "ix_conversation_status_changes_conversation_status_at",
        "conversation_status_changes",
        ["conversation_id", "status", "at"],
        unique=False,
    )
    op.create_table(
        "webhook_subscriptions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=True),
        sa.Column("secret", sa.String(length=100), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("disabled_reason", sa.String(length=255), nullable=True),
        sa.Column("cursor_seq", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_webhook_subscriptions_created_by_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_subscriptions")),
    )
    op.create_table(
        "outgoing_deliveries",
        sa.Column("id", _ID, nullable=False),
        sa.Column("subscription_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("type", sa.String(length=60), nullable=False),
        sa.Column("webhook_id", sa.String(length=64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.String(length=255), nullable=True),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("retry_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["subscription_id"],
            ["webhook_subscriptions.id"],
            name=op.f("fk_outgoing_deliveries_subscription_id_webhook_subscriptions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outgoing_deliveries")),
        sa.UniqueConstraint(
            "subscription_id", "seq", name=op.f("uq_outgoing_deliveries_subscription_id_seq")
        ),
        sa.UniqueConstraint("webhook_id", name=op.f("uq_outgoing_deliveries_webhook_id")),
    )
    op.create_index(
        "ix_outgoing_deliveries_head",
        "outgoing_deliveries",
        ["subscription_id", "state", "seq"],
        unique=False,
    )


def downgrade() -> None:
    """Undo this revision."""
    op.drop_index("ix_outgoing_deliveries_head", table_name="outgoing_deliveries")
    op.drop_table("outgoing_deliveries")
    op.drop_table("webhook_subscriptions")
    op.drop_index(
        "ix_conversation_status_changes_conversation_status_at", table_name="conversation_status_changes"
    )
    op.drop_index(op.f("ix_conversation_status_changes_at"), table_name="conversation_status_changes")
    op.drop_table("conversation_status_changes")
    op.drop_index("ix_inbound_messages_conversation_received", table_name="inbound_messages")
    op.drop_index("ix_inbound_messages_received", table_name="inbound_messages")
    op.drop_index("ix_outbox_messages_conversation_origin_created", table_name="outbox_messages")
    op.drop_index("ix_outbox_messages_origin_created", table_name="outbox_messages")
    # Not a batch rebuild: that would drop the search index's triggers on the table (see 0004).
    op.execute("ALTER TABLE outbox_messages DROP COLUMN waiting_since")
    op.drop_index("ix_outbox_messages_created", table_name="outbox_messages")
    op.drop_index(op.f("ix_conversations_created_at"), table_name="conversations")
