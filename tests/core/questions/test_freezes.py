"""Streak freezes: earned every 7 solved rounds in a row, at most 2 held, spent on a miss."""

import datetime as dt
import random
from zoneinfo import ZoneInfo

import pytest

from bot.core.kernel.models import ChannelUpdate
from bot.core.questions.scoring import (
    FREEZE_EVERY,
    MAX_FREEZES,
    StreakState,
    best_streak,
    replay_streak,
    streak_window,
)
from tests.support.core import only

START = dt.date(2026, 3, 1)


def _days(n, start=START):
    return [start + dt.timedelta(days=i) for i in range(n)]


def _state(pattern, open_last=False):
    """Replay a pattern like "SSSSSSS.S" (S solved, . missed) over consecutive rounds."""
    dates = _days(len(pattern))
    solved = [d for d, mark in zip(dates, pattern, strict=True) if mark == "S"]
    return replay_streak(dates, solved, dates[-1] if open_last else None)


def test_seven_solved_rounds_in_a_row_earn_one_freeze():
    assert _state("S" * 6).freezes == 0
    assert _state("S" * 7) == StreakState(current=7, best=7, freezes=1, toward_freeze=0)


def test_a_member_holds_at_most_two_freezes():
    assert _state("S" * 14).freezes == MAX_FREEZES == 2
    assert _state("S" * 21).freezes == 2
    assert _state("S" * 60).freezes == 2


def test_a_freeze_earned_and_used_the_same_week_keeps_the_streak_without_counting_the_day():
    state = _state("SSSSSSS.S")  # Monday to Sunday solved, Monday missed, Tuesday solved
    assert (state.current, state.freezes) == (8, 0)


def test_a_miss_without_a_freeze_ends_the_streak():
    assert _state("SSSSSS.S").current == 1


def test_three_missed_days_with_two_freezes_end_the_streak():
    assert _state("S" * 14 + "..").current == 14  # two misses, two freezes: still going
    after = _state("S" * 14 + "...")
    assert (after.current, after.freezes, after.best) == (0, 0, 14)
    assert _state("S" * 14 + "...S").current == 1


def test_two_misses_apart_spend_one_freeze_each():
    state = _state("S" * 14 + ".SS.S")
    assert (state.current, state.freezes) == (17, 0)


def test_a_used_freeze_starts_the_count_to_the_next_one_over():
    assert _state("S" * 7 + "." + "S" * 6).freezes == 0
    assert _state("S" * 7 + "." + "S" * 7).freezes == 1


def test_the_open_round_spends_no_freeze_before_it_closes():
    state = _state("S" * 7 + ".", open_last=True)
    assert (state.current, state.freezes) == (7, 1)


def test_best_streak_carries_through_a_frozen_day():
    dates = _days(12)
    solved = dates[:7] + dates[8:11]
    assert best_streak(dates, solved) == 10


def test_a_day_without_a_round_is_neither_solved_nor_missed():
    # No round on the 8th (downtime): the channel's rounds skip it, so no freeze is spent.
    dates = [d for d in _days(10) if d != START + dt.timedelta(days=7)]
    state = replay_streak(dates, dates, None)
    assert (state.current, state.freezes) == (9, 1)


@pytest.mark.parametrize("seed", range(40))
def test_reading_only_the_latest_rounds_agrees_with_the_whole_replay(seed):
    draw = random.Random(seed)  # noqa: S311 - a reproducible history, not a secret
    dates = _days(draw.randint(20, 90))
    rate = draw.choice([0.5, 0.8, 0.95])
    solved = [d for d in dates if draw.random() < rate]
    whole = replay_streak(dates, solved, None)
    window = 4
    while True:
        recent = dates[-window:]
        state = streak_window(recent, solved, None, complete=len(recent) == len(dates))
        if state is not None:
            break
        window *= 2
    assert (state.current, state.freezes) == (whole.current, whole.freezes)


# Through the real service and store: rounds posted at 09:00 local, across DST and zone changes.


def _play_days(quiz, channel, clock, member, days, solved_days):
    """Post one round per local day at 09:00 in the channel's zone; solve those in solved_days."""
    for local_day in days:
        zone = ZoneInfo(quiz.rounds.store.get_channel(channel.id).timezone)
        clock.set(dt.datetime.combine(local_day, dt.time(9, 0), tzinfo=zone))
        quiz.rounds.close_due_rounds()
        quiz.rounds.post_round(channel.id)
        if local_day in solved_days:
            quiz.rounds.submit_answer(channel.id, member, "detach")
    clock.advance(days=1)
    quiz.rounds.close_due_rounds()


@pytest.mark.parametrize(("zone", "spring", "autumn"), [
    ("Europe/Berlin", dt.date(2026, 3, 29), dt.date(2026, 10, 25)),
    ("America/New_York", dt.date(2026, 3, 8), dt.date(2026, 11, 1)),
])
@pytest.mark.parametrize("season", ["spring", "autumn"])
def test_a_freeze_covers_the_day_of_a_dst_change(quiz, channel, clock, alice, zone, spring,
                                                 autumn, season):
    change = spring if season == "spring" else autumn
    channel = only(quiz, quiz.rounds.store.update_channel(channel.id,
                                                          ChannelUpdate(timezone=zone)),
                   "t.text-detach")
    days = _days(10, change - dt.timedelta(days=7))  # seven before the change, then 3 more
    missed = change  # the 23- or 25-hour day itself
    _play_days(quiz, channel, clock, alice, days, set(days) - {missed})
    dates = quiz.rounds.store.round_dates(channel.id)
    assert dates == days  # one round per local day, the short or long one included
    stats = quiz.board.stats(channel, alice.member)
    assert (stats.streak, stats.freezes) == (9, 0)


def test_a_zone_change_that_skips_a_local_date_spends_no_freeze(quiz, channel, clock, alice):
    # Asia/Tokyo 09:00 on the 10th is the 9th in New York; moving the channel to New York
    # makes the next 09:00 local the 10th again, which already had its round: no round that
    # day, so nothing is missed.
    channel = only(quiz, quiz.rounds.store.update_channel(
        channel.id, ChannelUpdate(timezone="Asia/Tokyo")), "t.text-detach")
    first = _days(7, dt.date(2026, 3, 4))
    _play_days(quiz, channel, clock, alice, first, set(first))
    quiz.rounds.store.update_channel(channel.id, ChannelUpdate(timezone="America/New_York"))
    later = _days(3, dt.date(2026, 3, 10))
    _play_days(quiz, channel, clock, alice, later, set(later))
    dates = quiz.rounds.store.round_dates(channel.id)
    assert dates == _days(9, dt.date(2026, 3, 4))  # the 10th once: nine rounds in ten days
    stats = quiz.board.stats(channel, alice.member)
    assert (stats.streak, stats.freezes) == (9, 1)


def test_the_board_and_stats_agree_on_a_frozen_streak(quiz, channel, clock, alice):
    channel = only(quiz, channel, "t.text-detach")
    days = _days(FREEZE_EVERY + 3)
    _play_days(quiz, channel, clock, alice, days, set(days) - {days[FREEZE_EVERY]})
    rows = quiz.board.rows(channel, "all")
    stats = quiz.board.stats(channel, alice.member)
    assert rows[0].streak == stats.streak == FREEZE_EVERY + 2
    assert stats.best_streak == FREEZE_EVERY + 2 and stats.freezes == 0


def test_the_boards_and_the_weekly_post_show_the_freezes_a_member_holds(quiz, channel, clock,
                                                                        alice):
    channel = only(quiz, channel, "t.text-detach")
    days = _days(FREEZE_EVERY + 1)
    _play_days(quiz, channel, clock, alice, days, set(days))
    row = quiz.board.rows(channel, "all")[0]
    assert (row.streak, row.freezes) == (FREEZE_EVERY + 1, 1)
    board = quiz.board.leaderboard(channel, "all", "en")
    assert f"{FREEZE_EVERY + 1}❄" in board.code and "streak freeze" in board.footer
    # The weekly post of the week that ends with the last played day.
    zone = ZoneInfo(quiz.rounds.store.get_channel(channel.id).timezone)
    clock.set(dt.datetime.combine(days[-1], dt.time(20, 0), tzinfo=zone))
    weekly = quiz.board.weekly_post(channel.id).message
    assert "❄" in weekly.code and "streak freeze" in weekly.footer
