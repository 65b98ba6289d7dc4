"""The weekly board is claimed once per channel and week (migration 0025).

Found by the soak run (tests/soak): with two replicas every weekly board was posted twice, as
each replica's scheduler fires at the board's hour.
"""

from __future__ import annotations

import datetime as dt

from bot.core.kernel.models import week_start
from tests.db.builders import T0, make_channel, race


def test_a_week_is_claimed_once_and_the_next_week_again(store):
    channel = make_channel(store)
    week = week_start(T0, channel.timezone)
    assert store.claim_weekly_board(channel.id, week, T0) is True
    assert store.claim_weekly_board(channel.id, week, T0 + dt.timedelta(minutes=1)) is False
    assert store.claim_weekly_board(channel.id, week + dt.timedelta(days=7), T0) is True


def test_each_channel_has_its_own_claim(store):
    first, second = make_channel(store, "C1"), make_channel(store, "C2")
    week = week_start(T0, first.timezone)
    assert store.claim_weekly_board(first.id, week, T0) is True
    assert store.claim_weekly_board(second.id, week, T0) is True


def test_of_replicas_racing_for_a_week_exactly_one_wins(database_url, store):
    channel = make_channel(store)
    week = week_start(T0, channel.timezone)
    won = race(database_url, lambda s: s.claim_weekly_board(channel.id, week, T0),
               contenders=3)
    assert sorted(won) == [False, False, True]
