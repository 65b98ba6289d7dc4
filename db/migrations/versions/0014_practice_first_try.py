"""Keep whether a practice question was answered right on the first try: practice_results.first_try.

Per-topic mastery counts first tries; a practice result kept only its final outcome, so a
solve after two misses counted as mastered. Results stored before this revision stay null
(their tries were not kept) and count by their outcome, as they did.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add practice_results.first_try, null for the results already there."""
    op.add_column("practice_results", sa.Column("first_try", sa.Boolean(), nullable=True))


def downgrade() -> None:
    """Drop practice_results.first_try."""
    if op.get_bind().dialect.name == "sqlite":
        # SQLite 3.35+ drops a plain column in place; a batch copy would trip the foreign keys.
        op.execute("ALTER TABLE practice_results DROP COLUMN first_try")
    else:
        op.drop_column("practice_results", "first_try")
