"""Add reports: members' reports of faulty question versions, one per member and version.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).
Chained on 0006; another branch may add its own 0007: whoever merges both points
down_revision at the other's head so the history stays one line.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("item_version", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("platform", sa.String(length=32), nullable=False),
        sa.Column("workspace", sa.String(length=128), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("close_reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_reports_user_id_users"),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], name="fk_reports_round_id_rounds"),
        sa.PrimaryKeyConstraint("id", name="pk_reports"),
        sa.UniqueConstraint("user_id", "item_id", "item_version",
                            name="uq_reports_user_id_item_id_item_version"),
    )
    op.create_index("ix_reports_status_item_id", "reports", ["status", "item_id"])


def downgrade() -> None:
    op.drop_index("ix_reports_status_item_id", table_name="reports")
    op.drop_table("reports")
