"""A PostgreSQL restart in the middle of a burst of answers: every answer is recorded once.

A throwaway cluster of its own is restarted (`pg_ctl restart -m fast`, as an operator or a
failover would) while a few threads record answers through the real SqlStore every 50-100 ms.
Each call's outcome is then set against the rows: none lost, none twice, none refused. The
pacing sleeps only spread the answers around the restart; nothing asserts on a duration.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.core.kernel.models import AnswerDraft, AnswerMode, AnswerRecord
from db.engine import make_engine
from db.migrate import upgrade
from db.store import SqlStore
from tests.db.builders import T0, make_channel, make_member, open_round

log = logging.getLogger(__name__)

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "pg-test-server.sh"
THREADS = 4
ANSWERS_EACH = 30
RESTART_AFTER = 8  # answers every thread has given when the server restarts
HANG_GUARD_S = 120  # only reached when a thread is stuck: the test then fails


@pytest.fixture
def restartable_pg(pg_server, tmp_path: Path) -> Iterator[tuple[str, Callable[[], None]]]:
    """Return a migrated database on a cluster of its own, and a function that restarts it.

    Its own cluster: restarting the shared test server would cut every other test's
    connections. pg_server only applies the suite's rule (fail in CI, skip elsewhere).
    """
    del pg_server
    folder = tmp_path / "pg"
    started = subprocess.run(
        [SCRIPT, "start", folder], capture_output=True, text=True, check=False
    )
    if started.returncode != 0:
        pytest.fail(f"could not start a PostgreSQL cluster to restart:\n{started.stderr}")
    url = started.stdout.strip()
    try:
        upgrade(url)
        yield url, lambda: subprocess.run([SCRIPT, "restart", folder], check=True)
    finally:
        subprocess.run([SCRIPT, "stop", folder], check=True)


@dataclass(frozen=True)
class Outcome:
    """What one record_answer call returned or raised, and when it ran."""

    user_id: int
    attempt: int
    started: float
    ended: float
    result: str  # "recorded", "already recorded" or the exception's type


def test_no_answer_is_lost_or_doubled_when_postgres_restarts_mid_burst(restartable_pg):
    url, restart = restartable_pg
    engine = make_engine(url)
    store = SqlStore(engine)
    channel = make_channel(store)
    rnd = open_round(store, channel)
    members = [make_member(store, f"U{n}", f"member {n}") for n in range(THREADS)]
    outcomes: list[Outcome] = []
    given = threading.Semaphore(0)

    def answer_every_so_often(n: int) -> None:
        pace = random.Random(n)  # noqa: S311 - spreads the calls, nothing secret
        user_id = members[n].id
        for attempt in range(1, ANSWERS_EACH + 1):
            draft = AnswerDraft(
                round_id=rnd.id, user_id=user_id, attempt=attempt, mode=AnswerMode.TEXT,
                response=f"answer {attempt}", correct=attempt % 3 == 0, points=attempt % 3,
                submitted_at=T0 + dt.timedelta(seconds=attempt),
            )
            started = time.monotonic()
            try:
                stored = store.record_answer(draft)
                result = "recorded" if isinstance(stored, AnswerRecord) else "already recorded"
            except Exception as exc:
                result = type(exc).__name__
            outcomes.append(Outcome(user_id, attempt, started, time.monotonic(), result))
            if attempt == RESTART_AFTER:
                given.release()
            time.sleep(pace.uniform(0.05, 0.1))

    threads = [threading.Thread(target=answer_every_so_often, args=(n,)) for n in range(THREADS)]
    try:
        for thread in threads:
            thread.start()
        for _ in threads:
            assert given.acquire(timeout=HANG_GUARD_S), "a thread stopped answering"
        with engine.connect() as connection:
            started_at = connection.execute(text("SELECT pg_postmaster_start_time()")).scalar()
        restart_began = time.monotonic()
        restart()
        restart_ended = time.monotonic()
    finally:
        for thread in threads:
            thread.join(HANG_GUARD_S)
    try:
        with engine.connect() as connection:
            now_started = connection.execute(text("SELECT pg_postmaster_start_time()")).scalar()
            rows = [
                (user_id, attempt)
                for user_id, attempt in connection.execute(
                    text("SELECT user_id, attempt FROM answers WHERE round_id = :r"),
                    {"r": rnd.id},
                )
            ]
        boards = (store.top_scores(channel.id, None, None), store.scores(channel.id))
    finally:
        engine.dispose()

    assert now_started > started_at, "the server did not restart during the burst"
    results = Counter(outcome.result for outcome in outcomes)
    # In flight: the calls that overlapped the restart (the server going down, away, coming
    # back); then each thread's first call after it, on a connection opened before it.
    around = [o for o in outcomes if o.started < restart_ended and o.ended > restart_began]
    first_after = [
        min((o for o in outcomes if o.user_id == m.id and o.started >= restart_ended),
            key=lambda o: o.started).result
        for m in members
    ]
    failed = {(o.user_id, o.attempt) for o in outcomes if o.result != "recorded"}
    log.info(
        "restart took %.0f ms; %d answers: %s; in flight at the restart: %s; first after it: %s;"
        " stored though not acknowledged: %d",
        (restart_ended - restart_began) * 1000, len(outcomes), dict(results),
        [o.result for o in around], first_after, len(failed & set(rows)),
    )
    assert len(outcomes) == THREADS * ANSWERS_EACH
    assert len(rows) == len(set(rows)), "an answer was stored twice"
    # Every draft is a new attempt: "already recorded" would be a retry mistaking its own
    # committed first try for someone else's, and the member would get no reply.
    assert results == {"recorded": THREADS * ANSWERS_EACH}, [
        o for o in outcomes if o.result != "recorded"
    ]
    assert set(rows) == {(o.user_id, o.attempt) for o in outcomes}
    # A retried write did not add to the totals twice: the kept totals equal a recount.
    assert boards[0] == boards[1]
