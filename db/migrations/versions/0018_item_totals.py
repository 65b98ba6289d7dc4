"""Keep each channel's daily answers per item, counted by member-round: /stats team's mastery.

/stats team grouped every answer of the channel by member and round on each call: 1.3 s at a
million answers (issue 24). item_totals is kept in the answer's transaction like score_totals;
the backfill groups the answers already there once, with the query /stats team used.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# One row per member-round (a forgotten member's tries at a round form one, as before): whether
# any try was right, and whether attempt 1 was.
BACKFILL = """
INSERT INTO item_totals (channel_id, item_id, answered, solved, first_try)
SELECT channel_id, item_id, count(*), sum(solved), sum(first_right)
FROM (
    SELECT r.channel_id AS channel_id, r.item_id AS item_id,
           max(CASE WHEN a.correct THEN 1 ELSE 0 END) AS solved,
           max(CASE WHEN a.correct AND a.attempt = 1 THEN 1 ELSE 0 END) AS first_right
    FROM answers a JOIN rounds r ON r.id = a.round_id
    WHERE {where}
    GROUP BY r.id, r.channel_id, r.item_id, a.user_id
) AS member_rounds
GROUP BY channel_id, item_id
"""


def upgrade() -> None:
    """Create item_totals and fill it from the answers."""
    op.create_table(
        "item_totals",
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("answered", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("first_try", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"],
                                name="fk_item_totals_channel_id_channels"),
        sa.PrimaryKeyConstraint("channel_id", "item_id", name="pk_item_totals"),
    )
    op.execute(BACKFILL.format(where="1 = 1"))


def downgrade() -> None:
    """Drop item_totals: /stats team of 0015 groups the answers instead."""
    op.drop_table("item_totals")
