"""SqlStore scores, solved dates and item results, on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt

from bot.core.kernel.models import (
    ItemResult,
)
from tests.db.builders import DAY, HOUR, T0, answer, make_channel, make_member, open_round

# scores


def test_scores_sum_points_and_count_solved_and_first_tries(store):
    channel = make_channel(store)
    day1, day2 = open_round(store, channel, DAY), open_round(store, channel, DAY + dt.timedelta(1))
    ada = make_member(store)
    answer(store, day1, ada, 1, correct=True, points=10, at=T0)
    answer(store, day2, ada, 1, correct=False, points=0, at=T0 + 24 * HOUR)
    answer(store, day2, ada, 2, correct=True, points=5, at=T0 + 25 * HOUR)
    [row] = store.scores(channel.id)
    assert (row.user_id, row.display_name, row.points, row.solved, row.first_try) == (
        ada.id,
        "Ada",
        15,
        2,
        1,
    )
    assert row.last_solved_at == T0 + 25 * HOUR


def test_scores_ignore_answers_before_since(store):
    channel = make_channel(store)
    ada = make_member(store)
    answer(store, open_round(store, channel, DAY), ada, at=T0, points=10)
    answer(
        store,
        open_round(store, channel, DAY + dt.timedelta(7)),
        ada,
        at=T0 + 7 * 24 * HOUR,
        points=4,
    )
    [row] = store.scores(channel.id, since=T0 + 7 * 24 * HOUR)
    assert (row.points, row.solved) == (4, 1)


def test_scores_ignore_other_channels(store):
    ada = make_member(store)
    answer(store, open_round(store, make_channel(store, "C1")), ada, points=10)
    answer(store, open_round(store, make_channel(store, "C2")), ada, points=7)
    assert [r.points for r in store.scores(store.find_channel("slack", "C2").id)] == [7]


def test_scores_break_point_ties_by_the_earlier_last_solve(store):
    channel = make_channel(store)
    round_ = open_round(store, channel)
    late, early = make_member(store, "U1", "Late"), make_member(store, "U2", "Early")
    answer(store, round_, late, at=T0 + 2 * HOUR, points=10)
    answer(store, round_, early, at=T0 + HOUR, points=10)
    assert [r.display_name for r in store.scores(channel.id)] == ["Early", "Late"]


def test_scores_include_members_who_only_missed(store):
    channel = make_channel(store)
    round_ = open_round(store, channel)
    ada, bob = make_member(store, "U1", "Ada"), make_member(store, "U2", "Bob")
    answer(store, round_, bob, correct=False, points=0)
    answer(store, round_, ada, correct=True, points=10)
    rows = store.scores(channel.id)
    assert [(r.display_name, r.points, r.solved, r.last_solved_at) for r in rows] == [
        ("Ada", 10, 1, T0),
        ("Bob", 0, 0, None),
    ]


def test_scores_of_a_quiet_channel_are_empty(store):
    assert store.scores(make_channel(store).id) == []


# solved dates and item results


def test_solved_dates_list_rounds_with_a_correct_answer_oldest_first(store):
    channel = make_channel(store)
    ada = make_member(store)
    days = [DAY + dt.timedelta(n) for n in range(3)]
    rounds = [open_round(store, channel, day, item=f"i{n}") for n, day in enumerate(days)]
    answer(store, rounds[2], ada, 1, correct=False)
    answer(store, rounds[2], ada, 2, correct=True)
    answer(store, rounds[1], ada, 1, correct=False)
    answer(store, rounds[0], ada, 1, correct=True)
    answer(store, open_round(store, make_channel(store, "C2"), days[1]), ada, correct=True)
    assert store.solved_dates(channel.id, ada.id) == [days[0], days[2]]


def test_item_results_give_the_final_outcome_per_round(store):
    round_ = open_round(store, make_channel(store), item="autograd.leaf")
    ada = make_member(store)
    answer(store, round_, ada, 1, correct=False, at=T0)
    answer(store, round_, ada, 2, correct=True, at=T0 + HOUR)
    answer(store, round_, ada, 3, correct=False, at=T0 + 2 * HOUR)
    assert store.item_results(ada.id) == [
        ItemResult(item_id="autograd.leaf", correct=True, answered_at=T0 + 2 * HOUR,
                   first_try=False)
    ]


def test_item_results_and_channel_tallies_tell_a_first_try_from_a_later_solve(store):
    ada, bo = make_member(store, "U1", "ada"), make_member(store, "U2", "bo")
    channel = make_channel(store)
    round_ = open_round(store, channel, item="autograd.leaf")
    answer(store, round_, ada, 1, correct=True, at=T0)
    answer(store, round_, bo, 1, correct=False, at=T0)
    answer(store, round_, bo, 2, correct=False, at=T0 + HOUR)
    answer(store, round_, bo, 3, correct=True, at=T0 + 2 * HOUR)
    assert [r.first_try for r in store.item_results(ada.id, channel.id)] == [True]
    assert [(r.correct, r.first_try) for r in store.item_results(bo.id, channel.id)] == [
        (True, False)]
    assert store.channel_item_results(channel.id) == [("autograd.leaf", 2, 2, 1)]


def test_item_results_include_practice_results_oldest_first(store):
    ada = make_member(store)
    answer(
        store,
        open_round(store, make_channel(store), item="daily"),
        ada,
        correct=False,
        at=T0 + HOUR,
    )
    store.record_practice_result(ada.id, "practice", 2, True, T0, first_try=True)
    assert store.item_results(ada.id) == [
        ItemResult("practice", True, T0, first_try=True),
        ItemResult("daily", False, T0 + HOUR, first_try=False),
    ]


def test_item_results_of_one_channel_skip_other_channels_rounds(store):
    ada = make_member(store)
    here = make_channel(store, "C1")
    answer(store, open_round(store, here, item="here"), ada)
    answer(store, open_round(store, make_channel(store, "C2"), item="there"), ada)
    assert [r.item_id for r in store.item_results(ada.id, here.id)] == ["here"]


def test_scores_count_rounds_attempted_once_however_many_tries(store):
    channel = make_channel(store)
    ada = make_member(store)
    day1, day2 = open_round(store, channel, DAY), open_round(store, channel, DAY + dt.timedelta(1))
    answer(store, day1, ada, 1, correct=False, points=0)
    answer(store, day1, ada, 2, correct=False, points=0)
    answer(store, day2, ada, 1, correct=True)
    [row] = store.scores(channel.id)
    assert (row.attempted, row.solved) == (2, 1)
