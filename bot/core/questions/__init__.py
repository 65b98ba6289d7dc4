"""Questions: how any question is shown, judged, scored and scheduled for review.

Shared by the daily rounds and private practice.
"""

from bot.core.questions import diagnostics, posts
from bot.core.questions.answers import (
    Judgement,
    check_input,
    gradable,
    hidden_test_seed,
    judge,
    round_seed,
    syntax_problem,
)
from bot.core.questions.reviews import ReviewScheduler
from bot.core.questions.scoring import (
    BASE_POINTS,
    MAX_ATTEMPTS,
    StreakState,
    points_for,
    rank,
    replay_streak,
    streak_window,
    week_start,
)

__all__ = [
    "BASE_POINTS",
    "MAX_ATTEMPTS",
    "Judgement",
    "ReviewScheduler",
    "StreakState",
    "check_input",
    "diagnostics",
    "gradable",
    "hidden_test_seed",
    "judge",
    "points_for",
    "posts",
    "rank",
    "replay_streak",
    "round_seed",
    "streak_window",
    "syntax_problem",
    "week_start",
]
