"""media: customers' photos, voice notes, videos, documents and stickers, and files we upload

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 09:00:00.000000

One row per media id, its bytes kept in the data folder's media store under their SHA-256.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "media",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("media_id", sa.String(length=255), nullable=False),
        sa.Column("direction", sa.String(length=10), nullable=False),
        sa.Column("mime_type", sa.String(length=100), nullable=True),
        sa.Column("sha256", sa.String(length=100), nullable=True),
        sa.Column("content_hash", sa.String(length=64), nullable=True),
        sa.Column("filename", sa.String(length=255), nullable=True),
        sa.Column("size", sa.BigInteger(), nullable=True),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("graph_media_id", sa.String(length=255), nullable=True),
        sa.Column("graph_uploaded_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("stored_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["created_by"], ["users.id"], name=op.f("fk_media_created_by_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_media")),
        sa.UniqueConstraint("media_id", name=op.f("uq_media_media_id")),
    )
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.create_index("ix_media_due", ["state", "next_attempt_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_media_content_hash"), ["content_hash"], unique=False)
        batch_op.create_index(batch_op.f("ix_media_created_at"), ["created_at"], unique=False)
    # Plain ALTER TABLE, not a batch rebuild: rebuilding outbox_messages would drop its search triggers.
    op.add_column("outbox_messages", sa.Column("media_id", sa.String(length=255), nullable=True))
    op.create_index(op.f("ix_outbox_messages_media_id"), "outbox_messages", ["media_id"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index(op.f("ix_outbox_messages_media_id"), table_name="outbox_messages")
    op.drop_column("outbox_messages", "media_id")
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_media_created_at"))
        batch_op.drop_index(batch_op.f("ix_media_content_hash"))
        batch_op.drop_index("ix_media_due")
    op.drop_table("media")
