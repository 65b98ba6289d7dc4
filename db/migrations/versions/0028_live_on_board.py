"""Let a channel count live points on its weekly board: channels.live_on_board (off by default).

Issue 27: live points go to the session's board; the weekly board counts them only where the
channel's admin turned that on. A session's points are added to the weekly totals once, when
it ends; live_sessions.on_board says which sessions were, so a change of the channel's zone
recounts them with the daily answers. Existing channels and sessions stay off the board.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = (("channels", "live_on_board"), ("live_sessions", "on_board"))


def upgrade() -> None:
    """Add channels.live_on_board and live_sessions.on_board, false for every row there."""
    for table, column in _COLUMNS:
        op.add_column(table, sa.Column(column, sa.Boolean(), nullable=False,
                                       server_default=sa.false()))


def downgrade() -> None:
    """Drop both columns."""
    for table, column in reversed(_COLUMNS):
        if op.get_bind().dialect.name == "sqlite":
            # SQLite 3.35+ drops a plain column in place; a batch copy would trip the foreign
            # keys.
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        else:
            op.drop_column(table, column)
