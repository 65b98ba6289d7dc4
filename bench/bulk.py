"""Load many answers fast into a database at the first schema revision, for benchmarks and tests.

The data goes in as revision 0001 stored it, through tables reflected from the database (never
the models, which move on); ``torchquiz db upgrade`` then carries it forward like a real
deployment's. A million answers take seconds this way, against minutes through the ORM.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, DateTime, MetaData, Table, func, select

from db import migrate
from db.engine import make_engine

FIRST_REVISION = "0001"
_ANSWER_COLUMNS = (
    "round_id", "user_id", "attempt", "mode", "response", "correct", "points", "verdict_status",
    "submitted_at",
)
_BATCH = 50_000


@dataclass(frozen=True)
class BulkAnswer:
    """One answer to load: a member's attempt at a round."""

    round_id: int
    user_id: int
    attempt: int
    correct: bool
    points: int
    submitted_at: dt.datetime
    response: str = "bulk"
    mode: str = "text"


@dataclass(frozen=True)
class BulkData:
    """Rows to load, as column dictionaries of revision 0001 (ids included), and the answers."""

    workspaces: Sequence[Mapping[str, Any]] = ()
    channels: Sequence[Mapping[str, Any]] = ()
    users: Sequence[Mapping[str, Any]] = ()
    rounds: Sequence[Mapping[str, Any]] = ()
    answers: Sequence[BulkAnswer] = field(default_factory=list)


def load_first_revision(url: str, data: BulkData) -> None:
    """Migrate an empty database at ``url`` to revision 0001 and load ``data`` into it."""
    migrate.upgrade(url, FIRST_REVISION)
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            tables = _reflect(connection)
            for name in ("workspaces", "channels", "users", "rounds"):
                rows = list(getattr(data, name))
                if rows:
                    connection.execute(tables[name].insert(), rows)
            if connection.dialect.name == "postgresql":
                _copy_answers(connection, data.answers)
            else:
                _insert_answers(connection, tables["answers"], data.answers)
            if connection.dialect.name == "postgresql":
                _restart_sequences(connection, tables)
    finally:
        engine.dispose()


def _reflect(connection: Connection) -> dict[str, Table]:
    metadata = MetaData()
    metadata.reflect(connection)
    return dict(metadata.tables)


def _values(answer: BulkAnswer) -> tuple[Any, ...]:
    return (
        answer.round_id, answer.user_id, answer.attempt, answer.mode, answer.response,
        answer.correct, answer.points, None, answer.submitted_at,
    )


def _insert_answers(connection: Connection, table: Table, answers: Iterable[BulkAnswer]) -> None:
    """Insert through the driver's executemany, timestamps in SQLAlchemy's own text format."""
    # The dialect's processor writes the exact text the models read back (SQLite keeps text).
    to_text = DateTime().dialect_impl(connection.dialect).bind_processor(connection.dialect)
    columns = ", ".join(_ANSWER_COLUMNS)
    marks = ", ".join("?" for _ in _ANSWER_COLUMNS)
    sql = f"INSERT INTO {table.name} ({columns}) VALUES ({marks})"  # noqa: S608 - fixed names
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        batch: list[tuple[Any, ...]] = []
        for answer in answers:
            row = _values(answer)
            when = answer.submitted_at.astimezone(dt.UTC)
            batch.append((*row[:-1], to_text(when) if to_text else when))
            if len(batch) >= _BATCH:
                cursor.executemany(sql, batch)
                batch.clear()
        if batch:
            cursor.executemany(sql, batch)
    finally:
        cursor.close()


def _copy_answers(connection: Connection, answers: Iterable[BulkAnswer]) -> None:
    """Stream the answers with COPY, PostgreSQL's bulk path (about 10x executemany)."""
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        with cursor.copy(f"COPY answers ({', '.join(_ANSWER_COLUMNS)}) FROM STDIN") as copy:
            for answer in answers:
                copy.write_row(_values(answer))
    finally:
        cursor.close()


def _restart_sequences(connection: Connection, tables: Mapping[str, Table]) -> None:
    """Point each id sequence past the loaded ids, so the application's inserts go on."""
    for name, table in tables.items():
        if "id" not in table.c or name == "alembic_version":
            continue
        last = select(func.max(table.c.id)).scalar_subquery()
        connection.execute(
            select(
                func.setval(
                    func.pg_get_serial_sequence(name, "id"), func.coalesce(last, 0) + 1, False
                )
            )
        )
