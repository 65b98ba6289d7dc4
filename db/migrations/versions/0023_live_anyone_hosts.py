"""Let a channel allow anyone to host a live session: channels.live_anyone (off by default).

Issue 27: who may host is the admins, or anyone where the channel's admin allows it. Existing
channels keep admins only.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0023
Revises: 0018
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add channels.live_anyone, false for every channel already there."""
    op.add_column("channels", sa.Column("live_anyone", sa.Boolean(), nullable=False,
                                        server_default=sa.false()))


def downgrade() -> None:
    """Drop channels.live_anyone."""
    if op.get_bind().dialect.name == "sqlite":
        # SQLite 3.35+ drops a plain column in place; a batch copy would trip the foreign keys.
        op.execute("ALTER TABLE channels DROP COLUMN live_anyone")
    else:
        op.drop_column("channels", "live_anyone")
