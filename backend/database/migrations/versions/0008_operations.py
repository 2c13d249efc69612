"""release history and backup runs

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 21:40:00.000000

release_history: each version of the product that ran on the database with the schema revision it
left, so an older version can name the version to install instead of failing on an unknown revision.
backup_runs: each backup archive taken, for the Health tab and the daily backup's schedule.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "release_history",
        sa.Column("id", _ID, nullable=False),
        sa.Column("version", sa.String(length=40), nullable=False),
        sa.Column("revision", sa.String(length=40), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_release_history")),
    )
    op.create_table(
        "backup_runs",
        sa.Column("id", _ID, nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.String(length=20), nullable=False),
        sa.Column("archive", sa.Text(), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_backup_runs")),
    )
    op.create_index(op.f("ix_backup_runs_taken_at"), "backup_runs", ["taken_at"], unique=False)


def downgrade() -> None:
    """Undo this revision."""
    op.drop_index(op.f("ix_backup_runs_taken_at"), table_name="backup_runs")
    op.drop_table("backup_runs")
    op.drop_table("release_history")
