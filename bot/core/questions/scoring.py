"""Points, attempts, streaks and leaderboard order: the rules the README documents."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence

# week_start lives with the values because storage keeps weekly totals by the same rule.
from bot.core.kernel.models import LeaderboardRow, ScoreRow, week_start
from bot.core.kernel.streaks import (
    FREEZE_EVERY,
    MAX_FREEZES,
    StreakState,
    streak_step,
)

__all__ = [
    "BASE_POINTS", "FIRST_TRY_BONUS", "FREEZE_EVERY", "MAX_ATTEMPTS", "MAX_FREEZES",
    "WRONG_TRY_PENALTY", "StreakState", "best_streak", "current_streak", "points_for", "rank",
    "replay_streak", "streak_window", "week_start",
]

BASE_POINTS = {1: 10, 2: 20, 3: 30}
FIRST_TRY_BONUS = 5
WRONG_TRY_PENALTY = 3
# A multiple-choice question allows one try (otherwise anyone could click through the options);
# short text allows typos to be corrected; code allows iterating on a failing test.
MAX_ATTEMPTS = {"choice": 1, "text": 3, "code": 5}


def points_for(difficulty: int, attempt: int, correct: bool) -> int:
    """Return the points for an answer: base by difficulty, first-try bonus, penalty per retry."""
    if not correct:
        return 0
    base = BASE_POINTS[difficulty]
    if attempt == 1:
        return base + FIRST_TRY_BONUS
    return max(base // 2, base - WRONG_TRY_PENALTY * (attempt - 1))


# The rule itself is a value storage keeps streaks by (bot/core/kernel/streaks.py).
_step = streak_step


def replay_streak(
    round_dates: Sequence[dt.date], solved: Iterable[dt.date], open_date: dt.date | None,
    start: StreakState | None = None,
) -> StreakState:
    """Walk the channel's rounds oldest first, earning and spending freezes; return the state.

    Streaks run over the channel's rounds by local date, so a day without a round (downtime, a
    paused channel) never breaks one. Every ``FREEZE_EVERY`` solved rounds in a row earn a freeze
    (at most ``MAX_FREEZES`` held); a missed round uses one when the member holds one, and the
    streak goes on without counting that round; a missed round with none held ends it (the
    freezes are all spent by then). Grace rule: the round that is still open neither counts nor
    breaks anything yet; the member can still answer it.
    """
    solved_set = set(solved)
    state = start or StreakState()
    for day in round_dates:
        if day == open_date and day not in solved_set:
            continue
        state = _step(state, day in solved_set)
    return state


def streak_window(
    round_dates: Sequence[dt.date], solved: Iterable[dt.date], open_date: dt.date | None,
    complete: bool,
) -> StreakState | None:
    """Return the streak state from only the latest rounds, or None when they cannot tell.

    ``complete`` says ``round_dates`` are all the channel's rounds. Otherwise the walk starts
    after the latest ``MAX_FREEZES + 1`` missed rounds in a row, which end any streak whatever
    was held, so what came before cannot matter; with no such gap in the window the caller must
    read further back. ``best`` then covers the window only.
    """
    solved_set = set(solved)
    begin = 0
    if not complete:
        begin = -1
        missed = 0
        for index in range(len(round_dates) - 1, -1, -1):
            day = round_dates[index]
            if day in solved_set or day == open_date:
                missed = 0
                continue
            missed += 1
            if missed > MAX_FREEZES:
                begin = index + missed
                break
        if begin < 0:
            return None
    return replay_streak(round_dates[begin:], solved_set, open_date)


def current_streak(
    round_dates: Sequence[dt.date], solved: Iterable[dt.date], open_date: dt.date | None
) -> int:
    """Return the member's current streak over the channel's rounds, freezes applied."""
    return replay_streak(round_dates, solved, open_date).current


def best_streak(round_dates: Sequence[dt.date], solved: Iterable[dt.date]) -> int:
    """Return the longest streak the member had over the channel's rounds, freezes applied."""
    return replay_streak(round_dates, solved, None).best


def rank(rows: Iterable[ScoreRow], streaks: dict[int, int]) -> list[LeaderboardRow]:
    """Order by points, then solved, then who got there first, then name and id; number the ranks.

    Members with equal points, solved count and finishing time share a rank (competition
    ranking: 1, 2, 2, 4), and the name and id only fix the order in which they are listed.
    """
    far_future = dt.datetime.max.replace(tzinfo=dt.UTC)

    def key(row: ScoreRow) -> tuple[int, int, dt.datetime, str, int]:
        return (-row.points, -row.solved, row.last_solved_at or far_future,
                row.display_name.casefold(), row.user_id)

    ordered = sorted((r for r in rows if r.points > 0), key=key)
    ranked: list[LeaderboardRow] = []
    for position, row in enumerate(ordered, start=1):
        previous = ranked[-1] if ranked else None
        same = previous is not None and key(ordered[position - 2])[:3] == key(row)[:3]
        ranked.append(
            LeaderboardRow(
                rank=previous.rank if same and previous else position,
                user_id=row.user_id,
                display_name=row.display_name,
                points=row.points,
                solved=row.solved,
                streak=streaks.get(row.user_id, 0),
            )
        )
    return ranked
