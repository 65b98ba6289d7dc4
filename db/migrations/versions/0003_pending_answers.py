"""Add pending_answers: code answers kept while no executor can grade them.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).
Numbered 0003 on a branch that also saw 0002 (leaderboards) being written; whoever merges
both points down_revision at the other's head so the history stays one line.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pending_answers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("response", sa.Text(), nullable=False),
        sa.Column("locale", sa.String(length=16), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claim", sa.String(length=64), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name="fk_pending_answers_round_id_rounds"
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_pending_answers_user_id_users"),
        sa.PrimaryKeyConstraint("id", name="pk_pending_answers"),
    )
    op.create_index(
        "ix_pending_answers_round_id_user_id", "pending_answers", ["round_id", "user_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_pending_answers_round_id_user_id", table_name="pending_answers")
    op.drop_table("pending_answers")
