"""Live points on the weekly board where a channel wants them; code answers in live sessions.

Issue 27: live points go to the session's board; the weekly board counts them only where the
channel's admin turned that on. A session's points are added to the weekly totals once, when
it ends; live_sessions.on_board says which sessions were, so a change of the channel's zone
recounts them with the daily answers. Existing channels and sessions stay off the board.

Code questions, where the host asks for them: a code answer is kept at once with its
submission (live_answers.code) and pending until the sandbox grades it before the reveal
(live_answers.pending). Existing answers were all graded when given.

The session's thread: live_sessions.thread_ref, the thread started on its lobby post, where its
questions, reveals and final board go (null: in the channel).

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

_FLAGS = (("channels", "live_on_board"), ("live_sessions", "on_board"),
          ("live_answers", "pending"))
_COLUMNS = (*_FLAGS, ("live_answers", "code"), ("live_sessions", "thread_ref"))


def upgrade() -> None:
    """Add the three flags (false for every row there), live_answers.code and thread_ref."""
    for table, column in _FLAGS:
        op.add_column(table, sa.Column(column, sa.Boolean(), nullable=False,
                                       server_default=sa.false()))
    op.add_column("live_answers", sa.Column("code", sa.Text(), nullable=True))
    op.add_column("live_sessions", sa.Column("thread_ref", sa.String(length=128), nullable=True))


def downgrade() -> None:
    """Drop the five columns."""
    for table, column in reversed(_COLUMNS):
        if op.get_bind().dialect.name == "sqlite":
            # SQLite 3.35+ drops a plain column in place; a batch copy would trip the foreign
            # keys.
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        else:
            op.drop_column(table, column)
