"""Let a channel choose the kinds of its daily rounds, speed among them (issue 28).

channels.kinds: the kinds its daily rounds draw, as the channel posts them today (choice, text
and code; a speed challenge only where an admin adds ``speed``). speed_verdicts.round_id and
attempt: a daily speed round's verdict, kept once per try (unique with the member).

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

POSTED_TODAY = '["choice", "text", "code"]'
_UNIQUE = "ux_speed_verdicts_round_id_user_id_attempt"


def upgrade() -> None:
    """Add channels.kinds (what every channel posts today) and a speed verdict's round."""
    # Plain ADD COLUMNs on both dialects: on SQLite, a batch copy of channels would trip the
    # foreign keys of every table that names a channel.
    op.add_column("channels", sa.Column("kinds", sa.JSON(), nullable=False,
                                        server_default=sa.text(f"'{POSTED_TODAY}'")))
    op.add_column("speed_verdicts", sa.Column("round_id", sa.Integer(), nullable=True))
    op.add_column("speed_verdicts", sa.Column("attempt", sa.Integer(), nullable=True))
    op.create_index(_UNIQUE, "speed_verdicts", ["round_id", "user_id", "attempt"], unique=True)


def downgrade() -> None:
    """Drop them (a daily speed round's verdicts stay, as practice verdicts of the channel)."""
    op.drop_index(_UNIQUE, table_name="speed_verdicts")
    for table, column in (("speed_verdicts", "attempt"), ("speed_verdicts", "round_id"),
                          ("channels", "kinds")):
        if op.get_bind().dialect.name == "sqlite":
            # SQLite 3.35+ drops a plain column in place; a batch copy would trip the foreign keys.
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        else:
            op.drop_column(table, column)
