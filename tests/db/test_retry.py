"""A dropped connection under a store call: retried once, recognised when it had committed.

The connections are really cut (pg_terminate_backend on the call's own backend) except where
the commit's answer must be lost after the commit happened: no server does that on request, so
a hook raises what the driver raises then, right after the real COMMIT.
"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import OperationalError

from bot.core.kernel.models import AnswerDraft, AnswerMode
from db.engine import make_engine
from db.retry import is_disconnect, run_retrying
from tests.db.builders import (
    T0,
    lose_the_first_commits_answer,
    make_channel,
    make_member,
    open_round,
)

HANG_GUARD_S = 60

postgres_only = pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)


@pytest.fixture
def setting(store):
    channel = make_channel(store)
    return store, channel, open_round(store, channel), make_member(store)


def draft(rnd, member, attempt=1, response="view shares storage"):
    return AnswerDraft(
        round_id=rnd.id, user_id=member.id, attempt=attempt, mode=AnswerMode.TEXT,
        response=response, correct=True, points=10, submitted_at=T0,
    )


def cut_before(engine, pg_server, statement_start: str, times: int = 1) -> list[int]:
    """Terminate the backend of the next ``times`` statements starting so, just before they run."""
    cut: list[int] = []

    def terminate(conn, _cursor, statement, *_args) -> None:
        if len(cut) >= times or not statement.lstrip().upper().startswith(statement_start):
            return
        pid = conn.connection.dbapi_connection.info.backend_pid
        cut.append(pid)
        with pg_server.admin.connect() as admin:  # waits until the backend is gone
            admin.execute(text("SELECT pg_terminate_backend(:pid, 10000)"), {"pid": pid})

    event.listen(engine, "before_cursor_execute", terminate)
    return cut


@postgres_only
def test_an_answer_whose_connection_is_cut_mid_write_is_recorded_once(setting, pg_server, caplog):
    store, channel, rnd, member = setting
    cut = cut_before(store.engine, pg_server, "WITH")  # the answer's insert and totals

    stored = store.record_answer(draft(rnd, member))

    assert len(cut) == 1, "the connection was not cut"
    assert stored is not None
    assert store.answers_for(rnd.id, member.id) == [stored]
    assert store.top_scores(channel.id, None, None) == store.scores(channel.id)
    assert "record_answer: database connection lost" in caplog.text


@postgres_only
def test_an_answer_committed_before_the_connection_dropped_comes_back_as_recorded(setting):
    store, channel, rnd, member = setting
    lost = lose_the_first_commits_answer(store)

    stored = store.record_answer(draft(rnd, member))

    assert lost, "the commit's answer was not lost"
    # Not None: the member is told the verdict of an answer that is in, not "already recorded".
    assert stored is not None
    assert store.answers_for(rnd.id, member.id) == [stored]
    assert store.top_scores(channel.id, None, None) == store.scores(channel.id)


@postgres_only
def test_a_retry_still_calls_another_answer_to_the_same_attempt_a_duplicate(setting, pg_server):
    store, _channel, rnd, member = setting
    first = store.record_answer(draft(rnd, member, response="first click"))
    cut = cut_before(store.engine, pg_server, "SELECT")

    again = store.record_answer(draft(rnd, member, response="second click"))

    assert cut, "the connection was not cut"
    assert again is None
    assert store.answers_for(rnd.id, member.id) == [first]


@postgres_only
def test_a_read_whose_connection_is_cut_is_retried(setting, pg_server):
    store, channel, _rnd, _member = setting
    cut = cut_before(store.engine, pg_server, "SELECT")

    assert store.get_channel(channel.id) == channel
    assert cut, "the connection was not cut"


@postgres_only
def test_a_second_cut_is_raised_not_retried_again(setting, pg_server):
    store, _channel, rnd, member = setting
    cut = cut_before(store.engine, pg_server, "SELECT", times=2)

    with pytest.raises(OperationalError) as raised:
        store.record_answer(draft(rnd, member))

    assert len(cut) == 2
    assert is_disconnect(raised.value)


@postgres_only
def test_an_error_that_is_not_a_lost_connection_is_raised_at_once(store):
    calls: list[bool] = []

    def fails(retried: bool) -> None:
        calls.append(retried)
        with store.engine.begin() as connection:
            connection.execute(text("SELECT no_such_column FROM answers"))

    with pytest.raises(Exception, match="no_such_column"):
        run_retrying(store.engine, "test", fails)
    assert calls == [False]


@postgres_only
def test_a_pooled_connection_whose_server_went_away_is_replaced_unseen(database_url, pg_server):
    engine = make_engine(database_url)  # pings only after 10 s idle: this one waited moments
    try:
        with engine.connect() as connection:
            pid = connection.execute(text("SELECT pg_backend_pid()")).scalar()
        with pg_server.admin.connect() as admin:
            admin.execute(text("SELECT pg_terminate_backend(:pid, 10000)"), {"pid": pid})
        with engine.connect() as connection:
            assert connection.execute(text("SELECT pg_backend_pid()")).scalar() != pid
    finally:
        engine.dispose()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_sqlite_answer_waits_for_the_write_lock_instead_of_failing(setting, database_url):
    store, _channel, rnd, member = setting
    holder = make_engine(database_url)
    waiting = threading.Event()

    def note_the_wait(_conn, _cursor, statement, *_args) -> None:
        if statement == "BEGIN IMMEDIATE" and threading.current_thread() is not main:
            waiting.set()

    main = threading.current_thread()
    event.listen(store.engine, "before_cursor_execute", note_the_wait)
    result: list[object] = []
    try:
        with holder.begin() as connection:  # BEGIN IMMEDIATE: the write lock, held
            connection.execute(text("UPDATE rounds SET item_id = item_id"))
            answering = threading.Thread(
                target=lambda: result.append(store.record_answer(draft(rnd, member)))
            )
            answering.start()
            assert waiting.wait(HANG_GUARD_S), "the answer never asked for the lock"
            # Held well past BEGIN: the answer waits on (not fails at) the lock until it is free.
            answering.join(0.5)
            assert answering.is_alive(), f"the answer did not wait for the lock: {result}"
        answering.join(HANG_GUARD_S)
    finally:
        holder.dispose()
    assert len(result) == 1
    assert result[0] is not None
    assert store.answers_for(rnd.id, member.id) == result
