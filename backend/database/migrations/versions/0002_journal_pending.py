"""journal entries waiting for their seq

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "journal_pending",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("type", sa.String(length=60), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_journal_pending")),
    )


def downgrade() -> None:
    """Undo this revision."""
    # Entries committed but not yet numbered are numbered now, oldest first, rather than lost.
    op.execute("INSERT INTO journal (type, at, data) SELECT type, at, data FROM journal_pending ORDER BY id")
    op.drop_table("journal_pending")
