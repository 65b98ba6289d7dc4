"""Add the reminders table: each member's opt-in to a daily private nudge when reviews are due.

One row per member (``/quiz-remind on [hour]``): whom to message, the channel where they opted
in and its zone at the time, the local time of day, the next instant a nudge is due (the claim
that moves it on is what makes a nudge go out once across replicas), the local date of the
last nudge, a snooze, and why we turned it off when the platform refused a direct message.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "reminders",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("platform", sa.String(length=32), nullable=False),
        sa.Column("member_external_id", sa.String(length=128), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("local_time", sa.Time(), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("next_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_sent", sa.Date(), nullable=True),
        sa.Column("snoozed_until", sa.Date(), nullable=True),
        sa.Column("stopped", sa.String(length=32), nullable=True),
        sa.Column("notice", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_reminders_user_id_users"),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"],
                                name="fk_reminders_channel_id_channels"),
        sa.PrimaryKeyConstraint("user_id", name="pk_reminders"),
        sa.UniqueConstraint("platform", "member_external_id",
                            name="uq_reminders_platform_member_external_id"),
    )
    op.create_index("ix_reminders_platform_enabled_next_at", "reminders",
                    ["platform", "enabled", "next_at"])


def downgrade() -> None:
    op.drop_index("ix_reminders_platform_enabled_next_at", table_name="reminders")
    op.drop_table("reminders")
