"""media: the length of a voice note, an audio file or a video

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 10:00:00.000000

duration_seconds: read from the file's headers once it is kept; null for every other file, for one
whose length cannot be read (AMR, a broken file) and for files kept before this revision.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    # A nullable column: SQLite adds it in place, and rows already there keep null.
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.add_column(sa.Column("duration_seconds", sa.Float(), nullable=True))


def downgrade() -> None:
    """Undo this revision."""
    # SQLite rebuilds the table (media has no triggers to lose); PostgreSQL drops the column.
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.drop_column("duration_seconds")
