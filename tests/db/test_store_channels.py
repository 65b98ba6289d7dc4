"""SqlStore channels and members, on SQLite and PostgreSQL (see database_url)."""

from __future__ import annotations

import datetime as dt
import inspect

import pytest
from sqlalchemy import select

from bot.core.kernel.models import (
    ChannelSettings,
    ChannelUpdate,
)
from bot.core.store import QuizStore
from db.store import SqlStore
from db.tables import ChannelRow
from tests.db.builders import make_channel, make_member
from tests.fakes import FakeClock

# the port


def test_sql_store_has_every_port_method_with_its_signature():
    port_methods = {
        name: inspect.signature(member)
        # QuizStore is the union of the features' narrow ports: walk them all.
        for port in QuizStore.__mro__ if port.__module__.startswith("bot.core")
        for name, member in vars(port).items()
        if callable(member) and not name.startswith("_")
    }
    assert {"resolve", "update_channel", "add_report", "start_practice"} <= set(port_methods)
    assert port_methods
    for name, signature in port_methods.items():
        assert inspect.signature(getattr(SqlStore, name)) == signature, name


# channels


def test_ensure_channel_creates_it_with_the_defaults(store):
    channel = make_channel(
        store,
        name="pytorch-study",
        post_time=dt.time(7, 30),
        timezone="Asia/Shanghai",
        locale="zh-CN",
    )
    assert channel == ChannelSettings(
        id=channel.id,
        platform="slack",
        external_id="C1",
        workspace_external_id="W1",
        name="pytorch-study",
        post_time=dt.time(7, 30),
        timezone="Asia/Shanghai",
        locale="zh-CN",
    )


def test_ensure_channel_returns_the_existing_channel_unchanged(store):
    first = make_channel(store, name="first", timezone="Europe/Berlin")
    again = make_channel(store, name="second", timezone="UTC")
    assert again == first


def test_channels_of_one_workspace_share_it(store):
    a = make_channel(store, "C1", workspace="W9")
    b = make_channel(store, "C2", workspace="W9")
    assert (a.workspace_external_id, b.workspace_external_id) == ("W9", "W9")
    assert a.id != b.id


def test_same_external_id_on_two_platforms_is_two_channels(store):
    slack = make_channel(store, "X", platform="slack")
    discord = make_channel(store, "X", platform="discord")
    assert slack.id != discord.id


def test_find_channel_by_platform_and_external_id(store):
    channel = make_channel(store, "C7")
    assert store.find_channel("slack", "C7") == channel


def test_find_unknown_channel_returns_none(store):
    make_channel(store, "C7")
    assert store.find_channel("discord", "C7") is None


def test_get_unknown_channel_returns_none(store):
    assert store.get_channel(404) is None


def test_update_channel_round_trips_every_field(store):
    channel = make_channel(store)
    update = ChannelUpdate(
        post_time=dt.time(18, 45),
        timezone="America/Los_Angeles",
        locale="zh-CN",
        topics=("autograd", "tensors"),
        difficulties=(1, 3),
        enabled=False,
        leaderboard_weekday=0,
        leaderboard_hour=9,
    )
    updated = store.update_channel(channel.id, update)
    expected = ChannelSettings(
        id=channel.id,
        platform="slack",
        external_id="C1",
        workspace_external_id="W1",
        name="",
        post_time=dt.time(18, 45),
        timezone="America/Los_Angeles",
        locale="zh-CN",
        topics=("autograd", "tensors"),
        difficulties=(1, 3),
        enabled=False,
        leaderboard_weekday=0,
        leaderboard_hour=9,
    )
    assert (updated, store.get_channel(channel.id)) == (expected, expected)


def test_a_stored_topic_merged_since_reads_as_the_topic_it_became(store):
    # A channel saved "masks" and "memory-leak" before the bank merged them into
    # "masking" and "memory-leaks": it still draws those questions, under the new names.
    channel = make_channel(store)
    store.update_channel(channel.id, ChannelUpdate(topics=("masks", "masking", "memory-leak")))
    assert store.get_channel(channel.id).topics == ("masking", "memory-leaks")


def test_update_channel_leaves_unset_fields_alone(store):
    channel = make_channel(store, timezone="Asia/Tokyo")
    store.update_channel(channel.id, ChannelUpdate(topics=("nn",)))
    updated = store.update_channel(channel.id, ChannelUpdate(locale="zh-CN"))
    assert (updated.timezone, updated.topics, updated.locale) == ("Asia/Tokyo", ("nn",), "zh-CN")


def test_update_channel_with_empty_topics_means_every_topic(store):
    channel = make_channel(store)
    store.update_channel(channel.id, ChannelUpdate(topics=("nn",), difficulties=(2,)))
    cleared = store.update_channel(channel.id, ChannelUpdate(topics=(), difficulties=()))
    assert (cleared.topics, cleared.difficulties) == ((), ())


def test_update_unknown_channel_raises_lookup_error(store):
    with pytest.raises(LookupError):
        store.update_channel(404, ChannelUpdate(locale="en"))


def test_list_channels_skips_disabled_ones(store):
    on = make_channel(store, "C1")
    off = make_channel(store, "C2")
    store.update_channel(off.id, ChannelUpdate(enabled=False))
    assert [c.id for c in store.list_channels()] == [on.id]


def test_list_channels_can_include_disabled_ones_in_id_order(store):
    ids = [make_channel(store, f"C{n}").id for n in range(3)]
    store.update_channel(ids[1], ChannelUpdate(enabled=False))
    assert [c.id for c in store.list_channels(enabled_only=False)] == ids


# members


def test_ensure_member_returns_the_same_member_twice(store):
    assert make_member(store) == make_member(store)


def test_ensure_member_refreshes_the_display_name(store):
    before = make_member(store, name="Ada")
    after = make_member(store, name="Ada L.")
    assert (after.id, after.display_name) == (before.id, "Ada L.")
    assert store.get_member(before.id) == after


def test_get_unknown_member_returns_none(store):
    assert store.get_member(404) is None


def test_new_channels_record_the_clock_time(store, clock: FakeClock, engine):
    clock.set(dt.datetime(2026, 5, 1, 12, 0, tzinfo=dt.UTC))
    channel = make_channel(store)
    with engine.connect() as connection:
        created = connection.execute(
            select(ChannelRow.created_at).where(ChannelRow.id == channel.id)
        ).scalar_one()
    assert created == dt.datetime(2026, 5, 1, 12, 0, tzinfo=dt.UTC)
