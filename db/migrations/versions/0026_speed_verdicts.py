"""Add speed_verdicts and speed_open: speed challenges in chat (/quiz speed, /quiz-speed).

Every speed verdict of a member is kept with its status (released, pending: held for an
admin, rejected), score and per-shape figures; a board ranks each member's best released
faster verdict in a channel. speed_open is the challenge a member was last served.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_AT = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create speed_open and speed_verdicts."""
    op.create_table(
        "speed_open",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("item_version", sa.Integer(), nullable=False),
        sa.Column("started_at", _AT, nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_speed_open_user_id_users"),
        sa.PrimaryKeyConstraint("user_id", name="pk_speed_open"),
    )
    op.create_table(
        "speed_verdicts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=True),
        sa.Column("workspace", sa.String(length=200), nullable=False),
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("item_version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("faster", sa.Boolean(), nullable=False),
        sa.Column("held", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("shapes", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", _AT, nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"],
                                name="fk_speed_verdicts_user_id_users"),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"],
                                name="fk_speed_verdicts_channel_id_channels"),
        sa.PrimaryKeyConstraint("id", name="pk_speed_verdicts"),
    )
    op.create_index("ix_speed_verdicts_user_id", "speed_verdicts", ["user_id"])
    op.create_index("ix_speed_verdicts_item_id_channel_id", "speed_verdicts",
                    ["item_id", "channel_id"])
    op.create_index("ix_speed_verdicts_workspace_status", "speed_verdicts",
                    ["workspace", "status"])


def downgrade() -> None:
    """Drop speed_verdicts and speed_open (speed verdicts kept in chat are lost)."""
    op.drop_index("ix_speed_verdicts_workspace_status", table_name="speed_verdicts")
    op.drop_index("ix_speed_verdicts_item_id_channel_id", table_name="speed_verdicts")
    op.drop_index("ix_speed_verdicts_user_id", table_name="speed_verdicts")
    op.drop_table("speed_verdicts")
    op.drop_table("speed_open")
