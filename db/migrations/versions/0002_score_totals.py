"""Keep leaderboard totals per member: all time and per week, backfilled from the answers.

Boards read these few rows instead of every answer of a channel (docs/storage.md). Written by
hand and frozen like 0001: it folds the answers with its own copy of the rule in db/totals.py.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 5000


def _totals_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("first_try", sa.Integer(), nullable=False),
        sa.Column("attempted", sa.Integer(), nullable=False),
        sa.Column("last_solved_at", sa.DateTime(timezone=True), nullable=True),
    ]


def _keys(table: str) -> list[sa.Constraint]:
    return [
        sa.ForeignKeyConstraint(
            ["channel_id"], ["channels.id"], name=f"fk_{table}_channel_id_channels"
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=f"fk_{table}_user_id_users"),
    ]


def upgrade() -> None:
    op.create_table(
        "score_totals",
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        *_totals_columns(),
        *_keys("score_totals"),
        sa.PrimaryKeyConstraint("channel_id", "user_id", name="pk_score_totals"),
    )
    op.create_index(
        "ix_score_totals_channel_id_points_solved",
        "score_totals",
        ["channel_id", "points", "solved"],
    )
    op.create_table(
        "week_totals",
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("week_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        *_totals_columns(),
        *_keys("week_totals"),
        sa.PrimaryKeyConstraint("channel_id", "week_start", "user_id", name="pk_week_totals"),
    )
    op.create_index(
        "ix_week_totals_channel_id_week_start_points_solved",
        "week_totals",
        ["channel_id", "week_start", "points", "solved"],
    )
    _backfill_all_time()
    _backfill_weeks()


def downgrade() -> None:
    op.drop_index("ix_week_totals_channel_id_week_start_points_solved", table_name="week_totals")
    op.drop_table("week_totals")
    op.drop_index("ix_score_totals_channel_id_points_solved", table_name="score_totals")
    op.drop_table("score_totals")


# The tables as this revision knows them (never the models, which move on).
_answers = sa.table(
    "answers",
    sa.column("id", sa.Integer()),
    sa.column("round_id", sa.Integer()),
    sa.column("user_id", sa.Integer()),
    sa.column("attempt", sa.Integer()),
    sa.column("correct", sa.Boolean()),
    sa.column("points", sa.Integer()),
    sa.column("submitted_at", sa.DateTime(timezone=True)),
)
_rounds = sa.table("rounds", sa.column("id", sa.Integer()), sa.column("channel_id", sa.Integer()))
_channels = sa.table("channels", sa.column("id", sa.Integer()), sa.column("timezone", sa.String()))
_week_totals = sa.table(
    "week_totals",
    sa.column("channel_id", sa.Integer()),
    sa.column("week_start", sa.DateTime(timezone=True)),
    sa.column("user_id", sa.Integer()),
    sa.column("points", sa.Integer()),
    sa.column("solved", sa.Integer()),
    sa.column("first_try", sa.Integer()),
    sa.column("attempted", sa.Integer()),
    sa.column("last_solved_at", sa.DateTime(timezone=True)),
)


def _backfill_all_time() -> None:
    """Count every member's all-time totals per channel in one statement."""
    a, r = _answers.c, _rounds.c
    solved_round = sa.case((a.correct, a.round_id))
    totals = (
        sa.select(
            r.channel_id,
            a.user_id,
            sa.func.sum(a.points),
            sa.func.count(sa.distinct(solved_round)),
            sa.func.count(sa.case((sa.and_(a.correct, a.attempt == 1), 1))),
            sa.func.count(sa.distinct(a.round_id)),
            sa.func.max(sa.case((a.correct, a.submitted_at))),
        )
        .select_from(_answers.join(_rounds, r.id == a.round_id))
        .group_by(r.channel_id, a.user_id)
    )
    target = sa.table(
        "score_totals",
        *(sa.column(name) for name in ("channel_id", "user_id", "points", "solved", "first_try",
                                       "attempted", "last_solved_at")),
    )
    op.execute(target.insert().from_select(list(target.c.keys()), totals))


def _utc(value: dt.datetime) -> dt.datetime:
    # SQLite hands timestamps back without their zone; they were stored as UTC.
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def _week_start(at: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    """Monday 00:00 in the zone of the week holding ``at``, as UTC (bot.core.kernel.models)."""
    local = at.astimezone(zone)
    monday = local.date() - dt.timedelta(days=local.weekday())
    return dt.datetime.combine(monday, dt.time(0, 0), tzinfo=zone).astimezone(dt.UTC)


def _backfill_weeks() -> None:
    """Count every member's totals per week, by each channel's present zone, in Python.

    Weeks depend on the zone, which SQLite cannot compute; answers stream round by round, so
    only one round's distinct members are held at a time.
    """
    bind = op.get_bind()
    a, r = _answers.c, _rounds.c
    for channel_id, timezone in bind.execute(sa.select(_channels.c.id, _channels.c.timezone)):
        zone = ZoneInfo(timezone)
        totals: dict[tuple[dt.datetime, int], list[Any]] = {}
        seen: set[tuple[dt.datetime, int]] = set()
        solved: set[tuple[dt.datetime, int]] = set()
        current_round = None
        rows = bind.execute(
            sa.select(a.round_id, a.user_id, a.attempt, a.correct, a.points, a.submitted_at)
            .select_from(_answers.join(_rounds, r.id == a.round_id))
            .where(r.channel_id == channel_id)
            .order_by(a.round_id),
            execution_options={"yield_per": 10_000},
        )
        for round_id, user_id, attempt, correct, points, submitted_at in rows:
            if round_id != current_round:
                current_round = round_id
                seen.clear()
                solved.clear()
            at = _utc(submitted_at)
            key = (_week_start(at, zone), user_id)
            total = totals.setdefault(key, [0, 0, 0, 0, None])
            total[0] += points
            if key not in seen:
                seen.add(key)
                total[3] += 1
            if correct:
                total[2] += attempt == 1
                if key not in solved:
                    solved.add(key)
                    total[1] += 1
                if total[4] is None or at > total[4]:
                    total[4] = at
        batch = [
            {
                "channel_id": channel_id,
                "week_start": week,
                "user_id": user_id,
                "points": t[0],
                "solved": t[1],
                "first_try": t[2],
                "attempted": t[3],
                "last_solved_at": t[4],
            }
            for (week, user_id), t in totals.items()
        ]
        for start in range(0, len(batch), _BATCH):
            bind.execute(_week_totals.insert(), batch[start : start + _BATCH])
