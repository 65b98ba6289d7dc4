"""Let a member keep off the public boards: users.hidden (false for everyone already there).

A hidden member is still scored; the boards, the weekly post and its chart leave them out. The
index lets a board count its hidden members from the few who chose it, not from every total.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add users.hidden, false for every member, and its index."""
    # A plain ADD COLUMN on both dialects: on SQLite, a batch copy of users would trip the
    # foreign keys of every table that names a member.
    op.add_column(
        "users", sa.Column("hidden", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.create_index("ix_users_hidden", "users", ["hidden"])


def downgrade() -> None:
    """Drop users.hidden and its index."""
    op.drop_index("ix_users_hidden", table_name="users")
    if op.get_bind().dialect.name == "sqlite":
        # SQLite 3.35+ drops a plain column in place; a batch copy would trip the foreign keys.
        op.execute("ALTER TABLE users DROP COLUMN hidden")
    else:
        op.drop_column("users", "hidden")
