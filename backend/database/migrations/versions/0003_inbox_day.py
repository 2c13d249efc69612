"""placement of inbound messages, conversation status, labels, presence, notes, canned replies

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 08:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# attribution (before) -> placement (after); an unattributed reply stays a work item until an agent files it.
_PLACEMENT_OF = {
    "attributed": "reply",
    "unattributed": "work_queue",
    "linked": "linked",
    "new_topic": "new_topic",
}


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("placement", sa.String(length=20), nullable=True))
    for before, after in _PLACEMENT_OF.items():
        op.execute(
            sa.text("UPDATE inbound_messages SET placement = :after WHERE attribution = :before").bindparams(
                after=after, before=before
            )
        )
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.alter_column("placement", existing_type=sa.String(length=20), nullable=False)
        batch_op.drop_index("ix_inbound_messages_attribution")
        batch_op.drop_column("attribution")
        batch_op.create_index("ix_inbound_messages_placement", ["placement", "received_at"], unique=False)
        batch_op.create_index("ix_inbound_messages_contact_sent", ["contact_id", "sent_at"], unique=False)

    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("status", sa.String(length=20), server_default=sa.text("'open'"), nullable=False)
        )
        batch_op.add_column(sa.Column("snoozed_until", sa.DateTime(timezone=True), nullable=True))
        batch_op.drop_column("state")
        batch_op.create_index(batch_op.f("ix_conversations_status"), ["status"], unique=False)
        batch_op.create_index(batch_op.f("ix_conversations_snoozed_until"), ["snoozed_until"], unique=False)

    with op.batch_alter_table("outbox_messages", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("origin", sa.String(length=20), server_default=sa.text("'api'"), nullable=False)
        )
        batch_op.create_index(
            "ix_outbox_messages_conversation_created", ["conversation_id", "created_at"], unique=False
        )
    # Rows written before origins existed: a conversation reply had the purpose `reply`, the away
    # message `auto_reply`.
    op.execute("UPDATE outbox_messages SET origin = 'agent' WHERE purpose = 'reply'")
    op.execute("UPDATE outbox_messages SET origin = 'auto' WHERE purpose = 'auto_reply'")

    op.create_table(
        "conversation_labels",
        sa.Column("conversation_id", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=40), nullable=False),
        sa.Column("added_by", sa.Integer(), nullable=True),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["added_by"], ["users.id"], name=op.f("fk_conversation_labels_added_by_users")
        ),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_conversation_labels_conversation_id_conversations"),
        ),
        sa.PrimaryKeyConstraint("conversation_id", "label", name=op.f("pk_conversation_labels")),
    )
    with op.batch_alter_table("conversation_labels", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_conversation_labels_label"), ["label"], unique=False)

    op.create_table(
        "conversation_presence",
        sa.Column("conversation_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("typing", sa.Boolean(), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_conversation_presence_conversation_id_conversations"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_conversation_presence_user_id_users")
        ),
        sa.PrimaryKeyConstraint("conversation_id", "user_id", name=op.f("pk_conversation_presence")),
    )
    with op.batch_alter_table("conversation_presence", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_conversation_presence_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "conversation_notes",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("conversation_id", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("mentions", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_id"], ["users.id"], name=op.f("fk_conversation_notes_author_id_users")
        ),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_conversation_notes_conversation_id_conversations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_conversation_notes")),
    )
    with op.batch_alter_table("conversation_notes", schema=None) as batch_op:
        batch_op.create_index("ix_conversation_notes_thread", ["conversation_id", "created_at"], unique=False)

    op.create_table(
        "canned_replies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("shortcut", sa.String(length=32), nullable=False),
        sa.Column("title", sa.String(length=100), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_canned_replies_created_by_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_canned_replies")),
        sa.UniqueConstraint("shortcut", name=op.f("uq_canned_replies_shortcut")),
    )


def downgrade() -> None:
    """Undo this revision."""
    op.drop_table("canned_replies")
    with op.batch_alter_table("conversation_notes", schema=None) as batch_op:
        batch_op.drop_index("ix_conversation_notes_thread")
    op.drop_table("conversation_notes")
    with op.batch_alter_table("conversation_presence", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_conversation_presence_expires_at"))
    op.drop_table("conversation_presence")
    with op.batch_alter_table("conversation_labels", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_conversation_labels_label"))
    op.drop_table("conversation_labels")

    with op.batch_alter_table("outbox_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_messages_conversation_created")
        batch_op.drop_column("origin")

    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_conversations_snoozed_until"))
        batch_op.drop_index(batch_op.f("ix_conversations_status"))
        batch_op.drop_column("snoozed_until")
        batch_op.drop_column("status")
        batch_op.add_column(sa.Column("state", sa.String(length=20), nullable=True))
    op.execute("UPDATE conversations SET state = 'open'")
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.alter_column("state", existing_type=sa.String(length=20), nullable=False)

    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("attribution", sa.String(length=20), nullable=True))
    # Plain chat had no place of its own before: it was an unattributed reply.
    op.execute(
        "UPDATE inbound_messages SET attribution = 'unattributed'"
        " WHERE placement IN ('work_queue', 'conversation')"
    )
    op.execute("UPDATE inbound_messages SET attribution = 'attributed' WHERE placement = 'reply'")
    op.execute(
        "UPDATE inbound_messages SET attribution = placement WHERE placement IN ('linked', 'new_topic')"
    )
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.alter_column("attribution", existing_type=sa.String(length=20), nullable=False)
        batch_op.drop_index("ix_inbound_messages_contact_sent")
        batch_op.drop_index("ix_inbound_messages_placement")
        batch_op.drop_column("placement")
        batch_op.create_index("ix_inbound_messages_attribution", ["attribution", "received_at"], unique=False)
