"""Keep each member's totals per topic with every answer: the per-topic board reads them.

The per-topic board recounted a channel's answers on one topic in one statement: 0.8-1 s at a
million answers (issue 26). topic_totals is kept in the answer's transaction like score_totals,
over item_topics: the library's topics of each question, which only the application knows
(packs live in the library, not here). So the backfill is not run here: item_topics starts
empty, and the first SqlStore.sync_item_topics (the first per-topic board a replica shows)
stores the pairs and counts every topic from the answers already there, with BACKFILL below
(db/store_scores.py runs the same statement, narrowed to the topics that changed).

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# score_totals' fold of the answers, per (channel, topic, member); a forgotten member's tries
# (no member) count in no one's totals. Kept here as the statement the upgrade would run.
BACKFILL = """
INSERT INTO topic_totals (channel_id, topic, user_id, points, solved, first_try, attempted,
                          last_solved_at)
SELECT r.channel_id, it.topic, a.user_id, sum(a.points),
       count(DISTINCT CASE WHEN a.correct THEN a.round_id END),
       count(CASE WHEN a.correct AND a.attempt = 1 THEN 1 END),
       count(DISTINCT a.round_id),
       max(CASE WHEN a.correct THEN a.submitted_at END)
FROM answers a
JOIN rounds r ON r.id = a.round_id
JOIN item_topics it ON it.item_id = r.item_id
WHERE a.user_id IS NOT NULL
GROUP BY r.channel_id, it.topic, a.user_id
"""


def upgrade() -> None:
    """Create item_topics, topic_recounts and topic_totals; count what item_topics holds."""
    op.create_table(
        "item_topics",
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("topic", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("item_id", "topic", name="pk_item_topics"),
    )
    op.create_table(
        "topic_recounts",
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("topic", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("item_id", "topic", name="pk_topic_recounts"),
    )
    op.create_table(
        "topic_totals",
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("topic", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("first_try", sa.Integer(), nullable=False),
        sa.Column("attempted", sa.Integer(), nullable=False),
        sa.Column("last_solved_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"],
                                name="fk_topic_totals_channel_id_channels"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"],
                                name="fk_topic_totals_user_id_users"),
        sa.PrimaryKeyConstraint("channel_id", "topic", "user_id", name="pk_topic_totals"),
    )
    op.create_index("ix_topic_totals_channel_id_topic_points_solved", "topic_totals",
                    ["channel_id", "topic", "points", "solved"])
    op.execute(BACKFILL)


def downgrade() -> None:
    """Drop both: the per-topic board of 0029 recounts the answers instead."""
    op.drop_index("ix_topic_totals_channel_id_topic_points_solved", table_name="topic_totals")
    op.drop_table("topic_totals")
    op.drop_table("topic_recounts")
    op.drop_table("item_topics")
