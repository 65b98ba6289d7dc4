"""The per-topic board's totals kept with answers equal the recount of the answers they replace.

``topic_scores_recount`` is the board's former statement (every answer of the channel's rounds
of the topic's items, grouped per member): the reference. Each test compares it with the stored
totals on every topic, on SQLite and PostgreSQL.
"""

import datetime as dt
import random

import pytest
from sqlalchemy import event

from db.tables import TopicTotalRow
from tests.db.builders import DAY, HOUR, T0, answer, make_channel, make_member, open_round

# Questions covering one topic, two, or none the board knows (an item the library lost).
TOPICS = {"i0": ("tensors",), "i1": ("tensors", "autograd"), "i2": ("autograd",),
          "i3": ("nn",), "i4": ()}


def _items(topics_of, topic):
    return [item for item, topics in topics_of.items() if topic in topics]


def _assert_equal(store, channel, topics_of, topics=("tensors", "autograd", "nn", "optim")):
    for topic in topics:
        stored = store.topic_scores(channel.id, topic)
        assert stored == store.topic_scores_recount(channel.id, _items(topics_of, topic)), topic


def _history(store, channel, people, days, seed):
    """Members answer each day's round: wrong tries, then maybe right (retries), some never."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible history
    for day in days:
        at = T0 + dt.timedelta(days=day)
        rnd = open_round(store, channel, DAY + dt.timedelta(days=day),
                         item=f"i{rng.randrange(5)}", opened=at)
        for person in people:
            for attempt in range(1, rng.randrange(0, 4) + 1):
                right = rng.random() < 0.4
                points = rng.choice((5, 10, 15)) if right else 0
                answer(store, rnd, person, attempt, correct=right, points=points,
                       at=at + attempt * HOUR + dt.timedelta(minutes=rng.randrange(60)))
                if right:
                    break
        store.close_round(rnd.id, at + 23 * HOUR)


def test_answers_before_and_after_the_topics_are_stored_count_as_the_recount(store):
    channel, other = make_channel(store), make_channel(store, "C2")
    people = [make_member(store, f"U{n}", f"m{n}") for n in range(6)]
    _history(store, channel, people, range(10), seed=1)
    _history(store, other, people[:3], range(4), seed=2)
    assert store.sync_item_topics(TOPICS) == 3  # the backfill: every topic counted
    _assert_equal(store, channel, TOPICS)
    _history(store, channel, people, range(10, 25), seed=3)  # each answer adds to its topics
    _assert_equal(store, channel, TOPICS)
    _assert_equal(store, other, TOPICS)
    assert store.sync_item_topics(TOPICS) == 0  # nothing changed: nothing recounted


def test_a_member_forgotten_leaves_no_topic_totals_and_the_rest_equal_the_recount(store):
    channel = make_channel(store)
    people = [make_member(store, f"U{n}", f"m{n}") for n in range(5)]
    store.sync_item_topics(TOPICS)
    _history(store, channel, people, range(12), seed=4)
    # A round still open: the forgotten member's tries there stay, without a member.
    rnd = open_round(store, channel, DAY + dt.timedelta(days=40), item="i1",
                     opened=T0 + dt.timedelta(days=40))
    for person in people[:3]:
        answer(store, rnd, person, 1, correct=True, points=10,
               at=T0 + dt.timedelta(days=40, hours=1))
    assert any(s.user_id == people[0].id for s in store.topic_scores(channel.id, "tensors")[0])
    report = store.forget_member("slack", "U0")
    assert report is not None and dict(report.deleted)["topic_totals"] >= 2
    with store.engine.connect() as connection:
        mine = connection.execute(TopicTotalRow.__table__.select().where(
            TopicTotalRow.user_id == people[0].id)).all()
    assert mine == []
    _assert_equal(store, channel, TOPICS)


def test_a_question_whose_topics_change_is_recounted_under_its_new_topics(store):
    channel = make_channel(store)
    people = [make_member(store, f"U{n}", f"m{n}") for n in range(4)]
    store.sync_item_topics(TOPICS)
    _history(store, channel, people, range(15), seed=5)
    # A pack's new version moves i1 from autograd to optim, and its i3 leaves the library.
    changed = {**TOPICS, "i1": ("tensors", "optim")}
    del changed["i3"]
    assert store.sync_item_topics(changed) == 3  # autograd, optim, nn
    _assert_equal(store, channel, changed)
    assert store.topic_scores(channel.id, "nn") == ([], 0)
    _history(store, channel, people, range(15, 20), seed=6)
    _assert_equal(store, channel, changed)


def test_a_hidden_member_is_counted_apart_as_the_recount_does(store):
    channel = make_channel(store)
    people = [make_member(store, f"U{n}", f"m{n}") for n in range(4)]
    store.sync_item_topics(TOPICS)
    _history(store, channel, people, range(10), seed=7)
    store.set_hidden(people[1].id, True)
    _assert_equal(store, channel, TOPICS)


def _key(row):
    far = dt.datetime.max.replace(tzinfo=dt.UTC)
    return (-row.points, -row.solved, row.last_solved_at or far)


def test_a_limited_topic_board_reads_down_to_the_cut_with_the_tie_at_it_whole(store):
    channel = make_channel(store)
    people = [make_member(store, f"U{n}", f"m{n}") for n in range(9)]
    store.sync_item_topics(TOPICS)
    # Three members tie exactly (same points, solves and time), two more tie on points.
    for day, item in enumerate(("i0", "i1", "i0")):
        at = T0 + dt.timedelta(days=day)
        rnd = open_round(store, channel, DAY + dt.timedelta(days=day), item=item, opened=at)
        for n, person in enumerate(people):
            right = n < 7 or day == 0
            when = at + (HOUR if n in (2, 3, 4) else (n + 1) * HOUR)
            answer(store, rnd, person, 1, correct=right, points=(10 if n != 8 else 5) * right,
                   at=when)
    store.set_hidden(people[0].id, True)
    full, hidden = store.topic_scores_recount(channel.id, _items(TOPICS, "tensors"))
    assert store.topic_scores(channel.id, "tensors") == (full, hidden) and hidden == 1
    ordered = sorted(full, key=lambda s: (*_key(s), s.user_id))
    for limit in range(0, len(full) + 2):
        rows, counted = store.topic_scores(channel.id, "tensors", limit)
        cut = _key(ordered[min(limit, len(ordered)) - 1]) if limit else None
        expected = [s for s in ordered if cut is not None and _key(s) <= cut]
        assert (sorted(rows, key=lambda s: (*_key(s), s.user_id)), counted) == (
            expected, 1), limit
    tied = store.topic_scores(channel.id, "tensors", 1)[0]
    assert len(tied) == 3  # m2, m3 and m4 tie for first: the cut takes all three


def test_a_sync_that_dies_before_its_recount_is_finished_by_the_next_one(store):
    # The changed topics are noted with the change: a process killed between the two leaves
    # them owed, not stale for good.
    channel = make_channel(store)
    people = [make_member(store, f"U{n}", f"m{n}") for n in range(4)]
    _history(store, channel, people, range(8), seed=7)

    def crash(conn, cursor, statement, *args):
        if statement.lstrip().upper().startswith("DELETE FROM TOPIC_TOTALS"):
            raise RuntimeError("the process died here")

    event.listen(store.engine, "before_cursor_execute", crash)
    try:
        with pytest.raises(RuntimeError):
            store.sync_item_topics(TOPICS)
    finally:
        event.remove(store.engine, "before_cursor_execute", crash)
    # The pairs are stored, the totals not counted: the next call (nothing changed) counts.
    assert store.sync_item_topics(TOPICS) == 3
    _assert_equal(store, channel, TOPICS)
    assert store.sync_item_topics(TOPICS) == 0  # and then nothing is owed
