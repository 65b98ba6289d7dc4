"""The one-statement board read and the two-statement /stats read agree with the plain reads.

``board_read`` and ``member_read`` fold what ``top_scores``, ``hidden_with_points``,
``member_rank`` and ``member_score`` read apart into a round trip or two; these check them
against those reads on a channel with ties at every cut, hidden members, members who never
solved, and a week that holds only part of the history.
"""

import datetime as dt

import pytest

from bot.core.kernel.models import week_start
from tests.db.builders import DAY, T0, answer, make_channel, make_member, open_round

NOW = T0 + dt.timedelta(days=9, hours=10)


@pytest.fixture
def past(store):
    channel = make_channel(store)
    people = [make_member(store, f"U{n}", f"member {n % 4}") for n in range(14)]
    for day in range(9):
        round_ = open_round(store, channel, DAY + dt.timedelta(days=day),
                            opened=T0 + dt.timedelta(days=day))
        for n, person in enumerate(people):
            if (n + day) % 3 == 0:
                continue  # a missed round
            at = T0 + dt.timedelta(days=day, minutes=n % 3)  # equal instants: ties on every key
            if n % 5 == 0:
                answer(store, round_, person, correct=False, points=0, at=at)
                continue  # answered, never solved this round
            answer(store, round_, person, points=10 * (1 + n % 2), at=at)
    for person in people[1::4]:
        store.set_hidden(person.id, True)
    return channel, people


@pytest.mark.parametrize("limit", [None, 0, 1, 2, 3, 5, 8, 20])
@pytest.mark.parametrize("period", ["week", "all"])
def test_a_board_in_one_statement_equals_the_plain_reads(store, past, period, limit):
    channel, _ = past
    since = week_start(NOW, channel.timezone) if period == "week" else None
    read = store.board_read(channel.id, since, limit)
    assert read.scores == store.top_scores(channel.id, since, limit)
    assert read.hidden == store.hidden_with_points(channel.id, since)
    assert read.rounds == len(store.round_dates(channel.id))
    assert read.latest == store.latest_round(channel.id)
    shown = {row.user_id for row in read.scores}
    assert set(read.anchors) <= shown
    every = store.board_read(channel.id, None, None).anchors
    assert read.anchors == {uid: every[uid] for uid in shown if uid in every}


def test_stats_in_two_statements_equal_the_plain_reads(store, past):
    channel, people = past
    since = week_start(NOW, channel.timezone)
    anchors = store.board_read(channel.id, None, None).anchors
    for person in people:
        read = store.member_read(channel.id, person.id, NOW, since)
        assert read.score == store.member_score(channel.id, person.id)
        assert read.rank_week == store.member_rank(channel.id, person.id, since)
        assert read.rank_all == store.member_rank(channel.id, person.id, None)
        if not store.get_member(person.id).hidden:  # the board shows the visible ones only
            assert read.anchor == anchors.get(person.id)
        elif read.score.solved:
            assert read.anchor is not None and read.anchor.through == read.anchor.counted
        else:
            assert read.anchor is None
        assert read.rounds == 9


def test_stats_of_a_member_who_never_answered(store, past):
    channel, _ = past
    newcomer = make_member(store, "U-new", "newcomer")
    read = store.member_read(channel.id, newcomer.id, NOW, week_start(NOW, channel.timezone))
    assert (read.score, read.anchor, read.rank_week, read.rank_all) == (None, None, None, None)
    assert (read.rounds, read.results, read.due_items) == (9, [], [])
    assert read.latest == store.latest_round(channel.id)
