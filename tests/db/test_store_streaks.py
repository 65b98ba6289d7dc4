"""The streak stored with each member's totals equals a replay of their solved rounds."""

import datetime as dt
import random

import pytest

from bot.core.boards.board import BoardService
from bot.core.questions.scoring import replay_streak
from content.loader import load_bank
from tests.db.builders import DAY, HOUR, T0, answer, make_channel, make_member, open_round
from tests.support.core import BANK


@pytest.fixture(scope="module")
def bank():
    return load_bank(BANK)


def _replayed(store, channel, member, open_date=None):
    dates = store.round_dates(channel.id)
    return replay_streak(dates, store.solved_dates(channel.id, member.id), open_date)


def _stored(store, channel, member):
    read = store.board_read(channel.id, None, None)
    return read.anchors[member.id], read.rounds


def _rounds(store, channel, days):
    return [open_round(store, channel, DAY + dt.timedelta(days=d), item=f"i{d}",
                       opened=T0 + dt.timedelta(days=d)) for d in days]


def test_every_answer_keeps_the_stored_streak_equal_to_a_replay(store, bank, clock):
    rng = random.Random(7)  # noqa: S311 - a reproducible history
    channel = make_channel(store)
    people = [make_member(store, f"U{n}", f"m{n}") for n in range(4)]
    rounds = _rounds(store, channel, range(40))
    for rnd in rounds:
        for person in people:
            if rng.random() < 0.8:  # answers, mostly right: streaks, freezes, breaks
                right = rng.random() < 0.8
                answer(store, rnd, person, correct=right, points=10 if right else 0,
                       at=T0 + dt.timedelta(days=rnd.id - 1) + HOUR)
    clock.set(T0 + dt.timedelta(days=41))
    for person in people:
        anchor, count = _stored(store, channel, person)
        assert anchor.through == anchor.counted
        assert anchor.now(count, None) == _replayed(store, channel, person)


def test_a_late_solve_of_an_earlier_round_walks_the_streak_again(store, clock):
    channel, ada = make_channel(store), make_member(store)
    first, second, third = _rounds(store, channel, range(3))
    answer(store, third, ada, at=T0 + 50 * HOUR)
    answer(store, first, ada, at=T0 + 51 * HOUR)  # a code answer graded late, say
    anchor, count = _stored(store, channel, ada)
    assert anchor.solved_on == third.local_date
    assert anchor.now(count, None) == _replayed(store, channel, ada)
    answer(store, second, ada, at=T0 + 52 * HOUR)
    anchor, count = _stored(store, channel, ada)
    assert anchor.now(count, None).current == 3 == _replayed(store, channel, ada).current


def test_a_round_added_before_a_stored_streak_makes_the_board_walk_the_answers(
        store, bank, clock):
    channel, ada = make_channel(store), make_member(store)
    for rnd in _rounds(store, channel, [1, 2, 3]):
        answer(store, rnd, ada, at=T0 + dt.timedelta(days=rnd.local_date.day - DAY.day))
    _rounds(store, channel, [0])  # a round dated before all of them, missed
    anchor, count = _stored(store, channel, ada)
    assert anchor.now(count, None) is None  # stale: no longer counts the rounds before it
    clock.set(T0 + dt.timedelta(days=4))
    [row] = BoardService(store, bank, clock).rows(channel, "all")
    assert row.streak == _replayed(store, channel, ada).current == 3


def test_the_next_solve_counts_a_stale_streak_again(store):
    channel, ada = make_channel(store), make_member(store)
    for rnd in _rounds(store, channel, [1, 2]):
        answer(store, rnd, ada, at=T0 + dt.timedelta(days=rnd.local_date.day - DAY.day))
    _rounds(store, channel, [0])
    [later] = _rounds(store, channel, [3])
    answer(store, later, ada, at=T0 + 80 * HOUR)
    anchor, count = _stored(store, channel, ada)
    assert anchor.through == anchor.counted == 4
    assert anchor.now(count, None) == _replayed(store, channel, ada)


def test_a_wrong_answer_leaves_the_stored_streak_as_it_was(store):
    channel, ada = make_channel(store), make_member(store)
    first, second = _rounds(store, channel, range(2))
    answer(store, first, ada, at=T0)
    before = _stored(store, channel, ada)
    answer(store, second, ada, correct=False, points=0, at=T0 + 25 * HOUR)
    assert _stored(store, channel, ada) == before


def test_the_open_round_neither_counts_nor_breaks_a_stored_streak(store, bank, clock):
    channel, ada = make_channel(store), make_member(store)
    rounds = _rounds(store, channel, range(3))
    for rnd in rounds[:2]:
        answer(store, rnd, ada, at=T0 + dt.timedelta(days=rnd.id - 1) + HOUR)
    clock.set(T0 + dt.timedelta(days=2, hours=1))  # the third round is open, not answered yet
    [row] = BoardService(store, bank, clock).rows(channel, "all")
    assert row.streak == 2 == _replayed(store, channel, ada, rounds[2].local_date).current
