"""The web page's sign-in: one-time links, server-side sessions, the kept signing secret.

web_links and web_sessions hold only a SHA-256 of each token; web_secrets holds the secret
generated when TORCHQUIZ_WEB_SECRET is unset (bot/core/signin/service.py).

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _grant_columns() -> list[sa.Column[object]]:
    return [
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("platform", sa.String(length=32), nullable=False),
        sa.Column("workspace", sa.String(length=128), nullable=False),
        sa.Column("user", sa.String(length=128), nullable=False),
        sa.Column("display_name", sa.String(length=200), nullable=False),
        sa.Column("channel", sa.String(length=128), nullable=False),
        sa.Column("locale", sa.String(length=16), nullable=False),
        sa.Column("is_admin", sa.Boolean(), nullable=False),
    ]


def upgrade() -> None:
    """Create web_secrets, web_links and web_sessions."""
    op.create_table(
        "web_secrets",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_web_secrets"),
    )
    op.create_table(
        "web_links",
        *_grant_columns(),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_web_links"),
        sa.UniqueConstraint("token_hash", name="uq_web_links_token_hash"),
    )
    op.create_index("ix_web_links_platform_user_created_at", "web_links",
                    ["platform", "user", "created_at"])
    op.create_table(
        "web_sessions",
        *_grant_columns(),
        sa.Column("csrf", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_web_sessions"),
        sa.UniqueConstraint("token_hash", name="uq_web_sessions_token_hash"),
    )
    op.create_index("ix_web_sessions_platform_user", "web_sessions", ["platform", "user"])


def downgrade() -> None:
    """Drop the web page's tables (every session ends; links no longer sign in)."""
    op.drop_index("ix_web_sessions_platform_user", table_name="web_sessions")
    op.drop_table("web_sessions")
    op.drop_index("ix_web_links_platform_user_created_at", table_name="web_links")
    op.drop_table("web_links")
    op.drop_table("web_secrets")
