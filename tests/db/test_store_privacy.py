"""users.hidden: the migration, and the board reads that leave hidden members out."""

import datetime as dt

import sqlalchemy as sa

from db import migrate
from db.engine import make_engine
from db.store import SqlStore
from tests.db.builders import DAY, T0, answer, make_channel, make_member, open_round


def test_members_already_there_stay_visible_after_the_upgrade(empty_database_url):
    migrate.upgrade(empty_database_url, "0006")
    engine = sa.create_engine(empty_database_url)
    with engine.begin() as connection:
        connection.execute(sa.text(
            "INSERT INTO users (platform, external_id, display_name) VALUES ('slack', 'U1', 'A')"))
    engine.dispose()
    migrate.upgrade(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        assert SqlStore(engine).ensure_member("slack", "U1", "A").hidden is False
    finally:
        engine.dispose()
    migrate.downgrade(empty_database_url, "0006")  # and back, with the member still there


def test_a_hidden_member_in_a_tie_at_the_cut_stays_off_the_board(store):
    channel = make_channel(store)
    round_ = open_round(store, channel, DAY)
    people = [make_member(store, f"U{n}", name) for n, name in enumerate(["amy", "bo", "cy"])]
    for person in people:
        answer(store, round_, person, points=10, at=T0)
    store.set_hidden(people[0].id, True)
    assert [r.display_name for r in store.top_scores(channel.id, None, 1)] == ["bo", "cy"]
    assert store.hidden_with_points(channel.id, None) == 1
    assert store.member_rank(channel.id, people[0].id, None) == (1, 3)  # would tie for first
    store.set_hidden(people[0].id, False)
    assert len(store.top_scores(channel.id, None, 1)) == 3
    assert store.hidden_with_points(channel.id, None) == 0


def test_no_points_no_rank(store):
    channel = make_channel(store)
    round_ = open_round(store, channel, DAY)
    person = make_member(store)
    answer(store, round_, person, correct=False, points=0, at=T0)
    week = dt.datetime(2026, 2, 23, tzinfo=dt.UTC)
    assert store.member_rank(channel.id, person.id, None) is None
    assert store.member_rank(channel.id, person.id, week) is None
