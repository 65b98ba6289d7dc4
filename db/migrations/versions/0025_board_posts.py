"""Add board_posts: the weekly leaderboard post, claimed once per channel and week.

Every replica's scheduler fires at the board's hour; before this table each one posted the
week's board (found by the soak run, tests/soak). The primary key (channel_id, week_start)
now decides which replica posts it.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_AT = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create board_posts."""
    op.create_table(
        "board_posts",
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("week_start", _AT, nullable=False),
        sa.Column("claimed_at", _AT, nullable=False),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"],
                                name="fk_board_posts_channel_id_channels"),
        sa.PrimaryKeyConstraint("channel_id", "week_start", name="pk_board_posts"),
    )


def downgrade() -> None:
    """Drop board_posts (a replica then posts the weekly board without a claim)."""
    op.drop_table("board_posts")
