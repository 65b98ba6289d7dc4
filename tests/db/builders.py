"""Build channels, members, rounds and answers for store tests, and race two stores."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any, TypeVar

import psycopg
from sqlalchemy import Engine, event
from sqlalchemy.exc import OperationalError

from bot.core.kernel.models import (
    AnswerDraft,
    AnswerMode,
    AnswerRecord,
    ChannelDefaults,
    ChannelSettings,
    Member,
    Round,
)
from bot.core.store import QuizStore
from db.engine import make_engine
from db.store import SqlStore
from tests.fakes import CLOCK_START

T = TypeVar("T")
DAY = dt.date(2026, 3, 2)
T0 = CLOCK_START
HOUR = dt.timedelta(hours=1)


def _typed(engine: Engine) -> QuizStore:
    # mypy checks this assignment when it checks the tests; `mypy db` checks the same in db.store.
    store: QuizStore = SqlStore(engine)
    return store


def make_channel(
    store: SqlStore,
    external_id: str = "C1",
    platform: str = "slack",
    workspace: str = "W1",
    **defaults,
) -> ChannelSettings:
    return store.ensure_channel(platform, external_id, workspace, ChannelDefaults(**defaults))


def make_member(store: SqlStore, external_id: str = "U1", name: str = "Ada") -> Member:
    return store.ensure_member("slack", external_id, name)


def open_round(
    store: SqlStore,
    channel: ChannelSettings,
    day: dt.date = DAY,
    item: str = "tensors.view",
    opened: dt.datetime = T0,
) -> Round:
    claimed = store.claim_round(channel.id, day, item, 1, opened, opened + 23 * HOUR)
    assert claimed is not None
    return claimed


def answer(
    store: SqlStore,
    round_: Round,
    member: Member,
    attempt: int = 1,
    *,
    correct: bool = True,
    points: int = 10,
    at: dt.datetime = T0,
    response: str = "view shares storage",
) -> AnswerRecord | None:
    return store.record_answer(
        AnswerDraft(
            round_id=round_.id,
            user_id=member.id,
            attempt=attempt,
            mode=AnswerMode.TEXT,
            response=response,
            correct=correct,
            points=points,
            submitted_at=at,
        )
    )


def race(
    database_url: str, action: Callable[[SqlStore], T], *, contenders: int = 2, shared: bool = False
) -> list[T]:
    """Run ``action`` at the same moment in several threads, on one engine or one each.

    One engine is a bot process with worker threads; one engine each is several replicas.
    """
    engines = [make_engine(database_url) for _ in range(1 if shared else contenders)]
    stores = [SqlStore(engines[n % len(engines)]) for n in range(contenders)]
    # Connect first (every thread's connection at once), so the race is on the statement.
    with ExitStack() as connections:
        for n in range(contenders):
            connections.enter_context(engines[n % len(engines)].connect())
    barrier = threading.Barrier(contenders)

    def run(store: SqlStore) -> T:
        barrier.wait()
        return action(store)

    try:
        with ThreadPoolExecutor(contenders) as pool:
            return list(pool.map(run, stores))
    finally:
        for engine in engines:
            engine.dispose()


def lose_the_first_commits_answer(store: Any) -> list[bool]:
    """Make the next commit of ``store`` succeed on the server but fail on the way back.

    The connection drops after COMMIT was sent: the rows are in, the caller sees an error (the
    case a retry must recognise). The returned list holds one item once that has happened.
    """
    lost: list[bool] = []

    def lose_the_commits_answer(connection: Any) -> None:
        # The engine's commit event runs before the commit: commit here on the driver's
        # connection, then fail as a connection lost on the way back would.
        if not lost:
            lost.append(True)
            connection.connection.dbapi_connection.commit()
            raise OperationalError(
                "COMMIT", None, psycopg.OperationalError("server closed the connection"),
                connection_invalidated=True,
            )

    event.listen(store.engine, "commit", lose_the_commits_answer)
    return lost
