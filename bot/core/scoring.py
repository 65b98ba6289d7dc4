"""Points, attempts, streaks and leaderboard order: the rules the README documents."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence

# week_start lives with the values because storage keeps weekly totals by the same rule.
from bot.core.models import LeaderboardRow, ScoreRow, week_start

__all__ = [
    "BASE_POINTS", "FIRST_TRY_BONUS", "MAX_ATTEMPTS", "WRONG_TRY_PENALTY", "best_streak",
    "current_streak", "points_for", "rank", "streak_run", "week_start",
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


def current_streak(
    round_dates: Sequence[dt.date], solved: Iterable[dt.date], open_date: dt.date | None
) -> int:
    """Count the channel's most recent consecutive rounds the member solved.

    Streaks run over the channel's rounds by local date, so a day without a round (downtime, a
    paused channel) never breaks one. Grace rule: the round that is still open does not break a
    streak; the member can still answer it.
    """
    return streak_run(round_dates, solved, open_date)[0]


def streak_run(
    round_dates: Sequence[dt.date], solved: Iterable[dt.date], open_date: dt.date | None
) -> tuple[int, bool]:
    """Return the current streak over ``round_dates`` and whether a missed round ended it.

    When it was not ended, the streak may go on in rounds older than ``round_dates`` (a caller
    that passed only the latest rounds must look further back).
    """
    solved_set = set(solved)
    count = 0
    for day in reversed(round_dates):
        if day in solved_set:
            count += 1
        elif day == open_date:
            continue
        else:
            return count, True
    return count, False


def best_streak(round_dates: Sequence[dt.date], solved: Iterable[dt.date]) -> int:
    """Return the longest run of consecutive channel rounds the member solved."""
    solved_set = set(solved)
    best = run = 0
    for day in round_dates:
        run = run + 1 if day in solved_set else 0
        best = max(best, run)
    return best


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
