"""Let a forgotten member's tries at an open round stay as anonymous facts.

``answers.user_id`` may be null (a try whose member asked to be forgotten), and
``answers.forgotten_mark`` holds, only while that round is open, a one-way hash of the round
and the person, so that they cannot start the round over (db/store_members.py). Every answer
already there keeps its member and gets no mark.

The downgrade deletes the anonymous tries: the older schema has no place for a try without
its member.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Make answers.user_id nullable; add answers.forgotten_mark and its index."""
    # No table names an answer, so SQLite's batch copy of answers trips no foreign key.
    with op.batch_alter_table("answers") as batch:
        batch.alter_column("user_id", existing_type=sa.Integer(), nullable=True)
        batch.add_column(sa.Column("forgotten_mark", sa.String(length=64), nullable=True))
        batch.create_index("ix_answers_forgotten_mark", ["forgotten_mark"])


def downgrade() -> None:
    """Delete the anonymous tries; make answers.user_id required again; drop the mark."""
    op.execute("DELETE FROM answers WHERE user_id IS NULL")
    with op.batch_alter_table("answers") as batch:
        batch.drop_index("ix_answers_forgotten_mark")
        batch.drop_column("forgotten_mark")
        batch.alter_column("user_id", existing_type=sa.Integer(), nullable=False)
