"""opt-outs of marketing, templates synced from Meta, the number's quality rating and messaging limit

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03 08:00:00.000000

outbox_messages gains its column with a plain ALTER TABLE on SQLite too (and loses it the same way):
a batch migration would rebuild the table and drop the search index's triggers with it (see 0004).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("contacts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("opted_out_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("opted_out_reason", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("opt_out_confirmed_for", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("opted_in_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("opted_in_by", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("opted_in_note", sa.Text(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_contacts_opted_in_by_users"), "users", ["opted_in_by"], ["id"]
        )
    with op.batch_alter_table("batches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("opted_out_keys", sa.JSON(), nullable=True))
    op.add_column(
        "outbox_messages",
        sa.Column("marketing", sa.Boolean(), server_default=sa.text("false"), nullable=False),
    )
    op.create_table(
        "message_templates",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=512), nullable=False),
        sa.Column("language", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=40), nullable=False),
        sa.Column("category", sa.String(length=40), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("parameter_count", sa.Integer(), nullable=False),
        sa.Column("meta_id", sa.String(length=64), nullable=True),
        sa.Column("status_reason", sa.Text(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_message_templates")),
        sa.UniqueConstraint("name", "language", name=op.f("uq_message_templates_name_language")),
    )
    op.create_table(
        "number_health",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("quality_rating", sa.String(length=20), nullable=True),
        sa.Column("messaging_tier", sa.String(length=40), nullable=True),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("event", sa.String(length=40), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_number_health")),
    )
    op.create_index(op.f("ix_number_health_recorded_at"), "number_health", ["recorded_at"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index(op.f("ix_number_health_recorded_at"), table_name="number_health")
    op.drop_table("number_health")
    op.drop_table("message_templates")
    # SQLite 3.35+ drops a column in place, keeping the table and its triggers.
    op.execute("ALTER TABLE outbox_messages DROP COLUMN marketing")
    with op.batch_alter_table("batches", schema=None) as batch_op:
        batch_op.drop_column("opted_out_keys")
    with op.batch_alter_table("contacts", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_contacts_opted_in_by_users"), type_="foreignkey")
        batch_op.drop_column("opted_in_note")
        batch_op.drop_column("opted_in_by")
        batch_op.drop_column("opted_in_at")
        batch_op.drop_column("opt_out_confirmed_for")
        batch_op.drop_column("opted_out_reason")
        batch_op.drop_column("opted_out_at")
