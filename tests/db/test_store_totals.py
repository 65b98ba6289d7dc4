"""Totals kept with every answer: the board's rows, a member's score, streak dates, races."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.core.kernel.models import ChannelUpdate, ScoreRow, week_start
from tests.db.builders import DAY, HOUR, T0, answer, make_channel, make_member, open_round, race

WEEK = dt.timedelta(days=7)


def _tie(store, channel, names, at=T0, points=10):
    round_ = open_round(store, channel)
    members = [make_member(store, f"U{n}", name) for n, name in enumerate(names)]
    for member in members:
        answer(store, round_, member, at=at, points=points)
    return members


def test_top_scores_bring_a_tie_at_the_cut_whole(store):
    channel = make_channel(store)
    _tie(store, channel, ["zed", "amy", "max"])
    rows = store.top_scores(channel.id, None, 1)
    assert sorted(r.display_name for r in rows) == ["amy", "max", "zed"]


def test_top_scores_stop_at_the_limit_without_a_tie(store):
    channel = make_channel(store)
    round_ = open_round(store, channel)
    for n in range(4):
        answer(store, round_, make_member(store, f"U{n}", f"m{n}"), at=T0 + n * HOUR)
    assert [r.display_name for r in store.top_scores(channel.id, None, 2)] == ["m0", "m1"]


def test_top_scores_leave_out_members_without_points(store):
    channel = make_channel(store)
    round_ = open_round(store, channel)
    answer(store, round_, make_member(store, "U1", "Ada"), correct=False, points=0)
    assert store.top_scores(channel.id, None, None) == []


def test_top_scores_of_a_week_count_only_that_week(store):
    channel = make_channel(store, timezone="Asia/Shanghai")
    ada = make_member(store)
    answer(store, open_round(store, channel, DAY), ada, at=T0, points=10)
    answer(store, open_round(store, channel, DAY + dt.timedelta(7)), ada, attempt=1,
           at=T0 + WEEK, points=4)
    week = week_start(T0 + WEEK, "Asia/Shanghai")
    [row] = store.top_scores(channel.id, week, 20)
    assert (row.points, row.solved) == (4, 1)
    [total] = store.top_scores(channel.id, None, 20)
    assert total.points == 14


def test_member_score_holds_the_all_time_totals(store):
    channel = make_channel(store)
    ada = make_member(store)
    day1, day2 = open_round(store, channel, DAY), open_round(store, channel, DAY + dt.timedelta(1))
    answer(store, day1, ada, 1, correct=False, points=0, at=T0)
    answer(store, day1, ada, 2, correct=True, points=7, at=T0 + HOUR)
    answer(store, day2, ada, 1, correct=True, points=15, at=T0 + 25 * HOUR)
    assert store.member_score(channel.id, ada.id) == ScoreRow(
        ada.id, "Ada", 22, 2, 1, T0 + 25 * HOUR, 2
    )


def test_member_score_of_someone_who_never_answered_is_none(store):
    assert store.member_score(make_channel(store).id, make_member(store).id) is None


def test_a_repeated_attempt_adds_nothing_to_the_totals(store):
    channel = make_channel(store)
    ada = make_member(store)
    round_ = open_round(store, channel)
    answer(store, round_, ada, points=10)
    assert answer(store, round_, ada, points=10) is None
    assert store.member_score(channel.id, ada.id).points == 10


def test_a_solve_after_a_solve_counts_the_round_once(store):
    channel = make_channel(store)
    ada = make_member(store)
    round_ = open_round(store, channel)
    answer(store, round_, ada, 1, points=10, at=T0)
    answer(store, round_, ada, 2, points=5, at=T0 + HOUR)
    score = store.member_score(channel.id, ada.id)
    assert (score.points, score.solved, score.attempted, score.first_try) == (15, 1, 1, 1)
    assert score.last_solved_at == T0 + HOUR


def test_recent_solved_dates_start_at_since_and_skip_members_without_solves(store):
    channel = make_channel(store)
    ada, bob = make_member(store, "U1", "Ada"), make_member(store, "U2", "Bob")
    days = [DAY + dt.timedelta(n) for n in range(3)]
    rounds = [open_round(store, channel, day, item=f"i{n}") for n, day in enumerate(days)]
    for round_ in rounds:
        answer(store, round_, ada)
    answer(store, rounds[2], bob, correct=False, points=0)
    assert store.recent_solved_dates(channel.id, [ada.id, bob.id], days[1]) == {
        ada.id: days[1:]
    }
    assert store.recent_solved_dates(channel.id, [ada.id], None) == {ada.id: days}


def test_recent_solved_dates_take_more_members_than_one_query_holds(store):
    channel = make_channel(store)
    ada = make_member(store)
    answer(store, open_round(store, channel), ada)
    many = [ada.id, *range(10_000, 11_200)]  # over the per-query chunk of ids
    assert store.recent_solved_dates(channel.id, many, None) == {ada.id: [DAY]}


def test_a_new_zone_recounts_the_current_week(store, clock):
    # 23:30 UTC on Sunday is already Monday in Shanghai: the answer moves into this week.
    sunday_night = dt.datetime(2026, 3, 8, 23, 30, tzinfo=dt.UTC)
    channel = make_channel(store, timezone="UTC")
    ada = make_member(store)
    answer(store, open_round(store, channel, dt.date(2026, 3, 8), opened=sunday_night), ada,
           at=sunday_night, points=10)
    clock.set(sunday_night + dt.timedelta(minutes=10))
    assert store.top_scores(channel.id, week_start(clock.now(), "UTC"), 20)[0].points == 10
    store.update_channel(channel.id, ChannelUpdate(timezone="Asia/Shanghai"))
    shanghai_week = week_start(clock.now(), "Asia/Shanghai")
    assert [r.points for r in store.top_scores(channel.id, shanghai_week, 20)] == [10]
    store.update_channel(channel.id, ChannelUpdate(timezone="America/Los_Angeles"))
    # Still Sunday in Los Angeles: the week began six days earlier and holds the answer too.
    la_week = week_start(clock.now(), "America/Los_Angeles")
    assert la_week < sunday_night
    assert [r.points for r in store.top_scores(channel.id, la_week, 20)] == [10]


@pytest.mark.parametrize("shared", [True, False], ids=["one-engine", "two-engines"])
def test_racing_attempts_of_one_member_count_the_round_once(store, database_url, shared):
    channel = make_channel(store)
    ada = make_member(store)
    round_ = open_round(store, channel)
    attempts = iter([1, 2])
    results = race(
        database_url,
        lambda s: answer(s, round_, ada, next(attempts), correct=True, points=10),
        shared=shared,
    )
    assert all(r is not None for r in results)
    score = store.member_score(channel.id, ada.id)
    assert (score.points, score.solved, score.attempted) == (20, 1, 1)
