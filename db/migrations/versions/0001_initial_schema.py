"""Create the initial schema: workspaces, channels, users, rounds, answers, practice, reviews.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).
Revisions stay frozen: they spell out their types instead of importing the models.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamp(name: str, *, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _platform_key() -> list[sa.Column[Any]]:
    return [
        sa.Column("platform", sa.String(length=32), nullable=False),
        sa.Column("external_id", sa.String(length=128), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "workspaces",
        sa.Column("id", sa.Integer(), nullable=False),
        *_platform_key(),
        sa.PrimaryKeyConstraint("id", name="pk_workspaces"),
        sa.UniqueConstraint("platform", "external_id", name="uq_workspaces_platform_external_id"),
    )
    op.create_table(
        "channels",
        sa.Column("id", sa.Integer(), nullable=False),
        *_platform_key(),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("post_time", sa.Time(), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("locale", sa.String(length=16), nullable=False),
        sa.Column("topics", sa.JSON(), nullable=False),
        sa.Column("difficulties", sa.JSON(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("leaderboard_weekday", sa.Integer(), nullable=False),
        sa.Column("leaderboard_hour", sa.Integer(), nullable=False),
        sa.Column("round_hours", sa.Integer(), nullable=False),
        _timestamp("created_at"),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name="fk_channels_workspace_id_workspaces"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_channels"),
        sa.UniqueConstraint("platform", "external_id", name="uq_channels_platform_external_id"),
    )
    op.create_index("ix_channels_workspace_id", "channels", ["workspace_id"])
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        *_platform_key(),
        sa.Column("display_name", sa.String(length=200), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("platform", "external_id", name="uq_users_platform_external_id"),
    )
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("local_date", sa.Date(), nullable=False),
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("item_version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        _timestamp("opened_at"),
        _timestamp("closes_at"),
        _timestamp("closed_at", nullable=True),
        sa.Column("message_ref", sa.String(length=255), nullable=True),
        sa.ForeignKeyConstraint(
            ["channel_id"], ["channels.id"], name="fk_rounds_channel_id_channels"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_rounds"),
        # The claim: two replicas can never both post a channel's question for one date.
        sa.UniqueConstraint("channel_id", "local_date", name="uq_rounds_channel_id_local_date"),
    )
    op.create_index("ix_rounds_status_closes_at", "rounds", ["status", "closes_at"])
    op.create_table(
        "answers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("response", sa.Text(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("verdict_status", sa.String(length=32), nullable=True),
        _timestamp("submitted_at"),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], name="fk_answers_round_id_rounds"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_answers_user_id_users"),
        sa.PrimaryKeyConstraint("id", name="pk_answers"),
        sa.UniqueConstraint(
            "round_id", "user_id", "attempt", name="uq_answers_round_id_user_id_attempt"
        ),
    )
    op.create_index("ix_answers_user_id", "answers", ["user_id"])
    op.create_table(
        "practice_sessions",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("item_version", sa.Integer(), nullable=False),
        _timestamp("started_at"),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_practice_sessions_user_id_users"
        ),
        sa.PrimaryKeyConstraint("user_id", name="pk_practice_sessions"),
    )
    op.create_table(
        "practice_results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("item_version", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        _timestamp("answered_at"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_practice_results_user_id_users"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_practice_results"),
    )
    op.create_index("ix_practice_results_user_id", "practice_results", ["user_id"])
    op.create_table(
        "reviews",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("box", sa.Integer(), nullable=False),
        _timestamp("due_at"),
        sa.Column("last_correct", sa.Boolean(), nullable=False),
        _timestamp("reviewed_at"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_reviews_user_id_users"),
        sa.PrimaryKeyConstraint("user_id", "item_id", name="pk_reviews"),
    )


def downgrade() -> None:
    # Children before parents, so foreign keys never dangle.
    op.drop_table("reviews")
    op.drop_index("ix_practice_results_user_id", table_name="practice_results")
    op.drop_table("practice_results")
    op.drop_table("practice_sessions")
    op.drop_index("ix_answers_user_id", table_name="answers")
    op.drop_table("answers")
    op.drop_index("ix_rounds_status_closes_at", table_name="rounds")
    op.drop_table("rounds")
    op.drop_table("users")
    op.drop_index("ix_channels_workspace_id", table_name="channels")
    op.drop_table("channels")
    op.drop_table("workspaces")
