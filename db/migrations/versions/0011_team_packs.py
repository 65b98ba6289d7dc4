"""Add team_packs: every version of every team's question pack, scoped to a workspace or all.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "team_packs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("pack_id", sa.String(length=32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("scope", sa.String(length=300), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("locales", sa.JSON(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.Column("removed", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_team_packs")),
        sa.UniqueConstraint("pack_id", "version", name=op.f("uq_team_packs_pack_id_version")),
    )
    op.create_index(op.f("ix_team_packs_pack_id"), "team_packs", ["pack_id"], unique=False)
    op.create_index(op.f("ix_team_packs_scope"), "team_packs", ["scope"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_team_packs_scope"), table_name="team_packs")
    op.drop_index(op.f("ix_team_packs_pack_id"), table_name="team_packs")
    op.drop_table("team_packs")
