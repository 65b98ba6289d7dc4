"""/stats team's per-item counts kept with answers equal a count of every answer."""

import datetime as dt
import random

from db.store_answers import recount_items
from tests.db.builders import DAY, HOUR, T0, answer, make_channel, make_member, open_round


def _recounted(store, channel):
    with store._transaction() as session:
        recount_items(session, [channel.id])
    return store.channel_item_results(channel.id)


def _history(store, channel, people, rounds=12, seed=3):
    rng = random.Random(seed)  # noqa: S311 - a reproducible history
    for day in range(rounds):
        rnd = open_round(store, channel, DAY + dt.timedelta(days=day), item=f"i{day % 4}",
                         opened=T0 + dt.timedelta(days=day))
        for person in people:
            for attempt in range(1, rng.randrange(0, 4) + 1):
                right = rng.random() < 0.5
                answer(store, rnd, person, attempt, correct=right, points=10 if right else 0,
                       at=T0 + dt.timedelta(days=day) + attempt * HOUR)
                if right:
                    break
        if day < rounds - 1:
            store.close_round(rnd.id, T0 + dt.timedelta(days=day, hours=23))


def test_every_answer_keeps_the_item_counts_equal_to_a_count_of_the_answers(store):
    channel = make_channel(store)
    _history(store, channel, [make_member(store, f"U{n}", f"m{n}") for n in range(5)])
    kept = store.channel_item_results(channel.id)
    assert kept and kept == _recounted(store, channel)


def test_forgetting_a_member_takes_their_rounds_out_of_the_item_counts(store):
    channel = make_channel(store)
    people = [make_member(store, f"U{n}", f"m{n}") for n in range(3)]
    _history(store, channel, people)
    before = {item: answered for item, answered, _, _ in store.channel_item_results(channel.id)}
    store.forget_member("slack", "U0")
    kept = store.channel_item_results(channel.id)
    assert kept == _recounted(store, channel)
    # Their tries at the closed rounds go; at the open one they stay, without them.
    assert sum(a for _, a, _, _ in kept) < sum(before.values())
