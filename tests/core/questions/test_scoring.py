import datetime as dt

import pytest

from bot.core.kernel.models import ScoreRow
from bot.core.questions.scoring import (
    best_streak,
    current_streak,
    points_for,
    rank,
    streak_window,
    week_start,
)

D = [dt.date(2026, 3, d) for d in range(1, 11)]


@pytest.mark.parametrize(("difficulty", "attempt", "correct", "points"), [
    (1, 1, True, 15), (2, 1, True, 25), (3, 1, True, 35),
    (2, 2, True, 17), (2, 3, True, 14), (1, 5, True, 5), (3, 5, True, 18),
    (3, 1, False, 0),
])
def test_points_follow_the_documented_table(difficulty, attempt, correct, points):
    assert points_for(difficulty, attempt, correct) == points


def test_streak_counts_consecutive_solved_rounds():
    assert current_streak(D[:5], [D[2], D[3], D[4]], None) == 3


def test_missed_round_breaks_the_streak():
    assert current_streak(D[:5], [D[0], D[1], D[2], D[4]], None) == 1


def test_day_without_a_round_does_not_break_the_streak():
    rounds = [D[0], D[1], D[4]]  # the bot was down on days 3 and 4
    assert current_streak(rounds, rounds, None) == 3


def test_open_round_does_not_break_the_streak_yet():
    assert current_streak(D[:4], D[:3], open_date=D[3]) == 3


def test_unsolved_closed_round_breaks_it_even_if_it_was_the_last():
    assert current_streak(D[:4], D[:3], open_date=None) == 0


def test_best_streak_finds_the_longest_run():
    assert best_streak(D[:8], [D[0], D[1], D[3], D[4], D[5], D[7]]) == 3


def test_week_starts_monday_midnight_in_the_channel_zone():
    now = dt.datetime(2026, 3, 4, 1, 0, tzinfo=dt.UTC)  # Wednesday
    assert week_start(now, "Asia/Shanghai") == dt.datetime(2026, 3, 1, 16, 0, tzinfo=dt.UTC)


def _row(uid, name, points, solved=1, at=None):
    return ScoreRow(uid, name, points, solved, 0, at)


def test_rank_orders_by_points_then_solved_then_earliest():
    t0 = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    rows = [
        _row(1, "ann", 20, 1, t0 + dt.timedelta(hours=2)),
        _row(2, "bea", 20, 1, t0),
        _row(3, "cal", 20, 2, t0),
        _row(4, "dan", 30, 1, t0),
    ]
    ranked = rank(rows, {})
    assert [r.display_name for r in ranked] == ["dan", "cal", "bea", "ann"]
    assert [r.rank for r in ranked] == [1, 2, 3, 4]


def test_full_ties_share_a_rank_and_list_by_name():
    t0 = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    ranked = rank([_row(2, "zed", 10, 1, t0), _row(1, "amy", 10, 1, t0), _row(3, "max", 5)], {})
    assert [(r.rank, r.display_name) for r in ranked] == [(1, "amy"), (1, "zed"), (3, "max")]


def test_members_without_points_are_not_ranked():
    assert rank([_row(1, "a", 0, 0)], {}) == []


def test_a_window_with_three_missed_rounds_in_a_row_tells_the_streak():
    # D0..D2 missed: whatever was held before, no streak survives three misses.
    assert streak_window(D[:6], [D[3], D[4], D[5]], None, complete=False).current == 3


def test_a_window_without_such_a_gap_cannot_tell():
    # Only the latest rounds were passed: the streak (and its freezes) may go on further back.
    assert streak_window(D[2:5], D[:5], None, complete=False) is None


def test_a_complete_window_always_tells_and_skips_the_open_round():
    assert streak_window(D[:3], D[:2], open_date=D[2], complete=True).current == 2
