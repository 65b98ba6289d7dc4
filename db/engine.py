"""Build SQLAlchemy engines: SQLite in WAL mode by default, PostgreSQL through psycopg 3."""

from __future__ import annotations

import select
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError

SQLITE_FILE_NAME = "torchquiz.sqlite3"
SQLITE_BUSY_TIMEOUT_MS = 10_000
# A pooled PostgreSQL connection idle longer than this is pinged before it is handed out.
PING_AFTER_IDLE_S = 10.0
_IDLE_SINCE = "torchquiz_idle_since"
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


@dataclass(frozen=True)
class PoolOptions:
    """How many PostgreSQL connections one process may hold, and whether a pooler is between.

    A process holds at most ``size + overflow`` connections (SQLAlchemy's QueuePool): the
    budget every replica counts against (docs/storage.md, "Connections"). Behind PgBouncer in
    transaction mode (``pooler``), consecutive transactions of one connection may reach
    different server sessions, so nothing may outlive a transaction: psycopg's automatic
    server-side prepared statements are turned off (they would be missing in the next
    session, or collide with another client's of the same name). The store keeps no other
    session state: its advisory locks are transaction-scoped, it never LISTENs or SETs.
    """

    size: int = 5
    overflow: int = 10
    pooler: bool = False

    @property
    def most(self) -> int:
        """Return the most connections one process opens."""
        return self.size + self.overflow


def make_engine(
    url: str, *, ping_after_idle_s: float = PING_AFTER_IDLE_S, pool: PoolOptions | None = None
) -> Engine:
    """Return an engine for ``url`` (SQLite file or PostgreSQL), configured for the bot.

    ``ping_after_idle_s``: a pooled PostgreSQL connection idle that long is checked first.
    ``pool``: the PostgreSQL pool's size and whether a transaction pooler is in between.
    """
    url = normalize_url(url)
    if make_url(url).get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    return _postgres_engine(url, ping_after_idle_s, pool or PoolOptions())


def _postgres_engine(url: str, ping_after_idle_s: float, pool: PoolOptions) -> Engine:
    """Return a PostgreSQL engine that pings a pooled connection only when it may be dead.

    A long-running bot outlives server restarts and idle-connection reaping, so a connection
    that waited in the pool is pinged before use. One used moments ago is pinged only when the
    server has sent it something while it sat idle: a restarting server ends every session with
    a last message and closes the socket, which a poll sees without a round trip. Pinging on
    every checkout (pool_pre_ping) cost a round trip per store call, a third of a claim's
    (measured). A statement caught by the restart itself is retried by db.retry.
    """
    connect_args: dict[str, Any] = {"prepare_threshold": None} if pool.pooler else {}
    engine = create_engine(url, pool_size=pool.size, max_overflow=pool.overflow,
                           connect_args=connect_args)

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info[_IDLE_SINCE] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.get(_IDLE_SINCE)
        if idle_since is None:
            return  # opened for this checkout
        idle = time.monotonic() - idle_since >= ping_after_idle_s
        if not idle and not _server_spoke(dbapi_connection):
            return
        try:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            dbapi_connection.rollback()  # the ping opened a transaction; the pool expects none
        except Exception as exc:
            # The pool then replaces the connection and checks out again.
            raise DisconnectionError("connection lost while idle in the pool") from exc

    return engine


def _server_spoke(dbapi_connection: Any) -> bool:
    """Return whether an idle psycopg connection has input waiting (or no socket at all).

    An idle session receives nothing unless the server ends it (a restart, a terminated
    backend: a last error message, then end of file) or, rarely, a notice: the ping decides.
    """
    try:
        fd = dbapi_connection.pgconn.socket
    except Exception:
        return True  # psycopg raises when the connection is already closed or broken
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


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


class _WriterGate:
    """Let one write transaction of a SQLite engine run at a time, queued on a Python lock.

    SQLite has one writer per file: every other BEGIN IMMEDIATE finds the file locked and its
    busy handler sleeps 1, 2, 5, 10 ... up to 100 ms between tries, so under a burst of answers
    a waiting writer wakes long after the lock was free, and the writers' order is left to
    chance. Queued here instead, the next writer of the process starts as soon as the last one
    committed. Writers in other processes still meet SQLite's busy handler, and a writer that
    waited the whole busy timeout here goes on to SQLite's, which decides.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holder: object | None = None  # the DBAPI connection in a write transaction

    def enter(self, dbapi_connection: object) -> None:
        """Wait until no other connection of the engine writes (or the busy timeout passed)."""
        if self._lock.acquire(timeout=SQLITE_BUSY_TIMEOUT_MS / 1000):
            self._holder = dbapi_connection

    def leave(self, dbapi_connection: object) -> None:
        """Let the next writer in, if ``dbapi_connection`` is the one writing."""
        if dbapi_connection is not None and self._holder is dbapi_connection:
            self._holder = None
            self._lock.release()


def _raw(connection: Any) -> Any:
    """Return the DBAPI connection behind a pool's proxy (or the connection itself)."""
    return getattr(connection, "dbapi_connection", connection)


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
        dbapi_connection = _raw(connection.connection)
        gate.enter(dbapi_connection)
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            gate.leave(dbapi_connection)
            raise

    # The gate opens once the transaction has ended (committed or rolled back), or its
    # connection went back to the pool or was dropped without ending it.
    gate = _WriterGate()
    dialect = engine.dialect
    commit, rollback = dialect.do_commit, dialect.do_rollback

    def do_commit(connection: Any) -> None:
        try:
            commit(connection)
        finally:
            gate.leave(_raw(connection))

    def do_rollback(connection: Any) -> None:
        try:
            rollback(connection)
        finally:
            gate.leave(_raw(connection))

    dialect.do_commit = do_commit  # type: ignore[method-assign,assignment]
    dialect.do_rollback = do_rollback  # type: ignore[method-assign,assignment]

    @event.listens_for(engine, "checkin")
    def _on_checkin(dbapi_connection: Any, _record: Any) -> None:
        gate.leave(dbapi_connection)

    @event.listens_for(engine, "invalidate")
    def _on_invalidate(dbapi_connection: Any, _record: Any, _exc: Any) -> None:
        gate.leave(dbapi_connection)

    return engine
