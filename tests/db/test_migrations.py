"""Alembic: the revisions build exactly the schema the models describe, carry data forward."""

from __future__ import annotations

import datetime as dt
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import MetaData, inspect, text

from bench.bulk import BulkAnswer, BulkData, load_first_revision
from bot.core.boards.board import BoardService
from bot.core.kernel.models import ChannelDefaults, ChannelUpdate, LiveDraft, week_start
from bot.core.questions.scoring import best_streak, current_streak, points_for, rank
from content.loader import load_bank
from db import migrate
from db.engine import make_engine
from db.store import SqlStore
from db.tables import Base
from tests.fakes import FakeClock

ROOT = Path(__file__).resolve().parents[2]


def _ours(name: str | None, type_: str, _parent: object) -> bool:
    # The slack_* tables are slack-sdk's installation and OAuth-state stores, not our models;
    # tests/adapters/slack/test_slack_installations.py compares them with slack-sdk's own.
    return type_ != "table" or not (name or "").startswith("slack_")


def _diff(url: str) -> list[object]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "include_name": _ours})
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_head_matches_the_models(empty_database_url):
    migrate.upgrade(empty_database_url)
    assert _diff(empty_database_url) == []


def test_unmigrated_database_has_no_revision(empty_database_url):
    assert migrate.current(empty_database_url) is None


def test_upgrade_records_the_head_revision(empty_database_url):
    migrate.upgrade(empty_database_url)
    assert migrate.current(empty_database_url) == migrate.head()


def test_upgrade_twice_changes_nothing(empty_database_url):
    migrate.upgrade(empty_database_url)
    migrate.upgrade(empty_database_url)
    assert migrate.current(empty_database_url) == migrate.head()
    assert _diff(empty_database_url) == []


def test_downgrade_to_base_removes_every_table(empty_database_url):
    migrate.upgrade(empty_database_url)
    migrate.downgrade(empty_database_url, "base")
    assert _tables(empty_database_url) <= {"alembic_version"}


def test_migrations_create_every_model_table(empty_database_url):
    migrate.upgrade(empty_database_url)
    assert set(Base.metadata.tables) <= _tables(empty_database_url)


def test_alembic_cli_migrates_with_the_same_environment(empty_database_url):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "alembic",
            "-c",
            str(ROOT / "db" / "alembic.ini"),
            "-x",
            f"url={empty_database_url}",
            "upgrade",
            "head",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert migrate.current(empty_database_url) == migrate.head()


# the migration path: a database of the first schema, with data, carried forward


def _first_schema_data(seed=7):
    """Two channels in different zones, members with retries and corrections, as 0001 held."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible history
    zones = {1: "UTC", 2: "Asia/Kolkata"}
    start = dt.date(2026, 2, 2)
    rounds, answers = [], []
    for channel_id, zone in zones.items():
        for day in range(15):
            opened = dt.datetime.combine(start + dt.timedelta(day), dt.time(9),
                                         tzinfo=ZoneInfo(zone)).astimezone(dt.UTC)
            round_id = len(rounds) + 1
            rounds.append({
                "id": round_id, "channel_id": channel_id, "local_date": start + dt.timedelta(day),
                "item_id": "t.text-detach", "item_version": 1,
                "status": "open" if day == 14 else "closed", "opened_at": opened,
                "closes_at": opened + dt.timedelta(hours=23), "closed_at": None,
                "message_ref": None,
            })
            for user_id in range(1, 9):
                if rng.random() < 0.3:
                    continue
                at = opened + dt.timedelta(minutes=rng.randrange(600))
                for attempt in (1, 2, 3):
                    right = rng.random() < 0.5
                    answers.append(BulkAnswer(round_id, user_id, attempt, right,
                                              points_for(2, attempt, right), at))
                    if right:
                        break
                    at += dt.timedelta(minutes=rng.randrange(1, 90))
    data = BulkData(
        workspaces=[{"id": 1, "platform": "slack", "external_id": "W"}],
        channels=[{
            "id": cid, "platform": "slack", "external_id": f"C{cid}", "workspace_id": 1,
            "name": f"c{cid}", "post_time": dt.time(9), "timezone": zone, "locale": "en",
            "topics": [], "difficulties": [], "enabled": True, "leaderboard_weekday": 4,
            "leaderboard_hour": 16, "round_hours": 23, "created_at": dt.datetime(2026, 1, 1,
                                                                                 tzinfo=dt.UTC),
        } for cid, zone in zones.items()],
        users=[{"id": u, "platform": "slack", "external_id": f"U{u}",
                "display_name": ["ada", "Ada", "bob", "王小明"][u % 4]} for u in range(1, 9)],
        rounds=rounds,
        answers=answers,
    )
    return data, dt.datetime(2026, 2, 16, 20, 0, tzinfo=dt.UTC)


def _boards_as_before(store, board, channel):
    """The boards and stats as the code before the totals computed them, from the answers."""
    open_date = board._open_date(channel)
    dates = store.round_dates(channel.id)
    boards = {}
    for period in ("week", "all"):
        since = week_start(board.clock.now(), channel.timezone) if period == "week" else None
        scores = store.scores(channel.id, since)
        boards[period] = rank(scores, {
            s.user_id: current_streak(dates, store.solved_dates(channel.id, s.user_id), open_date)
            for s in scores})
    everyone = {s.user_id: s for s in store.scores(channel.id)}
    for user_id in range(1, 9):
        mine, solved = everyone.get(user_id), store.solved_dates(channel.id, user_id)
        boards[user_id] = (mine.points if mine else 0, mine.solved if mine else 0,
                           mine.attempted if mine else 0,
                           current_streak(dates, solved, open_date), best_streak(dates, solved))
    return boards


def _boards_now(store, board, channel):
    boards = {period: board.rows(channel, period, limit=None) for period in ("week", "all")}
    for user_id in range(1, 9):
        stats = board.stats(channel, store.get_member(user_id))
        boards[user_id] = (stats.points, stats.solved, stats.attempted, stats.streak,
                           stats.best_streak)
    return boards


def test_torchquiz_db_upgrade_keeps_the_boards_of_a_first_schema_database(
    empty_database_url, tmp_path
):
    data, now = _first_schema_data()
    load_first_revision(empty_database_url, data)
    assert migrate.current(empty_database_url) == "0001"
    engine = make_engine(empty_database_url)
    try:
        clock = FakeClock(now)
        store = SqlStore(engine, clock=clock)
        board = BoardService(store, load_bank(ROOT / "tests" / "core" / "bank"), clock)
        command = shutil.which("torchquiz", path=str(Path(sys.executable).parent))
        result = subprocess.run(
            [command, "db", "upgrade"] if command else [sys.executable, "-m", "bot.cli", "db",
                                                        "upgrade"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
            env={**os.environ, "TORCHQUIZ_DATABASE_URL": empty_database_url},
        )
        assert result.returncode == 0, result.stderr
        assert migrate.current(empty_database_url) == migrate.head()

        # The recount from the answers the first schema held (the code reads rounds with the
        # columns of the head revision, so it can only read them once migrated).
        channels = [store.get_channel(1), store.get_channel(2)]
        before = [_boards_as_before(store, board, c) for c in channels]
        assert before[0]["all"] and before[1]["week"]  # there is something to keep
        assert [_boards_now(store, board, c) for c in channels] == before
    finally:
        engine.dispose()


# 0005: a round's post claim leaves message_ref for a column of its own

def _rounds_at_0004(url):
    """Three rounds as 0004 stored them: claimed (posting:<time>), posted, claim unreadable."""
    migrate.upgrade(url, "0004")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            meta = MetaData()
            meta.reflect(connection)
            tables = meta.tables
            connection.execute(tables["workspaces"].insert(),
                               [{"id": 1, "platform": "slack", "external_id": "W"}])
            connection.execute(tables["channels"].insert(), [{
                "id": 1, "platform": "slack", "external_id": "C1", "workspace_id": 1,
                "name": "c1", "post_time": dt.time(9), "timezone": "UTC", "locale": "en",
                "topics": [], "difficulties": [], "enabled": True, "leaderboard_weekday": 4,
                "leaderboard_hour": 16, "round_hours": 23,
                "created_at": dt.datetime(2026, 1, 1, tzinfo=dt.UTC)}])
            opened = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
            connection.execute(tables["rounds"].insert(), [{
                "id": n, "channel_id": 1, "local_date": dt.date(2026, 3, n),
                "item_id": "t.text-detach", "item_version": 1, "status": "open",
                "opened_at": opened, "closes_at": opened + dt.timedelta(hours=23),
                "closed_at": None, "message_ref": ref,
            } for n, ref in ((1, "posting:2026-03-02T09:00:05.250000+00:00"),
                             (2, "C1:1712.0042"), (3, "posting:garbled"))])
    finally:
        engine.dispose()


def test_upgrade_moves_a_post_claim_out_of_message_ref(empty_database_url):
    _rounds_at_0004(empty_database_url)
    migrate.upgrade(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        store = SqlStore(engine)
        rounds = [store.get_round(n) for n in (1, 2, 3)]
    finally:
        engine.dispose()
    assert [(r.message_ref, r.post_claimed_at) for r in rounds] == [
        (None, dt.datetime(2026, 3, 2, 9, 0, 5, 250000, tzinfo=dt.UTC)),
        ("C1:1712.0042", None),
        (None, None),  # unreadable: unclaimed and unposted, so the next replica posts it
    ]


def test_downgrade_puts_a_post_claim_back_into_message_ref(empty_database_url):
    _rounds_at_0004(empty_database_url)
    migrate.upgrade(empty_database_url)
    migrate.downgrade(empty_database_url, "0004")
    engine = make_engine(empty_database_url)
    try:
        with engine.connect() as connection:
            refs = connection.execute(text("SELECT message_ref FROM rounds ORDER BY id")).all()
    finally:
        engine.dispose()
    assert [ref for (ref,) in refs] == ["posting:2026-03-02T09:00:05.250000+00:00",
                                        "C1:1712.0042", None]


# 0012: a channel chooses its packs; every channel already there keeps the shipped bank only

def _channel_at_0011(url):
    migrate.upgrade(url, "0011")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            meta = MetaData()
            meta.reflect(connection)
            assert "packs" not in meta.tables["channels"].c
            connection.execute(meta.tables["workspaces"].insert(),
                               [{"id": 1, "platform": "slack", "external_id": "W"}])
            connection.execute(meta.tables["channels"].insert(), [{
                "id": 1, "platform": "slack", "external_id": "C1", "workspace_id": 1,
                "name": "c1", "post_time": dt.time(9), "timezone": "UTC", "locale": "en",
                "topics": ["tensors"], "difficulties": [1], "enabled": True,
                "leaderboard_weekday": 4, "leaderboard_hour": 16, "round_hours": 23,
                "created_at": dt.datetime(2026, 1, 1, tzinfo=dt.UTC)}])
    finally:
        engine.dispose()


def test_upgrade_gives_every_existing_channel_the_shipped_bank_only(empty_database_url):
    _channel_at_0011(empty_database_url)
    migrate.upgrade(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        store = SqlStore(engine)
        channel = store.get_channel(1)
        assert channel.packs == ("bank",)
        assert channel.topics == ("tensors",)  # the rest as it was
        changed = store.update_channel(1, ChannelUpdate(packs=("bank", "team-conv")))
        assert store.get_channel(1).packs == changed.packs == ("bank", "team-conv")
    finally:
        engine.dispose()


def test_downgrade_from_0012_drops_the_pack_choice_and_keeps_the_channel(empty_database_url):
    _channel_at_0011(empty_database_url)
    migrate.upgrade(empty_database_url)
    migrate.downgrade(empty_database_url, "0011")
    engine = make_engine(empty_database_url)
    try:
        columns = {c["name"] for c in inspect(engine).get_columns("channels")}
        with engine.connect() as connection:
            names = connection.execute(text("SELECT name FROM channels")).scalars().all()
    finally:
        engine.dispose()
    assert "packs" not in columns and names == ["c1"]
    assert migrate.current(empty_database_url) == "0011"


# 0013: a forgotten member's tries at an open round stay without a member

def _answer_at_0012(url):
    _channel_at_0011(url)
    migrate.upgrade(url, "0012")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            meta = MetaData()
            meta.reflect(connection)
            assert not meta.tables["answers"].c.user_id.nullable
            opened = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
            connection.execute(meta.tables["users"].insert(), [
                {"id": 1, "platform": "slack", "external_id": "U1", "display_name": "Ada"}])
            connection.execute(meta.tables["rounds"].insert(), [{
                "id": 1, "channel_id": 1, "local_date": dt.date(2026, 3, 2),
                "item_id": "t.text-detach", "item_version": 1, "status": "open",
                "opened_at": opened, "closes_at": opened + dt.timedelta(hours=23)}])
            connection.execute(meta.tables["answers"].insert(), [{
                "round_id": 1, "user_id": 1, "attempt": 1, "mode": "text", "response": "clone",
                "correct": False, "points": 0, "submitted_at": opened}])
    finally:
        engine.dispose()


def test_upgrade_to_0013_keeps_every_answer_with_its_member(empty_database_url):
    _answer_at_0012(empty_database_url)
    migrate.upgrade(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        store = SqlStore(engine)
        assert store.attempts(1, 1).tried == 1
        store.forget_member("slack", "U1")  # her try at the open round stays, without her
        back = store.ensure_member("slack", "U1", "Ada")
        assert store.attempts(1, back.id).tried == 1
    finally:
        engine.dispose()


def test_downgrade_from_0013_deletes_the_anonymous_tries_and_keeps_the_rest(empty_database_url):
    _answer_at_0012(empty_database_url)
    migrate.upgrade(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        with engine.begin() as connection:
            connection.execute(text(
                "INSERT INTO answers (round_id, user_id, attempt, mode, response, correct, "
                "points, submitted_at, forgotten_mark) VALUES (1, NULL, 1, 'text', '', false, 0, "
                "'2026-03-02 10:00:00+00:00', 'mark')"))
    finally:
        engine.dispose()
    migrate.downgrade(empty_database_url, "0012")
    engine = make_engine(empty_database_url)
    try:
        answers = {c["name"]: c for c in inspect(engine).get_columns("answers")}
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT user_id, response FROM answers")).all()
    finally:
        engine.dispose()
    assert "forgotten_mark" not in answers and not answers["user_id"]["nullable"]
    assert [tuple(r) for r in rows] == [(1, "clone")]
    assert migrate.current(empty_database_url) == "0012"


# 0014: a practice result keeps whether it was right on the first try

def _practice_result_at_0013(url):
    _answer_at_0012(url)
    migrate.upgrade(url, "0013")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            meta = MetaData()
            meta.reflect(connection)
            connection.execute(meta.tables["practice_results"].insert(), [{
                "user_id": 1, "item_id": "t.text-detach", "item_version": 1, "correct": True,
                "answered_at": dt.datetime(2026, 3, 2, 10, tzinfo=dt.UTC)}])
    finally:
        engine.dispose()


def test_upgrade_to_0014_counts_an_older_practice_result_by_its_outcome(empty_database_url):
    _practice_result_at_0013(empty_database_url)
    migrate.upgrade(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        store = SqlStore(engine)
        practice = [r for r in store.item_results(1) if r.item_id == "t.text-detach"
                    and r.answered_at.hour == 10]
        assert [(r.correct, r.first_try) for r in practice] == [(True, None)]
    finally:
        engine.dispose()


def test_downgrade_from_0014_drops_first_try_and_keeps_the_results(empty_database_url):
    _practice_result_at_0013(empty_database_url)
    migrate.upgrade(empty_database_url)
    migrate.downgrade(empty_database_url, "0013")
    engine = make_engine(empty_database_url)
    try:
        columns = {c["name"] for c in inspect(engine).get_columns("practice_results")}
        with engine.connect() as connection:
            kept = connection.execute(text("SELECT correct FROM practice_results")).all()
    finally:
        engine.dispose()
    assert "first_try" not in columns and len(kept) == 1
    assert migrate.current(empty_database_url) == "0013"


LIVE_TABLES = {"live_sessions", "live_questions", "live_players", "live_answers"}


def test_upgrade_to_0016_adds_the_live_tables_and_downgrade_drops_only_them(empty_database_url):
    _practice_result_at_0013(empty_database_url)
    migrate.upgrade(empty_database_url, "0016")
    assert _tables(empty_database_url) >= LIVE_TABLES
    migrate.downgrade(empty_database_url, "0015")
    engine = make_engine(empty_database_url)
    try:
        with engine.connect() as connection:
            kept = connection.execute(text("SELECT correct FROM practice_results")).all()
    finally:
        engine.dispose()
    assert not LIVE_TABLES & _tables(empty_database_url) and len(kept) == 1
    assert migrate.current(empty_database_url) == "0015"


def test_upgrade_to_0025_adds_the_board_claims_and_downgrade_drops_only_them(
        empty_database_url):
    migrate.upgrade(empty_database_url, "0025")
    assert "board_posts" in _tables(empty_database_url)
    migrate.downgrade(empty_database_url, "0024")
    assert "board_posts" not in _tables(empty_database_url)
    assert {"item_totals", "admin_changes"} <= _tables(empty_database_url)
    assert migrate.current(empty_database_url) == "0024"


def test_one_live_session_at_a_time_per_channel_is_the_databases_rule(empty_database_url):
    migrate.upgrade(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        store = SqlStore(engine)
        channel = store.ensure_channel("console", "general", "ws", ChannelDefaults())
        host = store.ensure_member("console", "alice", "Alice")
        at = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
        draft = LiveDraft(channel.id, host.id, at, at, (("t.text-detach", 1, 45),))
        first = store.create_live(draft)
        assert first is not None and store.create_live(draft) is None
        assert store.finish_live(first.id, at, counted=False)
        assert store.create_live(draft) is not None  # an ended session frees the channel
    finally:
        engine.dispose()


AUDIT_TABLES = {"admin_changes", "settings_stamps"}


def test_upgrade_to_0024_adds_the_audit_log_and_the_stamp_and_downgrade_drops_only_them(
        empty_database_url):
    migrate.upgrade(empty_database_url, "0018")
    before = _tables(empty_database_url)
    migrate.upgrade(empty_database_url, "0024")
    assert _tables(empty_database_url) == before | AUDIT_TABLES
    engine = make_engine(empty_database_url)
    try:
        with engine.connect() as connection:  # the migration's one row
            assert connection.execute(text("SELECT version FROM settings_stamps")).all() == [(0,)]
    finally:
        engine.dispose()
    migrate.upgrade(empty_database_url)  # today's store writes today's columns
    engine = make_engine(empty_database_url)
    try:
        store = SqlStore(engine)
        assert store.settings_stamp() == 0
        channel = store.ensure_channel("console", "general", "ws", ChannelDefaults())
        store.update_channel(channel.id, ChannelUpdate(post_time=dt.time(7, 30)))
        assert store.settings_stamp() == 1
    finally:
        engine.dispose()
    migrate.downgrade(empty_database_url, "0018")
    assert _tables(empty_database_url) == before
    assert migrate.current(empty_database_url) == "0018"


def _columns(url: str, table: str) -> set[str]:
    engine = make_engine(url)
    try:
        return {c["name"] for c in inspect(engine).get_columns(table)}
    finally:
        engine.dispose()


def test_upgrade_to_0028_puts_live_points_off_the_weekly_board_and_downgrade_drops_it(
        empty_database_url):
    migrate.upgrade(empty_database_url, "0027")
    engine = make_engine(empty_database_url)
    try:
        with engine.begin() as connection:
            connection.execute(text(
                "INSERT INTO workspaces (id, platform, external_id) VALUES (1, 'console', 'ws')"))
            connection.execute(text(
                "INSERT INTO channels (id, platform, external_id, workspace_id, name, post_time,"
                " timezone, locale, topics, difficulties, enabled, leaderboard_weekday,"
                " leaderboard_hour, round_hours, created_at) VALUES (1, 'console', 'general',"
                " 1, 'general', '09:00:00', 'UTC', 'en', '[]', '[]', true, 4, 16, 23,"
                " '2026-12-01 09:00:00')"))
    finally:
        engine.dispose()
    migrate.upgrade(empty_database_url, "0028")
    engine = make_engine(empty_database_url)
    try:  # read as 0028 has it (today's store reads later revisions' columns too)
        with engine.connect() as connection:
            assert connection.execute(text(
                "SELECT live_on_board FROM channels WHERE id = 1")).scalar_one() in (False, 0)
    finally:
        engine.dispose()
    migrate.downgrade(empty_database_url, "0027")
    assert "live_on_board" not in _columns(empty_database_url, "channels")
    assert not {"on_board", "thread_ref"} & _columns(empty_database_url, "live_sessions")
    assert not {"code", "pending"} & _columns(empty_database_url, "live_answers")
    assert migrate.current(empty_database_url) == "0027"
# 0029: a channel chooses the kinds of its daily rounds; a speed verdict may answer a round


def _channel_at_0027(url):
    migrate.upgrade(url, "0027")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            meta = MetaData()
            meta.reflect(connection)
            assert "kinds" not in meta.tables["channels"].c
            connection.execute(meta.tables["workspaces"].insert(),
                               [{"id": 1, "platform": "slack", "external_id": "W"}])
            connection.execute(meta.tables["channels"].insert(), [{
                "id": 1, "platform": "slack", "external_id": "C1", "workspace_id": 1,
                "name": "c1", "post_time": dt.time(9), "timezone": "UTC", "locale": "en",
                "topics": ["tensors"], "difficulties": [1], "packs": ["bank"], "enabled": True,
                "leaderboard_weekday": 4, "leaderboard_hour": 16, "round_hours": 23,
                "created_at": dt.datetime(2026, 1, 1, tzinfo=dt.UTC), "live_anyone": False}])
    finally:
        engine.dispose()


def test_upgrade_to_0029_keeps_every_channel_on_the_kinds_it_posts_today(empty_database_url):
    _channel_at_0027(empty_database_url)
    migrate.upgrade(empty_database_url, "0029")
    engine = make_engine(empty_database_url)
    try:
        store = SqlStore(engine)
        assert store.get_channel(1).kinds == ("choice", "text", "code")
        changed = store.update_channel(1, ChannelUpdate(kinds=("code", "speed")))
        assert store.get_channel(1).kinds == changed.kinds == ("code", "speed")
        columns = {c["name"] for c in inspect(engine).get_columns("speed_verdicts")}
    finally:
        engine.dispose()
    assert {"round_id", "attempt"} <= columns


def test_downgrade_from_0029_drops_the_kinds_and_the_verdicts_round_and_keeps_the_channel(
        empty_database_url):
    _channel_at_0027(empty_database_url)
    migrate.upgrade(empty_database_url, "0029")
    migrate.downgrade(empty_database_url, "0028")
    engine = make_engine(empty_database_url)
    try:
        channels = {c["name"] for c in inspect(engine).get_columns("channels")}
        verdicts = {c["name"] for c in inspect(engine).get_columns("speed_verdicts")}
        with engine.connect() as connection:
            names = connection.execute(text("SELECT name FROM channels")).scalars().all()
    finally:
        engine.dispose()
    assert "kinds" not in channels and not {"round_id", "attempt"} & verdicts
    assert names == ["c1"] and migrate.current(empty_database_url) == "0028"
