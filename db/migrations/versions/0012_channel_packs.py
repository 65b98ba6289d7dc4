"""Let a channel choose the packs it draws from: channels.packs (the shipped bank only, for all).

A JSON list of pack ids, where ``bank`` names the shipped bank. Every channel already there
gets ``["bank"]``: it draws from exactly what it drew from before.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SHIPPED_ONLY = '["bank"]'


def upgrade() -> None:
    """Add channels.packs, the shipped bank only for every channel."""
    # A plain ADD COLUMN on both dialects: on SQLite, a batch copy of channels would trip the
    # foreign keys of every table that names a channel.
    op.add_column("channels", sa.Column("packs", sa.JSON(), nullable=False,
                                        server_default=sa.text(f"'{SHIPPED_ONLY}'")))


def downgrade() -> None:
    """Drop channels.packs (channels draw from the shipped bank again)."""
    if op.get_bind().dialect.name == "sqlite":
        # SQLite 3.35+ drops a plain column in place; a batch copy would trip the foreign keys.
        op.execute("ALTER TABLE channels DROP COLUMN packs")
    else:
        op.drop_column("channels", "packs")
