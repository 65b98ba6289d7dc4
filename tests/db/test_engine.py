"""make_engine: SQLite PRAGMAs, URL handling, and timestamps that come back aware UTC."""

from __future__ import annotations

import datetime as dt
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import StatementError

from db.engine import SQLITE_BUSY_TIMEOUT_MS, default_url, make_engine, normalize_url
from db.store import SqlStore
from tests.db.builders import make_channel


def _pragma(engine: Engine, name: str) -> object:
    with engine.connect() as connection:
        return connection.exec_driver_sql(f"PRAGMA {name}").scalar()


@pytest.fixture
def sqlite_engine(tmp_path: Path):
    engine = make_engine(f"sqlite:///{tmp_path / 'e.sqlite3'}")
    yield engine
    engine.dispose()


def test_sqlite_runs_in_wal_mode(sqlite_engine):
    assert _pragma(sqlite_engine, "journal_mode") == "wal"


def test_sqlite_enforces_foreign_keys(sqlite_engine):
    assert _pragma(sqlite_engine, "foreign_keys") == 1


def test_sqlite_waits_for_locks_instead_of_failing(sqlite_engine):
    assert _pragma(sqlite_engine, "busy_timeout") == SQLITE_BUSY_TIMEOUT_MS


def test_sqlite_creates_the_data_directory(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'new' / 'dir' / 'q.sqlite3'}")
    with engine.connect() as connection:
        connection.execute(text("select 1"))
    engine.dispose()
    assert (tmp_path / "new" / "dir" / "q.sqlite3").exists()


def test_sqlite_engine_can_be_used_from_another_thread(sqlite_engine):
    with sqlite_engine.connect() as connection, ThreadPoolExecutor(1) as pool:
        assert pool.submit(lambda: connection.execute(text("select 7")).scalar()).result() == 7


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgresql://u:p@h:5/d", "postgresql+psycopg://u:p@h:5/d"),
        ("postgres://u@h/d", "postgresql+psycopg://u@h/d"),
        ("postgresql+psycopg://u@h/d", "postgresql+psycopg://u@h/d"),
        ("sqlite:///x.sqlite3", "sqlite:///x.sqlite3"),
    ],
)
def test_postgres_urls_use_psycopg3(given, expected):
    assert normalize_url(given) == expected


def test_postgres_engine_uses_psycopg3():
    engine = make_engine("postgresql://u@127.0.0.1:1/d")  # creating it does not connect
    assert engine.dialect.driver == "psycopg"


def test_default_url_is_a_sqlite_file_in_the_data_dir(tmp_path):
    assert default_url(tmp_path) == f"sqlite:///{tmp_path}/torchquiz.sqlite3"


def test_database_runs_migrated_and_connectable(engine):
    with engine.connect() as connection:
        assert connection.execute(text("select count(*) from rounds")).scalar() == 0


def test_timestamps_come_back_aware_utc(store: SqlStore):
    tokyo = dt.timezone(dt.timedelta(hours=9))
    opened = dt.datetime(2026, 3, 2, 18, 0, tzinfo=tokyo)
    channel = make_channel(store)
    store.claim_round(channel.id, dt.date(2026, 3, 2), "q", 1, opened, opened)
    back = store.round_for_date(channel.id, dt.date(2026, 3, 2))
    assert back is not None
    assert back.opened_at == opened
    assert back.opened_at.tzinfo == dt.UTC
    assert back.opened_at.hour == 9


def test_naive_timestamps_are_refused(store: SqlStore):
    channel = make_channel(store)
    naive = dt.datetime(2026, 3, 2, 9, 0)  # noqa: DTZ001 - the point of the test
    with pytest.raises(StatementError, match="naive datetime"):
        store.claim_round(channel.id, dt.date(2026, 3, 2), "q", 1, naive, naive)


@pytest.mark.postgres
def test_a_pooled_connection_killed_while_idle_is_replaced_unseen(pg_server):
    url = pg_server.create_database()
    engine = make_engine(url, ping_after_idle_s=0.0)  # every checkout counts as after idling
    try:
        with engine.connect() as connection:
            pid = connection.execute(text("SELECT pg_backend_pid()")).scalar()
        with pg_server.admin.connect() as admin:
            admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        # The pool hands out the same connection; the ping finds it dead and replaces it.
        with engine.connect() as connection:
            assert connection.execute(text("SELECT pg_backend_pid()")).scalar() != pid
    finally:
        engine.dispose()
        pg_server.drop_database(url)
