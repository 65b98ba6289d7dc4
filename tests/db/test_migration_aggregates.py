"""Revisions 0017 and 0018: streaks and per-item counts kept with answers, backfilled."""

import datetime as dt
import importlib.util

from sqlalchemy import inspect, text

from bench.bulk import BulkAnswer, BulkData, load_first_revision
from bot.core.questions.scoring import replay_streak
from db import migrate
from db.engine import make_engine
from db.store import SqlStore

START = dt.date(2026, 1, 5)
# Who solved which of twenty rounds: every one; a gap a freeze covers; gaps that break; none.
SOLVED = {
    1: set(range(20)),
    2: set(range(20)) - {9},
    3: set(range(20)) - {2, 3, 4, 12},
    4: set(),
}


def _at_0014(url):
    rounds, answers = [], []
    for day in range(20):
        opened = dt.datetime.combine(START + dt.timedelta(days=day), dt.time(9), tzinfo=dt.UTC)
        rounds.append({"id": day + 1, "channel_id": 1, "local_date": START + dt.timedelta(days=day),
                       "item_id": "t.text-detach", "item_version": 1, "status": "closed",
                       "opened_at": opened, "closes_at": opened + dt.timedelta(hours=23),
                       "closed_at": opened + dt.timedelta(hours=23), "message_ref": None})
        for user, days in SOLVED.items():
            right = day in days
            answers.append(BulkAnswer(day + 1, user, 1, right, 15 if right else 0,
                                      opened + dt.timedelta(hours=1)))
    load_first_revision(url, BulkData(
        workspaces=[{"id": 1, "platform": "slack", "external_id": "W"}],
        channels=[{"id": 1, "platform": "slack", "external_id": "C", "workspace_id": 1,
                   "name": "c", "post_time": dt.time(9), "timezone": "UTC", "locale": "en",
                   "topics": [], "difficulties": [], "enabled": True,
                   "leaderboard_weekday": 4, "leaderboard_hour": 16, "round_hours": 23,
                   "created_at": dt.datetime(2026, 1, 1, tzinfo=dt.UTC)}],
        users=[{"id": u, "platform": "slack", "external_id": f"U{u}", "display_name": f"m{u}"}
               for u in SOLVED],
        rounds=rounds, answers=answers))
    migrate.upgrade(url, "0014")


def test_upgrade_to_0017_stores_each_members_streak_as_a_replay_finds_it(empty_database_url):
    _at_0014(empty_database_url)
    migrate.upgrade(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        store = SqlStore(engine)
        read = store.board_read(1, None, None)
        dates = store.round_dates(1)
        for user, days in SOLVED.items():
            replayed = replay_streak(dates, [START + dt.timedelta(days=d) for d in days], None)
            anchor = read.anchors.get(user)
            if not days:
                assert anchor is None
                continue
            assert anchor.solved_on == START + dt.timedelta(days=max(days))
            assert anchor.now(read.rounds, None) == replayed, user
    finally:
        engine.dispose()


def test_downgrade_from_0017_drops_the_streaks_and_keeps_the_totals(empty_database_url):
    _at_0014(empty_database_url)
    migrate.upgrade(empty_database_url)
    migrate.downgrade(empty_database_url, "0016")
    engine = make_engine(empty_database_url)
    try:
        columns = {c["name"] for c in inspect(engine).get_columns("score_totals")}
        with engine.connect() as connection:
            points = dict(connection.execute(
                text("SELECT user_id, points FROM score_totals")).all())
    finally:
        engine.dispose()
    assert not columns & {"streak_on", "streak_through", "streak", "best_streak", "freezes",
                          "toward_freeze"}
    assert points == {user: 15 * len(days) for user, days in SOLVED.items()}
    assert migrate.current(empty_database_url) == "0016"


def test_upgrade_to_0018_counts_each_item_by_member_round(empty_database_url):
    _at_0014(empty_database_url)
    migrate.upgrade(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        [(item, answered, solved, first)] = SqlStore(engine).channel_item_results(1)
    finally:
        engine.dispose()
    assert (item, answered) == ("t.text-detach", 20 * len(SOLVED))
    assert solved == first == sum(len(days) for days in SOLVED.values())


def test_downgrade_from_0018_drops_the_item_counts(empty_database_url):
    _at_0014(empty_database_url)
    migrate.upgrade(empty_database_url)
    migrate.downgrade(empty_database_url, "0017")
    engine = make_engine(empty_database_url)
    try:
        tables = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert "item_totals" not in tables and "answers" in tables
    assert migrate.current(empty_database_url) == "0017"


def _backfill_0030() -> str:
    spec = importlib.util.spec_from_file_location(
        "m0030", migrate.MIGRATIONS_DIR / "versions" / "0030_topic_totals.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.BACKFILL)


def test_upgrade_to_0030_counts_the_topics_once_the_library_gives_them(empty_database_url):
    _at_0014(empty_database_url)
    migrate.upgrade(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        store = SqlStore(engine)
        assert store.topic_scores(1, "autograd") == ([], 0)  # no topics known to the store yet
        assert store.sync_item_topics({"t.text-detach": ("autograd", "tensors")}) == 2
        for topic in ("autograd", "tensors"):
            scores, hidden = store.topic_scores(1, topic)
            assert (scores, hidden) == store.topic_scores_recount(1, ["t.text-detach"])
            assert {s.user_id: s.points for s in scores} == {
                user: 15 * len(days) for user, days in SOLVED.items() if days}
        # The migration's own statement, run again over the pairs now stored, counts the same.
        kept = store.topic_scores(1, "tensors")
        with engine.begin() as connection:
            connection.execute(text("DELETE FROM topic_totals"))
            connection.execute(text(_backfill_0030()))
        assert store.topic_scores(1, "tensors") == kept
    finally:
        engine.dispose()


def test_downgrade_from_0030_drops_the_topic_totals_and_keeps_the_answers(empty_database_url):
    _at_0014(empty_database_url)
    migrate.upgrade(empty_database_url)
    migrate.downgrade(empty_database_url, "0029")
    engine = make_engine(empty_database_url)
    try:
        tables = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert not {"topic_totals", "item_topics"} & tables and "answers" in tables
    assert migrate.current(empty_database_url) == "0029"
