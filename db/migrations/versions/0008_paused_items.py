"""Add paused_items: item versions the item statistics flagged ``suspect_key``.

The daily pick reads the paused set once per batch of channels; an admin's unpause keeps the
row (``unpaused_at``) so the same version is not paused again by the same evidence.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).
Numbered 0007 while another branch may add its own 0007 (reports): whoever merges both points
down_revision at the other's head so the history stays one line.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "paused_items",
        sa.Column("item_id", sa.String(length=128), nullable=False),
        sa.Column("item_version", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("paused_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("unpaused_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("item_id", "item_version", name="pk_paused_items"),
    )


def downgrade() -> None:
    op.drop_table("paused_items")
