"""The admins' audit log and the settings stamp schedulers poll.

admin_changes keeps every admin change (who, what, when, before and after), from chat or the
web page. settings_stamps holds one row whose version moves on with every settings change, so
a scheduler in another process (the web page changed a post time) reschedules within seconds.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create admin_changes and settings_stamps (its one row)."""
    op.create_table(
        "admin_changes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("platform", sa.String(length=32), nullable=False),
        sa.Column("workspace", sa.String(length=128), nullable=False),
        sa.Column("actor", sa.String(length=128), nullable=False),
        sa.Column("actor_name", sa.String(length=200), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("target", sa.String(length=200), nullable=False),
        sa.Column("before", sa.Text(), nullable=False),
        sa.Column("after", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_admin_changes"),
    )
    op.create_index("ix_admin_changes_platform_workspace_at", "admin_changes",
                    ["platform", "workspace", "at"])
    stamps = op.create_table(
        "settings_stamps",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_settings_stamps"),
    )
    op.bulk_insert(stamps, [{"id": 1, "version": 0}])


def downgrade() -> None:
    """Drop the audit log and the stamp (schedulers then see only their own changes)."""
    op.drop_table("settings_stamps")
    op.drop_index("ix_admin_changes_platform_workspace_at", table_name="admin_changes")
    op.drop_table("admin_changes")
