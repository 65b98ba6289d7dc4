"""Keep each member's streak with their all-time totals, as of the latest round they solved.

The boards replayed every member's solved rounds to show streaks and freezes: at a million
answers that read was most of a board's time (issue 24). score_totals now carries the streak
state right after the member's latest solved round of the channel (its date, how many of the
channel's rounds were dated up to it, the walk's state there), written in the answer's
transaction; a board walks only the rounds after it. The backfill replays the answers already
there with its own frozen copy of the rule (bot/core/kernel/streaks.py).

Written by hand and checked against db/tables.py (tests/db/test_migrations.py compares them).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COUNTERS = ("streak_through", "streak", "best_streak", "freezes", "toward_freeze")
_MAX_FREEZES = 2
_FREEZE_EVERY = 7
_BATCH = 5000


def _walk(dates: Sequence[dt.date], solved: set[dt.date]) -> dict[str, object]:
    """Walk the rounds up to the latest solved one; return the anchor's columns."""
    current = best = freezes = toward = 0
    last = max(solved)
    through = 0
    for day in dates:
        if day > last:
            break
        through += 1
        if day in solved:
            toward += 1
            if toward == _FREEZE_EVERY:
                freezes, toward = min(_MAX_FREEZES, freezes + 1), 0
            current += 1
            best = max(best, current)
        elif freezes and current:
            freezes, toward = freezes - 1, 0
        else:
            current = freezes = toward = 0
    return {"streak_on": last, "streak_through": through, "streak": current,
            "best_streak": best, "freezes": freezes, "toward_freeze": toward}


def upgrade() -> None:
    """Add the streak columns and fill them from the answers already stored."""
    op.add_column("score_totals", sa.Column("streak_on", sa.Date(), nullable=True))
    for name in _COUNTERS:
        op.add_column("score_totals", sa.Column(name, sa.Integer(), nullable=False,
                                                server_default=sa.text("0")))
    bind = op.get_bind()
    dates: dict[int, list[dt.date]] = defaultdict(list)
    for channel_id, day in bind.execute(sa.text(
            "SELECT channel_id, local_date FROM rounds ORDER BY channel_id, local_date")):
        dates[channel_id].append(_date(day))
    solved: dict[tuple[int, int], set[dt.date]] = defaultdict(set)
    for channel_id, user_id, day in bind.execute(sa.text(
            "SELECT DISTINCT r.channel_id, a.user_id, r.local_date FROM answers a"
            " JOIN rounds r ON r.id = a.round_id"
            " WHERE a.correct = :yes AND a.user_id IS NOT NULL"), {"yes": True}):
        solved[(channel_id, user_id)].add(_date(day))
    update = sa.text(
        "UPDATE score_totals SET streak_on = :streak_on, streak_through = :streak_through,"
        " streak = :streak, best_streak = :best_streak, freezes = :freezes,"
        " toward_freeze = :toward_freeze WHERE channel_id = :channel_id AND user_id = :user_id")
    rows = [{"channel_id": channel_id, "user_id": user_id, **_walk(dates[channel_id], days)}
            for (channel_id, user_id), days in solved.items()]
    for start in range(0, len(rows), _BATCH):
        bind.execute(update, rows[start:start + _BATCH])


def _date(value: object) -> dt.date:
    """Return a date column's value as a date (SQLite's text reads back as text here)."""
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value))


def downgrade() -> None:
    """Drop the streak columns; the boards of 0014 replay the answers instead."""
    for name in ("streak_on", *_COUNTERS):
        if op.get_bind().dialect.name == "sqlite":
            # SQLite 3.35+ drops a plain column in place; a batch copy would trip the keys.
            op.execute(f"ALTER TABLE score_totals DROP COLUMN {name}")
        else:
            op.drop_column("score_totals", name)
