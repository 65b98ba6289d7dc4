"""Add published_boards: a channel's board published at an unguessable link (the web page).

An admin publishes a channel's board from the web page and may withdraw it; the old link then
answers 404. One row per channel; its unique token is the link's last part.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create published_boards."""
    op.create_table(
        "published_boards",
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"],
                                name="fk_published_boards_channel_id_channels"),
        sa.PrimaryKeyConstraint("channel_id", name="pk_published_boards"),
        sa.UniqueConstraint("token", name="uq_published_boards_token"),
    )


def downgrade() -> None:
    """Drop published_boards (every published board's link then answers 404)."""
    op.drop_table("published_boards")
