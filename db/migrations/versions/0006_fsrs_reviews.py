"""Turn the Leitner boxes of reviews into FSRS cards, keeping every member's due dates.

A review in box 1 was a miss waiting to come back: it becomes a card in FSRS's learning state
at its first step, due when it was due. A review in box n >= 2 had been answered right n - 1
times in a row and waited 2**(n-1) days: it becomes a card in the review state whose stability
(the days until recall drops to 90 %) is that interval, with a middling difficulty of 5, due
when it was due. So nothing a member learned is forgotten and nothing comes back early; FSRS
refines stability and difficulty from the next answer on. The downgrade maps back by
stability (the box whose interval is nearest), which is all a Leitner box can hold.

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LEARNING, REVIEW = 1, 2
MIDDLING_DIFFICULTY = 5.0
MAX_BOX = 5

_reviews = sa.table(
    "reviews",
    sa.column("user_id", sa.Integer()),
    sa.column("item_id", sa.String()),
    sa.column("box", sa.Integer()),
    sa.column("state", sa.Integer()),
    sa.column("step", sa.Integer()),
    sa.column("stability", sa.Float()),
    sa.column("difficulty", sa.Float()),
)


def card_of_box(box: int) -> dict[str, object]:
    """Return the FSRS columns of a review that sat in Leitner ``box``."""
    if box <= 1:
        return {"state": LEARNING, "step": 0, "stability": None, "difficulty": None}
    return {"state": REVIEW, "step": None, "stability": float(2 ** (box - 1)),
            "difficulty": MIDDLING_DIFFICULTY}


def box_of_card(state: int, stability: float | None) -> int:
    """Return the Leitner box nearest to an FSRS card (for the downgrade)."""
    if state != REVIEW or not stability or stability < 1.5:
        return 1
    return max(2, min(MAX_BOX, round(math.log2(stability)) + 1))


def upgrade() -> None:
    with op.batch_alter_table("reviews") as batch:
        batch.add_column(sa.Column("state", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("step", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("stability", sa.Float(), nullable=True))
        batch.add_column(sa.Column("difficulty", sa.Float(), nullable=True))
    connection = op.get_bind()
    # One statement per box (five at most), whatever the number of reviews.
    connection.execute(_reviews.update().where(_reviews.c.box <= 1).values(**card_of_box(1)))
    for box in range(2, MAX_BOX):
        connection.execute(_reviews.update().where(_reviews.c.box == box)
                           .values(**card_of_box(box)))
    connection.execute(_reviews.update().where(_reviews.c.box >= MAX_BOX)
                       .values(**card_of_box(MAX_BOX)))
    with op.batch_alter_table("reviews") as batch:
        batch.alter_column("state", existing_type=sa.Integer(), nullable=False)
        batch.alter_column("reviewed_at", existing_type=sa.DateTime(timezone=True),
                           nullable=True)
        batch.drop_column("box")


def downgrade() -> None:
    with op.batch_alter_table("reviews") as batch:
        batch.add_column(sa.Column("box", sa.Integer(), nullable=True))
    connection = op.get_bind()
    rows = connection.execute(sa.select(_reviews.c.user_id, _reviews.c.item_id,
                                        _reviews.c.state, _reviews.c.stability)).all()
    for user_id, item_id, state, stability in rows:
        connection.execute(
            _reviews.update()
            .where(_reviews.c.user_id == user_id, _reviews.c.item_id == item_id)
            .values(box=box_of_card(state, stability))
        )
    _reviewed = sa.table("reviews", sa.column("reviewed_at", sa.DateTime(timezone=True)),
                         sa.column("due_at", sa.DateTime(timezone=True)))
    connection.execute(_reviewed.update().where(_reviewed.c.reviewed_at.is_(None))
                       .values(reviewed_at=_reviewed.c.due_at))
    with op.batch_alter_table("reviews") as batch:
        batch.alter_column("box", existing_type=sa.Integer(), nullable=False)
        batch.alter_column("reviewed_at", existing_type=sa.DateTime(timezone=True),
                           nullable=False)
        batch.drop_column("difficulty")
        batch.drop_column("stability")
        batch.drop_column("step")
        batch.drop_column("state")
