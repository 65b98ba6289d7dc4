"""`torchquiz db backup` and `db restore`: a whole snapshot of a live SQLite file, put back."""

from __future__ import annotations

import datetime as dt
import shutil
import sqlite3
import threading

import pytest

from bot.cli import main
from bot.core.kernel.models import AnswerDraft, AnswerMode
from db.engine import make_engine
from db.store import SqlStore
from tests.db.builders import T0, answer, make_channel, make_member, open_round

HANG_GUARD_S = 60
BEFORE = 20  # answers stored before the backup starts
AFTER = 20  # answers the writer stores after the backup, to show it never stopped


def run(capsys, monkeypatch, url, *argv):
    monkeypatch.setenv("TORCHQUIZ_DATABASE_URL", url)
    code = main(["db", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def live(tmp_path, _sqlite_template):
    """Return a migrated SQLite file with a channel, two members, a round and two answers."""
    path = tmp_path / "live" / "torchquiz.sqlite3"
    path.parent.mkdir()
    shutil.copyfile(_sqlite_template, path)
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    store = SqlStore(engine)
    channel = make_channel(store)
    rnd = open_round(store, channel)
    ada, bob = make_member(store, "U1", "Ada"), make_member(store, "U2", "Bob")
    answer(store, rnd, ada)
    answer(store, rnd, bob, correct=False, points=0)
    yield url, store, channel, rnd
    engine.dispose()


def boards(url, channel_id):
    engine = make_engine(url)
    try:
        store = SqlStore(engine)
        # The board leaves out members without points; the recount lists every member.
        recount = [row for row in store.scores(channel_id) if row.points]
        return store.top_scores(channel_id, None, None), recount
    finally:
        engine.dispose()


def answers_in(path):
    with sqlite3.connect(path) as database:
        return sorted(database.execute("SELECT user_id, attempt FROM answers"))


def test_a_backup_taken_while_a_writer_answers_restores_whole(capsys, monkeypatch, tmp_path, live):
    url, store, channel, rnd = live
    writer = make_member(store, "U3", "Cy")
    stored = threading.Semaphore(0)
    stop = threading.Event()

    def keep_answering() -> None:
        attempt = 0
        while not stop.is_set():
            attempt += 1
            store.record_answer(AnswerDraft(
                round_id=rnd.id, user_id=writer.id, attempt=attempt, mode=AnswerMode.TEXT,
                response="x", correct=attempt % 2 == 0, points=attempt % 2,
                submitted_at=T0 + dt.timedelta(seconds=attempt),
            ))
            stored.release()

    thread = threading.Thread(target=keep_answering)
    thread.start()
    try:
        for _ in range(BEFORE):
            assert stored.acquire(timeout=HANG_GUARD_S), "the writer stopped"
        backup_file = tmp_path / "backups" / "quiz.sqlite3"
        code, out, err = run(capsys, monkeypatch, url, "backup", str(backup_file))
        for _ in range(AFTER):
            assert stored.acquire(timeout=HANG_GUARD_S), "the writer stopped after the backup"
    finally:
        stop.set()
        thread.join(HANG_GUARD_S)

    assert (code, err) == (0, ""), err
    assert "backed up to" in out and "migration" in out
    restored_url = f"sqlite:///{tmp_path / 'fresh' / 'torchquiz.sqlite3'}"
    code, out, err = run(capsys, monkeypatch, restored_url, "restore", str(backup_file))
    assert (code, err) == (0, ""), err

    restored = answers_in(tmp_path / "fresh" / "torchquiz.sqlite3")
    live_answers = answers_in(url.removeprefix("sqlite:///"))
    writer_attempts = [attempt for user, attempt in restored if user == writer.id]
    # A snapshot: every answer stored before the backup, then a gapless run of the writer's.
    assert set(restored) <= set(live_answers)
    assert len(writer_attempts) >= BEFORE
    assert writer_attempts == list(range(1, len(writer_attempts) + 1))
    assert len(restored) < len(live_answers)  # the writer went on after the snapshot
    top, recount = boards(restored_url, channel.id)
    assert top == recount  # totals and answers from one instant
    assert {row.display_name for row in top} == {"Ada", "Cy"}


def test_a_backup_of_postgres_points_at_pg_dump(capsys, monkeypatch, tmp_path):
    code, out, err = run(capsys, monkeypatch, "postgresql://u@127.0.0.1:1/d",
                         "backup", str(tmp_path / "b.sqlite3"))
    assert (code, out) == (2, "")
    assert "pg_dump" in err


def test_a_restore_into_postgres_points_at_pg_restore(capsys, monkeypatch, tmp_path, live):
    url, *_ = live
    backup_file = tmp_path / "b.sqlite3"
    assert run(capsys, monkeypatch, url, "backup", str(backup_file))[0] == 0
    code, _, err = run(capsys, monkeypatch, "postgresql://u@127.0.0.1:1/d",
                       "restore", str(backup_file))
    assert code == 2
    assert "pg_restore" in err


def test_a_backup_never_overwrites_the_database_itself(capsys, monkeypatch, live):
    url, *_ = live
    code, _, err = run(capsys, monkeypatch, url, "backup", url.removeprefix("sqlite:///"))
    assert code == 1
    assert "the database itself" in err


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"not a database at all" * 100, "not a torchquiz database"),
        (None, "not a torchquiz database"),  # a SQLite file without the migrations table
    ],
)
def test_a_restore_refuses_a_file_that_is_no_torchquiz_database(
    capsys, monkeypatch, tmp_path, content, says
):
    bogus = tmp_path / "bogus.sqlite3"
    if content is None:
        with sqlite3.connect(bogus) as database:
            database.execute("CREATE TABLE notes (x)")
    else:
        bogus.write_bytes(content)
    target = tmp_path / "target.sqlite3"
    code, _, err = run(capsys, monkeypatch, f"sqlite:///{target}", "restore", str(bogus))
    assert code == 1
    assert says in err
    assert not target.exists()


def test_a_restore_refuses_a_backup_from_an_unknown_migration(capsys, monkeypatch, tmp_path, live):
    url, *_ = live
    newer = tmp_path / "newer.sqlite3"
    assert run(capsys, monkeypatch, url, "backup", str(newer))[0] == 0
    with sqlite3.connect(newer) as database:
        database.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    code, _, err = run(capsys, monkeypatch, f"sqlite:///{tmp_path / 'new.sqlite3'}",
                       "restore", str(newer))
    assert code == 1
    assert "9999_from_the_future" in err


def test_a_restore_keeps_a_database_with_data_unless_forced(capsys, monkeypatch, tmp_path, live):
    url, store, _, _ = live
    empty = tmp_path / "empty.sqlite3"
    shutil.copyfile(url.removeprefix("sqlite:///"), empty)
    with sqlite3.connect(empty) as database:
        database.execute("DELETE FROM answers")
    store.engine.dispose()  # the bot is stopped

    code, _, err = run(capsys, monkeypatch, url, "restore", str(empty))
    assert code == 1
    assert "--force" in err
    assert len(answers_in(url.removeprefix("sqlite:///"))) == 2

    code, _, err = run(capsys, monkeypatch, url, "restore", str(empty), "--force")
    assert (code, err) == (0, "")
    assert answers_in(url.removeprefix("sqlite:///")) == []


def test_a_restore_refuses_while_a_bot_has_the_database_open(capsys, monkeypatch, tmp_path, live):
    url, store, channel, _ = live
    backup_file = tmp_path / "b.sqlite3"
    assert run(capsys, monkeypatch, url, "backup", str(backup_file))[0] == 0
    assert store.get_channel(channel.id) == channel  # its pool keeps a connection open

    code, _, err = run(capsys, monkeypatch, url, "restore", str(backup_file), "--force")
    assert code == 1
    assert "in use" in err
    assert store.get_channel(channel.id) == channel
