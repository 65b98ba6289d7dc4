"""Share what every part of SqlStore needs: sessions, dialect-aware upserts and the clock."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Connection, Delete, Engine, Executable, Update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker

from bot.core.kernel.clock import SystemClock
from bot.core.kernel.ports import Clock
from db.engine import read_only
from db.retry import retry_on_disconnect
from db.tables import Base

Upsert = postgresql.Insert | sqlite.Insert
T = TypeVar("T")


class StoreBase:
    """Hold the engine and open one transaction per store method."""

    def __init__(self, engine: Engine, clock: Clock | None = None) -> None:
        self._engine = engine
        self._clock: Clock = clock or SystemClock()
        # expire_on_commit=False: rows are turned into frozen values after the commit too.
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self._read_engine = read_only(engine)
        self._read_sessions = sessionmaker(self._read_engine, expire_on_commit=False)
        self._autocommit = (engine.execution_options(isolation_level="AUTOCOMMIT")
                            if engine.dialect.name == "postgresql" else engine)

    @property
    def engine(self) -> Engine:
        """Return the engine this store runs on."""
        return self._engine

    @property
    def _postgres(self) -> bool:
        return self._engine.dialect.name == "postgresql"

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        """Yield a session whose transaction commits on success and rolls back on error."""
        with self._sessions.begin() as session:
            yield session

    @contextmanager
    def _read(self) -> Iterator[Session]:
        """Yield a session for reading only: on SQLite it never takes the write lock.

        On SQLite the transaction begins deferred and keeps the snapshot of its first statement
        while writers commit (WAL); on PostgreSQL each statement runs in autocommit with its own
        snapshot, as under READ COMMITTED. Never write through it: nothing would roll back.
        """
        with self._read_sessions.begin() as session:
            yield session

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        """Yield a Core connection in a read-only transaction, like ``_read`` without the ORM.

        The hot reads (boards, stats, the round an answer goes to) run prebuilt statements
        this way: a Session and a freshly built query cost about 1 ms more per call.
        """
        with self._read_engine.begin() as connection:
            yield connection

    @contextmanager
    def _one_write(self) -> Iterator[Connection]:
        """Yield a Core connection for one statement that writes, atomic on its own.

        On PostgreSQL it runs in autocommit: a statement is its own transaction there, and
        BEGIN and COMMIT would add two round trips to it. On SQLite an immediate transaction.
        Never send two statements through it: nothing would hold them together.
        """
        with self._autocommit.begin() as connection:
            yield connection

    @retry_on_disconnect
    def _fetch(self, stmt: Executable, params: Mapping[str, Any] | None = None) -> list[Any]:
        """Return the rows of one prebuilt read-only statement."""
        with self._reading() as connection:
            return list(connection.execute(stmt, dict(params or {})))

    def _upsert(self, table: type[Base]) -> Upsert:
        """Return an INSERT that supports ON CONFLICT in this engine's dialect."""
        # Both dialects spell ON CONFLICT the same way; SQLAlchemy has no portable construct.
        if self._engine.dialect.name == "postgresql":
            return postgresql.insert(table)
        if self._engine.dialect.name == "sqlite":
            return sqlite.insert(table)
        raise NotImplementedError(f"unsupported database: {self._engine.dialect.name}")


# Ids or rows per statement when a call covers many channels: far below SQLite's 32,766 bound
# parameters per statement (a claim binds 7), and large enough that a minute in which 10,000
# channels are due costs a few dozen statements.
BATCH = 500


def batches(items: Sequence[T], size: int = BATCH) -> Iterator[Sequence[T]]:
    """Yield ``items`` in slices of at most ``size``."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def rowcount(session: Session, stmt: Update | Delete) -> int:
    """Execute ``stmt`` in the session's transaction and return how many rows it changed."""
    # The Core connection returns a CursorResult, which (unlike the ORM's Result) has rowcount.
    return session.connection().execute(stmt).rowcount
