"""Shared fixtures: a migrated database on SQLite and PostgreSQL, a store on it, a fake clock.

PostgreSQL tests run against the server `make test` starts (scripts/pg-test-server.sh) and
finds in TORCHQUIZ_TEST_PG_URL. Each test process migrates one database of its own once; each
test then starts from empty tables with ids restarting at 1. Measured here: DELETE FROM every
table plus setval ~2 ms, TRUNCATE ~30 ms, CREATE DATABASE ... TEMPLATE a migrated one ~180 ms.
"""

from __future__ import annotations

import gc
import itertools
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web_app
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from db.engine import make_engine, normalize_url
from db.migrate import upgrade
from db.store import SqlStore
from db.tables import Base
from tests.fakes import CLOCK_START, FakeClock

PG_URL_ENV = "TORCHQUIZ_TEST_PG_URL"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the container tests last: `make test` builds their images meanwhile."""
    items.sort(key=lambda item: item.get_closest_marker("container") is not None)

def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection built (modules, parameters), as serving processes freeze theirs.

    Every full garbage collection walked these ~300,000 objects again with the test's event
    loop stopped (bot/cli.py, _long_lived, says why that matters).
    """
    gc.collect()
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    """Let go of the test's web apps: aiohttp caches each app's middleware chain for good.

    The cache (1,024 entries) is keyed by the app's handlers, so each of them kept a whole
    bot alive: runtime, store, content bank, about 8,500 objects a Slack test. A test process
    runs thousands of tests; the heap grew past a million objects and a full garbage
    collection stopped the event loop for seconds on a busy machine, long enough for
    Discord's three seconds to pass before an acknowledgement (CI, stop 35).
    """
    web_app._cached_build_middleware.cache_clear()


_database_names = itertools.count()


def server_url() -> str:
    """Return the test server's URL, or fail (in CI) or skip (elsewhere) without one."""
    url = os.environ.get(PG_URL_ENV)
    if url:
        return normalize_url(url)
    if os.environ.get("CI"):
        pytest.fail(
            f"{PG_URL_ENV} is not set: CI must run the PostgreSQL tests; `make test` starts "
            "the server with scripts/pg-test-server.sh and sets it",
            pytrace=False,
        )
    pytest.skip(
        f"{PG_URL_ENV} is not set; run `make test`, or "
        f"`export {PG_URL_ENV}=$(scripts/pg-test-server.sh start .pgtest)`"
    )


class PgServer:
    """Create and drop databases on the test server, named per process so runs can overlap."""

    def __init__(self, url: str) -> None:
        self.url = url
        # CREATE/DROP DATABASE cannot run inside a transaction.
        self.admin = create_engine(url, isolation_level="AUTOCOMMIT")
        self.prefix = f"torchquiz_t{os.getpid()}"

    def create_database(self) -> str:
        """Create an empty database and return its URL."""
        name = f"{self.prefix}_{next(_database_names)}"
        with self.admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        return make_url(self.url).set(database=name).render_as_string(hide_password=False)

    def drop_database(self, url: str) -> None:
        """Drop the database at ``url``, closing whatever still uses it."""
        name = make_url(url).database
        with self.admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """Return the PostgreSQL test server (fails in CI and skips elsewhere when there is none)."""
    server = PgServer(server_url())
    yield server
    server.admin.dispose()


@pytest.fixture(scope="session")
def _pg_migrated(pg_server: PgServer) -> Iterator[tuple[str, Engine]]:
    """Return a migrated database for this test process and an engine that can empty it."""
    url = pg_server.create_database()
    upgrade(url)
    engine = make_engine(url)
    yield url, engine
    engine.dispose()
    pg_server.drop_database(url)


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a migrated SQLite file to copy: copying costs 0.3 ms, migrating 30 ms."""
    path = tmp_path_factory.mktemp("sqlite-template") / "template.sqlite3"
    upgrade(f"sqlite:///{path}")  # disposes its engine: the WAL is checkpointed into the file
    return path


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Return the URL of a migrated database with empty tables, on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path / "torchquiz.sqlite3"
        shutil.copyfile(request.getfixturevalue("_sqlite_template"), path)
        return f"sqlite:///{path}"
    url, engine = request.getfixturevalue("_pg_migrated")
    empty_tables(engine)
    return url


def empty_tables(engine: Engine) -> None:
    """Delete every row of a migrated PostgreSQL database and restart its ids at 1."""
    with engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):  # children before parents
            connection.execute(table.delete())
        # Ids restart at 1 as in a fresh SQLite file, so both backends hand out the same ids.
        connection.execute(
            text(
                "SELECT setval(pg_get_serial_sequence(t, 'id'), 1, false)"
                " FROM unnest(CAST(:t AS text[])) AS t"
            ),
            {"t": [table.name for table in Base.metadata.sorted_tables if "id" in table.c]},
        )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Return the URL of a database that was never migrated, on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    server: PgServer = request.getfixturevalue("pg_server")
    url = server.create_database()
    yield url
    server.drop_database(url)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """Return an engine on the test database, disposed after the test."""
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def clock() -> FakeClock:
    """Return a fake clock standing at Monday 2026-03-02 08:00 UTC."""
    return FakeClock(CLOCK_START)


@pytest.fixture
def store(engine: Engine, clock: FakeClock) -> SqlStore:
    """Return a SqlStore on the test database."""
    return SqlStore(engine, clock=clock)
