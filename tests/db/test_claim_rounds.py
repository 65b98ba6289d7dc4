"""Claiming a minute's rounds in bulk: each (channel, date) once, whoever races for it."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter

from bot.core.kernel.models import RoundClaim, RoundStatus
from db.store_base import BATCH
from tests.db.builders import DAY, HOUR, T0, make_channel, open_round, race


def _claims(channel_ids, item="tensors.view", claimed_at=T0):
    return [RoundClaim(c, DAY, item, 2, T0, T0 + 23 * HOUR, claimed_at) for c in channel_ids]


def test_bulk_claims_create_open_rounds_with_their_post_claimed(store):
    ids = [make_channel(store, f"C{n}").id for n in range(3)]
    created = store.claim_rounds(_claims(ids))
    assert sorted(r.channel_id for r in created) == ids
    for rnd in created:
        assert store.round_for_date(rnd.channel_id, DAY) == rnd
        assert (rnd.status, rnd.item_id, rnd.item_version, rnd.message_ref,
                rnd.post_claimed_at) == (RoundStatus.OPEN, "tensors.view", 2, None, T0)


def test_only_dates_without_a_round_are_created_and_the_others_are_untouched(store):
    ids = [make_channel(store, f"C{n}").id for n in range(4)]
    first = open_round(store, store.get_channel(ids[1]), item="a")
    created = store.claim_rounds(_claims(ids, item="b"))
    assert sorted(r.channel_id for r in created) == [ids[0], ids[2], ids[3]]
    assert store.round_for_date(ids[1], DAY) == first
    assert store.claim_rounds(_claims(ids, item="c")) == []


def test_more_claims_than_one_statement_holds_are_all_made(store):
    ids = [make_channel(store, f"C{n}").id for n in range(BATCH * 2 + 7)]
    assert len(store.claim_rounds(_claims(ids))) == len(ids)
    assert store.get_channels(ids).keys() == set(ids)
    assert store.used_items_of(ids) == {c: {"tensors.view": DAY} for c in ids}


def test_replicas_racing_over_the_same_channels_create_each_round_once(database_url, store):
    ids = [make_channel(store, f"C{n}").id for n in range(300)]
    orders = [random.Random(seed).sample(ids, len(ids)) for seed in range(3)]  # noqa: S311
    turn = iter(orders)
    won = race(database_url, lambda s: s.claim_rounds(_claims(next(turn))), contenders=3)
    counts = Counter(r.channel_id for rounds in won for r in rounds)
    assert counts == Counter(ids)  # every channel, exactly once, across the three replicas


def test_bulk_reads_equal_the_per_channel_reads(store):
    ids = [make_channel(store, f"C{n}").id for n in range(3)]
    open_round(store, store.get_channel(ids[0]), item="a")
    open_round(store, store.get_channel(ids[0]), day=DAY + dt.timedelta(days=1), item="b")
    missing = max(ids) + 100
    assert store.get_channels([*ids, missing]) == {c: store.get_channel(c) for c in ids}
    assert store.used_items_of(ids) == {c: store.used_items(c) for c in ids}


def test_rounds_exist_names_exactly_the_keys_asked_for_that_have_a_round(store):
    ids = [make_channel(store, f"C{n}").id for n in range(3)]
    later = DAY + dt.timedelta(days=1)
    open_round(store, store.get_channel(ids[0]))
    open_round(store, store.get_channel(ids[1]), day=later)
    asked = [(ids[0], DAY), (ids[1], DAY), (ids[2], later), (ids[0], later)]
    assert store.rounds_exist(asked) == {(ids[0], DAY)}  # (ids[1], later) was not asked
