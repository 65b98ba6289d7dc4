"""Build SQLAlchemy engines: SQLite in WAL mode by default, PostgreSQL through psycopg 3."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

SQLITE_FILE_NAME = "torchquiz.sqlite3"
SQLITE_BUSY_TIMEOUT_MS = 10_000
# The execution option that marks a connection's transactions as read-only (see read_only).
READ_ONLY_OPTION = "torchquiz_read_only"


def default_url(data_dir: Path) -> str:
    """Return the embedded default: a SQLite file in ``data_dir``."""
    return f"sqlite:///{data_dir / SQLITE_FILE_NAME}"


def normalize_url(url: str) -> str:
    """Return ``url`` with PostgreSQL pointed at the psycopg 3 driver."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def make_engine(url: str) -> Engine:
    """Return an engine for ``url`` (SQLite file or PostgreSQL), configured for the bot."""
    url = normalize_url(url)
    if make_url(url).get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    # pre_ping: a long-running bot outlives server restarts and idle-connection reaping.
    return create_engine(url, pool_pre_ping=True)


def read_only(engine: Engine) -> Engine:
    """Return a view of ``engine`` (same pool) whose transactions only read.

    On SQLite they begin DEFERRED instead of IMMEDIATE, so a long read never holds the write
    lock that every answer needs. On PostgreSQL they run in autocommit: under READ COMMITTED
    every statement takes its own snapshot anyway, and BEGIN and COMMIT would add two round
    trips to each read (a third of a board's time, measured).
    """
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="AUTOCOMMIT", **{READ_ONLY_OPTION: True})
    return engine.execution_options(**{READ_ONLY_OPTION: True})


def _sqlite_engine(url: str) -> Engine:
    """Return a SQLite engine with WAL, foreign keys, a busy timeout and real transactions."""
    parsed = make_url(url)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        # The scheduler and adapters call the store from worker threads.
        connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        # Take transaction control from the driver: it would otherwise BEGIN lazily before the
        # first write only, so reads and writes of one method would not share a transaction.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            # NORMAL is safe in WAL mode: a power cut may lose the last commits, never corrupt.
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS:d}")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        if connection.get_execution_options().get(READ_ONLY_OPTION):
            # A read in WAL mode needs no lock: it sees the snapshot of its first statement
            # while writers go on. Taking the write lock here would stall every answer.
            connection.exec_driver_sql("BEGIN DEFERRED")
            return
        # IMMEDIATE takes the write lock up front, waiting out the busy timeout; a deferred
        # transaction that reads and then writes would fail at once with SQLITE_BUSY instead.
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine
