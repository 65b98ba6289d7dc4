"""Add live sessions: live_sessions, live_questions, live_players and live_answers.

A live session (bot/core/live) keeps its whole state here, so any replica or a restarted
process advances it by its deadlines: the session (``active_channel_id`` unique while it has
not ended: one per channel), the questions drawn with their post and reveal times, who joined,
and each player's one answer per question (unique per session, question and member).

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_AT = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create the four live tables."""
    op.create_table(
        "live_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("active_channel_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("question_count", sa.Integer(), nullable=False),
        sa.Column("current", sa.Integer(), nullable=False),
        sa.Column("topics", sa.JSON(), nullable=False),
        sa.Column("lobby_ends_at", _AT, nullable=False),
        sa.Column("created_at", _AT, nullable=False),
        sa.Column("ended_at", _AT, nullable=True),
        sa.Column("counted", sa.Boolean(), nullable=True),
        sa.Column("lobby_posted", sa.Boolean(), nullable=False),
        sa.Column("paused_at", _AT, nullable=True),
        sa.Column("paused_left_ms", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"],
                                name="fk_live_sessions_channel_id_channels"),
        sa.PrimaryKeyConstraint("id", name="pk_live_sessions"),
        sa.UniqueConstraint("active_channel_id", name="uq_live_sessions_active_channel_id"),
    )
    op.create_index("ix_live_sessions_channel_id", "live_sessions", ["channel_id"])
    op.create_index("ix_live_sessions_status", "live_sessions", ["status"])
    op.create_table(
        "live_questions",
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("item_version", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Integer(), nullable=False),
        sa.Column("opened_at", _AT, nullable=True),
        sa.Column("closes_at", _AT, nullable=True),
        sa.Column("closed_at", _AT, nullable=True),
        sa.ForeignKeyConstraint(["session_id"], ["live_sessions.id"],
                                name="fk_live_questions_session_id_live_sessions"),
        sa.PrimaryKeyConstraint("session_id", "position", name="pk_live_questions"),
    )
    op.create_table(
        "live_players",
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("joined_at", _AT, nullable=False),
        sa.Column("host", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["session_id"], ["live_sessions.id"],
                                name="fk_live_players_session_id_live_sessions"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_live_players_user_id_users"),
        sa.PrimaryKeyConstraint("session_id", "user_id", name="pk_live_players"),
    )
    op.create_index("ix_live_players_user_id", "live_players", ["user_id"])
    op.create_table(
        "live_answers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("response", sa.String(length=2000), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("answered_at", _AT, nullable=False),
        sa.Column("elapsed_ms", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["session_id"], ["live_sessions.id"],
                                name="fk_live_answers_session_id_live_sessions"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_live_answers_user_id_users"),
        sa.PrimaryKeyConstraint("id", name="pk_live_answers"),
        sa.UniqueConstraint("session_id", "position", "user_id",
                            name="uq_live_answers_session_id_position_user_id"),
    )
    op.create_index("ix_live_answers_user_id", "live_answers", ["user_id"])


def downgrade() -> None:
    """Drop the four live tables (their sessions are lost; nothing else refers to them)."""
    op.drop_index("ix_live_answers_user_id", table_name="live_answers")
    op.drop_table("live_answers")
    op.drop_index("ix_live_players_user_id", table_name="live_players")
    op.drop_table("live_players")
    op.drop_table("live_questions")
    op.drop_index("ix_live_sessions_status", table_name="live_sessions")
    op.drop_index("ix_live_sessions_channel_id", table_name="live_sessions")
    op.drop_table("live_sessions")
