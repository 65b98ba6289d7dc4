"""Give a round's post claim a column of its own: rounds.post_claimed_at.

Until now a claimed-but-unposted round carried ``posting:<ISO time>`` in ``message_ref``, a
field that otherwise names the platform's message. The claim time moves into
``post_claimed_at`` (aware UTC, null when nobody is posting the round) and ``message_ref``
keeps only real platform references. Rows that held a claim are carried over; a claim whose
time cannot be read becomes an unclaimed, unposted round, which the next replica posts, as the
old code did with it.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PREFIX = "posting:"
_ROUNDS = sa.table(
    "rounds",
    sa.column("id", sa.Integer()),
    sa.column("message_ref", sa.String(length=255)),
    sa.column("post_claimed_at", sa.DateTime(timezone=True)),
)


def _claim_time(message_ref: str) -> dt.datetime | None:
    try:
        claimed = dt.datetime.fromisoformat(message_ref.removeprefix(_PREFIX))
    except ValueError:
        return None
    if claimed.tzinfo is None:
        return None
    return claimed.astimezone(dt.UTC)


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("post_claimed_at", sa.DateTime(timezone=True), nullable=True))
    connection = op.get_bind()
    claims = connection.execute(
        sa.select(_ROUNDS.c.id, _ROUNDS.c.message_ref).where(
            _ROUNDS.c.message_ref.startswith(_PREFIX))
    ).all()
    for round_id, ref in claims:
        connection.execute(
            _ROUNDS.update().where(_ROUNDS.c.id == round_id)
            .values(message_ref=None, post_claimed_at=_claim_time(ref))
        )


def downgrade() -> None:
    connection = op.get_bind()
    claims = connection.execute(
        sa.select(_ROUNDS.c.id, _ROUNDS.c.post_claimed_at).where(
            _ROUNDS.c.message_ref.is_(None), _ROUNDS.c.post_claimed_at.is_not(None))
    ).all()
    for round_id, claimed in claims:
        if claimed.tzinfo is None:  # SQLite returns the stored UTC time without its zone
            claimed = claimed.replace(tzinfo=dt.UTC)
        connection.execute(
            _ROUNDS.update().where(_ROUNDS.c.id == round_id)
            .values(message_ref=_PREFIX + claimed.astimezone(dt.UTC).isoformat())
        )
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("post_claimed_at")
