"""Measure the core on real storage: boards and stats at N answers, answers in a burst, fan-out.

``torchquiz bench core --answers 1000000 [--postgres-url URL] [--json]``. Per backend: load N
answers (one channel, 2,000 members, 365 rounds) as revision 0001 stored them, migrate to head
(the backfill is timed), then time ``/leaderboard week|all`` and ``/stats`` through BoardService
and SqlStore (p50/p95 after a warm-up), count their queries, time ``record_answer``, and check
the boards against a recount of every answer. Then 500 members answer one round at once through
QuizService (each answer stored exactly once, totals equal to a recount), and several replicas
claim 10,000 channels' rounds for one minute (each claimed exactly once). bench/learning.py
adds the figures of reviews and reminders: /quiz's next item with 100,000 FSRS cards, one
answer's FSRS update, and 10,000 members' reminders due in one minute.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import multiprocessing
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, create_engine, event, insert, text
from sqlalchemy.engine import make_url

from bench import learning
from bench.bulk import BulkAnswer, BulkData, load_first_revision
from bot.core.boards.board import BoardService
from bot.core.kernel.models import (
    Actor,
    AnswerDraft,
    AnswerMode,
    ChannelSettings,
    LeaderboardRow,
    week_start,
)
from bot.core.quality.insights import InsightsService
from bot.core.questions.scoring import points_for, rank, replay_streak
from bot.core.rounds.service import QuizService
from content.loader import Bank, load_bank
from content.schema import TextItem
from db.engine import make_engine, normalize_url
from db.migrate import upgrade
from db.store import SqlStore
from db.tables import ChannelRow, WorkspaceRow

T = TypeVar("T")
TARGET_MS = 50.0
CONTENT_STATS_TARGET_MS = 2000.0  # `torchquiz content stats` over every answer
RECORD_TARGET_MS = 5.0
# Rounds run daily from here (a Sunday): with 365 rounds the last is a Sunday too, so the
# week board holds a whole week of rounds.
START = dt.date(2025, 3, 2)
ZONE = "Europe/Berlin"
# Each member answers a round with a chance chosen so that the total comes out at N; a text
# question allows three tries, each right with this chance.
RIGHT = 0.6
TRIES = 3
ROOT = Path(__file__).resolve().parents[1]
PG_SCRIPT = ROOT / "scripts" / "pg-test-server.sh"


class FixedClock:
    """A clock that stands where the benchmark put it."""

    def __init__(self, now: dt.datetime) -> None:
        self._now = now

    def now(self) -> dt.datetime:
        """Return the set instant."""
        return self._now


@dataclass
class QueryCounter:
    """Count the statements an engine sends, by their first word."""

    counts: dict[str, int] = field(default_factory=dict)

    def attach(self, engine: Engine) -> None:
        """Start counting ``engine``'s statements."""
        event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        word = statement.lstrip().split(None, 1)[0].upper() if statement.strip() else ""
        self.counts[word] = self.counts.get(word, 0) + 1

    @contextmanager
    def measuring(self) -> Iterator[dict[str, int]]:
        """Yield a dictionary that holds, afterwards, the statements sent inside the block."""
        before = dict(self.counts)
        found: dict[str, int] = {}
        yield found
        found.update({k: v - before.get(k, 0) for k, v in self.counts.items()
                      if v != before.get(k, 0)})


def percentiles(samples: list[float]) -> dict[str, float]:
    """Return p50, p95 and p99 of ``samples`` (nearest rank)."""
    ordered = sorted(samples)

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]

    return {"p50": statistics.median(ordered), "p95": at(0.95), "p99": at(0.99),
            "n": float(len(ordered))}


def _found(value: T | None, what: str) -> T:
    if value is None:
        raise RuntimeError(f"bench core: {what} is missing from the loaded database")
    return value


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    """Call ``fn`` once to warm up, then ``repeat`` times; return the times in ms."""
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


# ---------------------------------------------------------------------------- the data set
@dataclass(frozen=True)
class Dataset:
    """What the loaded database holds: one channel, its members and rounds."""

    answers: int
    members: int
    rounds: int
    channel_id: int
    now: dt.datetime
    items: tuple[str, ...]


def generate(
    n_answers: int, members: int, rounds: int, items: list[str], seed: int
) -> tuple[BulkData, Dataset]:
    """Return N answers of ``members`` over ``rounds`` daily rounds, and what they describe."""
    expected_tries = sum((1 - RIGHT) ** k for k in range(TRIES))
    # Every member answering every round holds about members x rounds x 1.56 answers: the
    # loop below would stop short of N without a word (2,000 members hold about 1.1M).
    needed = math.ceil(n_answers / (rounds * expected_tries * 0.95))
    if needed > members:
        raise SystemExit(f"bench core: {n_answers:,} answers need about {needed:,} members over"
                         f" {rounds} rounds; pass --members {needed}")
    chance = min(1.0, n_answers / (members * rounds * expected_tries))
    while True:
        round_rows, answers = _answers(members, rounds, items, chance, seed)
        if len(answers) >= n_answers or chance >= 1.0:
            break
        # Chance fell short of N: ask for a little more than the shortfall, then trim.
        chance = min(1.0, chance * n_answers / len(answers) * 1.01)
    del answers[n_answers:]
    data = BulkData(
        workspaces=[{"id": 1, "platform": "bench", "external_id": "W"}],
        channels=[{
            "id": 1, "platform": "bench", "external_id": "C", "workspace_id": 1,
            "name": "bench", "post_time": dt.time(9), "timezone": ZONE, "locale": "en",
            "topics": [], "difficulties": [], "enabled": True, "leaderboard_weekday": 4,
            "leaderboard_hour": 16, "round_hours": 23,
            "created_at": dt.datetime.combine(START, dt.time(0), tzinfo=dt.UTC),
        }],
        users=[{"id": u, "platform": "bench", "external_id": f"U{u}",
                "display_name": f"member {u:04d}"} for u in range(1, members + 1)],
        rounds=round_rows,
        answers=answers,
    )
    # Evening of the last day: its round is still open, the week is nearly over.
    now = round_rows[-1]["opened_at"] + dt.timedelta(hours=11)
    return data, Dataset(len(answers), members, rounds, 1, now, tuple(items))


def _answers(
    members: int, rounds: int, items: list[str], chance: float, seed: int
) -> tuple[list[dict[str, Any]], list[BulkAnswer]]:
    rng = random.Random(seed)  # noqa: S311 - a reproducible data set, not a secret
    zone = ZoneInfo(ZONE)
    answers: list[BulkAnswer] = []
    round_rows: list[dict[str, Any]] = []
    for day in range(rounds):
        local_date = START + dt.timedelta(days=day)
        opened = dt.datetime.combine(local_date, dt.time(9), tzinfo=zone).astimezone(dt.UTC)
        round_id = day + 1
        difficulty = 1 + day % 3
        last = day == rounds - 1
        round_rows.append({
            "id": round_id, "channel_id": 1, "local_date": local_date,
            "item_id": items[day % len(items)], "item_version": 1,
            # The last round is open: the board's grace rule for today's round is exercised.
            "status": "open" if last else "closed",
            "opened_at": opened, "closes_at": opened + dt.timedelta(hours=23),
            "closed_at": None if last else opened + dt.timedelta(hours=23),
            "message_ref": None,
        })
        for user_id in range(1, members + 1):
            if rng.random() >= chance:
                continue
            at = opened + dt.timedelta(seconds=rng.randrange(10 * 3600))
            for attempt in range(1, TRIES + 1):
                right = rng.random() < RIGHT
                answers.append(BulkAnswer(round_id, user_id, attempt, right,
                                          points_for(difficulty, attempt, right), at))
                if right:
                    break
                at += dt.timedelta(seconds=rng.randrange(30, 3600))
    return round_rows, answers


# ---------------------------------------------------------------------------- backends
@dataclass
class Backend:
    """A database to benchmark on, and how to get rid of it."""

    name: str
    url: str
    size: Callable[[Engine], int]
    drop: Callable[[], None]


def sqlite_backend(workdir: Path) -> Backend:
    """Return a fresh SQLite file in ``workdir``."""
    path = workdir / "bench.sqlite3"
    for leftover in workdir.glob("bench.sqlite3*"):
        leftover.unlink()

    def size(_engine: Engine) -> int:
        return sum(p.stat().st_size for p in workdir.glob("bench.sqlite3*"))

    def drop() -> None:
        for leftover in workdir.glob("bench.sqlite3*"):
            leftover.unlink()

    return Backend("sqlite", f"sqlite:///{path}", size, drop)


def postgres_backend(server_url: str) -> Backend:
    """Create a fresh database on the server at ``server_url`` and return it."""
    admin = create_engine(normalize_url(server_url), isolation_level="AUTOCOMMIT")
    name = f"torchquiz_bench_{random.randrange(10**8)}"  # noqa: S311 - a name, not a secret
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(normalize_url(server_url)).set(database=name).render_as_string(
        hide_password=False)

    def size(engine: Engine) -> int:
        with engine.connect() as connection:
            return int(connection.execute(
                text("SELECT pg_database_size(current_database())")).scalar_one())

    def drop() -> None:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return Backend("postgresql", url, size, drop)


@contextmanager
def throwaway_postgres(workdir: Path) -> Iterator[str | None]:
    """Start the test suite's throwaway PostgreSQL server; yield its URL, or None if it can't."""
    if not PG_SCRIPT.exists():
        yield None
        return
    folder = workdir / "pg"
    try:
        started = subprocess.run(  # noqa: S603 - the project's own script, fixed arguments
            [str(PG_SCRIPT), "start", str(folder)], capture_output=True, text=True, check=True,
            timeout=120)
    except (subprocess.SubprocessError, OSError) as exc:
        print(f"bench core: no PostgreSQL server could be started ({exc})", file=sys.stderr)
        yield None
        return
    try:
        yield started.stdout.strip()
    finally:
        subprocess.run([str(PG_SCRIPT), "stop", str(folder)],  # noqa: S603
                       capture_output=True, check=False, timeout=120)


# ---------------------------------------------------------------------------- measurements
def recount_rows(store: SqlStore, channel: ChannelSettings, since: dt.datetime | None,
                 open_date: dt.date | None) -> list[LeaderboardRow]:
    """Return the board recounted from every answer: what the totals are checked against."""
    scores = store.scores(channel.id, since)
    dates = store.round_dates(channel.id)
    states = {s.user_id: replay_streak(dates, store.solved_dates(channel.id, s.user_id),
                                       open_date) for s in scores}
    ranked = rank(scores, {uid: state.current for uid, state in states.items()})
    return [replace(row, freezes=states[row.user_id].freezes) for row in ranked]


def measure_backend(backend: Backend, args: argparse.Namespace, bank: Bank) -> dict[str, Any]:
    """Load, migrate and measure one backend; return the figures."""
    items = sorted(bank.questions)
    data, dataset = generate(args.answers, args.members, args.rounds, items, args.seed)
    result: dict[str, Any] = {"backend": backend.name, "answers": dataset.answers,
                              "members": dataset.members, "rounds": dataset.rounds}
    start = time.perf_counter()
    load_first_revision(backend.url, data)
    result["load_s"] = round(time.perf_counter() - start, 1)
    del data
    start = time.perf_counter()
    upgrade(backend.url)
    result["migrate_backfill_s"] = round(time.perf_counter() - start, 1)

    engine = make_engine(backend.url)
    counter = QueryCounter()
    counter.attach(engine)
    clock = FixedClock(dataset.now)
    store = SqlStore(engine, clock=clock)
    board = BoardService(store, bank, clock)
    channel = _found(store.get_channel(dataset.channel_id), "the loaded channel")
    rng = random.Random(args.seed)  # noqa: S311
    members = [m for _ in range(8)
               if (m := store.get_member(rng.randrange(1, dataset.members + 1))) is not None]
    try:
        # The first topic board stores the library's topics and counts every topic's totals
        # from the answers (migration 0030's backfill); from then on, answers add to them.
        topic = _widest_topic(bank)
        start = time.perf_counter()
        board.topic_board(channel, topic, 20)
        result["topic_backfill_s"] = round(time.perf_counter() - start, 1)
        calls: dict[str, Callable[[], Any]] = {
            "leaderboard_week": lambda: board.leaderboard(channel, "week", "en"),
            "leaderboard_all": lambda: board.leaderboard(channel, "all", "en"),
            "stats": lambda: board.stats_message(channel, rng.choice(members), "en"),
            "topic_board": lambda: board.topic_board(channel, topic, 20),
        }
        queries: dict[str, dict[str, int]] = {}
        for name, call in calls.items():
            figures = percentiles(timed(call, args.repeat))
            result[f"{name}_ms"] = round(figures["p50"], 2)
            result[f"{name}_p95_ms"] = round(figures["p95"], 2)
            with counter.measuring() as sent:
                call()
            queries[name] = sent
        result["queries_per_call"] = {k: v.get("SELECT", 0) for k, v in queries.items()}
        result["queries_per_leaderboard"] = max(result["queries_per_call"]["leaderboard_week"],
                                                result["queries_per_call"]["leaderboard_all"])
        result.update(measure_content_stats(store, bank, clock, counter))
        if not args.no_check:
            result["boards_equal_recount"] = check_boards(store, board, channel)
        result.update(measure_record_answer(store, channel, dataset, args.record_samples))
        if args.review_cards:
            # Before the burst of answers below, whose cards then update these.
            result["learning"] = learning.measure(backend.url, bank, args, dataset.members,
                                                  channel.id, dataset.now, counter)
        result["database_bytes"] = backend.size(engine)
        if args.concurrent:
            result["concurrent"] = concurrent_answers(backend.url, bank, dataset, args)
        if args.channels:
            result["fan_out"] = fan_out(backend.url, dataset, args)
    finally:
        engine.dispose()
    return result


def measure_content_stats(store: SqlStore, bank: Bank, clock: FixedClock,
                          counter: QueryCounter) -> dict[str, Any]:
    """Time `content stats` (every item version's p and discrimination) over every answer."""
    insights = InsightsService(store, bank, clock)
    samples = timed(insights.stats, 3)
    with counter.measuring() as sent:
        found = insights.stats()
    return {"content_stats_ms": round(statistics.median(samples), 1),
            "content_stats_queries": sum(sent.values()),
            "content_stats_items": sum(1 for s in found if s.answered)}


def _widest_topic(bank: Bank) -> str:
    """Return the topic most of the bank's questions cover: the largest per-topic board."""
    counted = Counter(topic for q in bank.questions.values() for topic in q.topics)
    return counted.most_common(1)[0][0]


def check_boards(store: SqlStore, board: BoardService, channel: ChannelSettings) -> bool:
    """Return whether the boards from totals equal the boards from a recount of every answer.

    The per-topic board of every topic too, against its former recount of the answers.
    """
    open_date = board._open_date(channel)
    ok = True
    for period, since in (("week", week_start(board.clock.now(), channel.timezone)),
                          ("all", None)):
        ok &= board.rows(channel, period) == recount_rows(store, channel, since, open_date)[:20]
    topics_of = board.bank.topics_of()
    for topic in sorted({t for topics in topics_of.values() for t in topics}):
        items = [item for item, topics in topics_of.items() if topic in topics]
        ok &= store.topic_scores(channel.id, topic) == store.topic_scores_recount(channel.id,
                                                                                  items)
    return ok


def measure_record_answer(store: SqlStore, channel: ChannelSettings, dataset: Dataset,
                          samples: int) -> dict[str, Any]:
    """Time record_answer one at a time on a fresh round of the loaded channel."""
    now = dataset.now
    day = START + dt.timedelta(days=dataset.rounds + 1)
    rnd = _found(store.claim_round(channel.id, day, dataset.items[0], 1, now,
                                   now + dt.timedelta(hours=23)), "a new round")
    times = []
    for n in range(min(samples, dataset.members)):
        draft = AnswerDraft(round_id=rnd.id, user_id=n + 1, attempt=1, mode=AnswerMode.TEXT,
                            response="detach", correct=n % 3 != 0, points=15 if n % 3 else 0,
                            submitted_at=now + dt.timedelta(seconds=n))
        start = time.perf_counter()
        store.record_answer(draft)
        times.append((time.perf_counter() - start) * 1000)
    figures = percentiles(times)
    return {"record_answer_ms": round(figures["p50"], 2),
            "record_answer_p95_ms": round(figures["p95"], 2)}


def _text_item(bank: Bank) -> TextItem:
    return next(q for _, q in sorted(bank.questions.items())
                if isinstance(q, TextItem) and q.numeric is None)


def concurrent_answers(url: str, bank: Bank, dataset: Dataset,
                       args: argparse.Namespace) -> dict[str, Any]:
    """Have members answer one open round at once through QuizService; check every answer."""
    engine = make_engine(url)
    now = dataset.now + dt.timedelta(days=3)
    clock = FixedClock(now)
    store = SqlStore(engine, clock=clock)
    quiz = QuizService(store, bank, clock)
    board = BoardService(store, bank, clock)
    item = _text_item(bank)
    channel = _found(store.get_channel(dataset.channel_id), "the loaded channel")
    day = START + dt.timedelta(days=dataset.rounds + 3)
    rnd = _found(store.claim_round(channel.id, day, item.id, item.version, now,
                                   now + dt.timedelta(hours=23)), "a new round")
    count = min(args.concurrent, dataset.members)
    members = [_found(store.get_member(uid), "a member") for uid in range(1, count + 1)]
    barrier = threading.Barrier(min(count, args.threads))
    latencies: list[float] = []
    lock = threading.Lock()

    def answer(n: int) -> bool:
        member = members[n]
        if n < args.threads:
            barrier.wait()
        response = item.accepted[0] if n % 4 else "certainly not this"
        start = time.perf_counter()
        outcome = quiz.answer_round(rnd.id, Actor(member), response)
        elapsed = (time.perf_counter() - start) * 1000
        with lock:
            latencies.append(elapsed)
        return outcome.recorded

    try:
        start = time.perf_counter()
        with ThreadPoolExecutor(args.threads) as pool:
            recorded = list(pool.map(answer, range(count)))
        wall = time.perf_counter() - start
        with engine.connect() as connection:
            stored, distinct_members = connection.execute(
                text("SELECT count(*), count(DISTINCT user_id) FROM answers WHERE round_id = :r"),
                {"r": rnd.id}).one()
        totals = {s.user_id: s for s in store.scores(channel.id)}
        totals_ok = all(store.member_score(channel.id, uid) == totals[uid]
                        for uid in range(1, count + 1))
        open_date = board._open_date(channel)
        board_ok = board.rows(channel, "all") == recount_rows(store, channel, None,
                                                             open_date)[:20]
        figures = percentiles(latencies)
        return {
            "members": count, "threads": args.threads, "recorded": sum(recorded),
            "stored": stored, "exactly_once": stored == distinct_members == count,
            "totals_equal_recount": totals_ok, "board_equal_recount": board_ok,
            "answer_p50_ms": round(figures["p50"], 2), "answer_p99_ms": round(figures["p99"], 2),
            "wall_s": round(wall, 2),
        }
    finally:
        engine.dispose()


def fan_out(url: str, dataset: Dataset, args: argparse.Namespace) -> dict[str, Any]:
    """Let several replicas post the same minute's round for many channels; count the claims."""
    setup = make_engine(url)
    first = 1000
    now = dataset.now + dt.timedelta(days=5)
    # Channels are created in bulk: the subject is the claims, not the sign-up.
    with setup.begin() as connection:
        connection.execute(insert(WorkspaceRow).values(id=first, platform="fan", external_id="W"))
        connection.execute(insert(ChannelRow), [
            {"id": first + n, "platform": "fan", "external_id": f"C{n}", "workspace_id": first,
             "name": f"fan {n}", "post_time": dt.time(9), "timezone": ZONE, "locale": "en",
             "topics": [], "difficulties": [], "enabled": True, "leaderboard_weekday": 4,
             "leaderboard_hour": 16, "round_hours": 23, "created_at": now}
            for n in range(args.channels)
        ])
    setup.dispose()
    # Replicas are processes, as in a deployment: threads of one process would share its GIL.
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(args.replicas + 1)
    results: Any = context.Queue()
    ids = list(range(first, first + args.channels))
    replicas = [
        context.Process(target=_replica, args=(url, ids, now, n, barrier, results))
        for n in range(args.replicas)
    ]
    for replica in replicas:
        replica.start()
    barrier.wait(timeout=600)  # every replica has its engine and bank: the minute starts now
    start = time.perf_counter()
    won = [results.get(timeout=3600) for _ in replicas]
    wall = time.perf_counter() - start
    for replica in replicas:
        replica.join()
    if min(won) < 0:
        raise RuntimeError("bench core: a fan-out replica failed (its traceback is above)")
    setup = make_engine(url)
    try:
        with setup.connect() as connection:
            rounds, channels = connection.execute(text(
                "SELECT count(*), count(DISTINCT channel_id) FROM rounds"
                " WHERE channel_id >= :first"), {"first": first}).one()
    finally:
        setup.dispose()
    return {"channels": args.channels, "replicas": args.replicas, "claims_won": sum(won),
            "rounds": rounds, "exactly_once": rounds == channels == sum(won) == args.channels,
            "wall_s": round(wall, 2), "within_a_minute": wall < 60}


def _replica(url: str, ids: list[int], now: dt.datetime, seed: int, barrier: Any,
             results: Any) -> None:
    """Post the round of every channel in ``ids``, in an order of its own; report the wins.

    Reports -1 when it failed, so the benchmark stops instead of waiting for it.
    """
    won = -1
    engine = make_engine(url)
    try:
        clock = FixedClock(now)
        service = QuizService(SqlStore(engine, clock=clock), load_bank(), clock)
        order = ids[:]
        random.Random(seed).shuffle(order)  # noqa: S311
        barrier.wait(timeout=600)
        # As the scheduler does at the minute: every due channel in one post_rounds call.
        won = len(service.post_rounds(order))
    finally:
        results.put(won)
        engine.dispose()


# ---------------------------------------------------------------------------- reporting
def report(result: dict[str, Any]) -> str:
    """Return the human-readable summary of one backend's figures."""
    def verdict(ms: float, target: float) -> str:
        return "ok" if ms <= target else f"MISSES by {ms - target:.1f} ms"

    q = result["queries_per_call"]
    lines = [
        f"== {result['backend']}: {result['answers']:,} answers, {result['members']} members,"
        f" {result['rounds']} rounds (load {result['load_s']} s, migrate+backfill"
        f" {result['migrate_backfill_s']} s, database {result['database_bytes'] / 2**20:.0f} MiB)",
    ]
    for name, label in (("leaderboard_week", "/leaderboard week (and the weekly post)"),
                        ("leaderboard_all", "/leaderboard all"), ("stats", "/stats"),
                        ("topic_board", "topic board (web page's core)")):
        ms = result[f"{name}_ms"]
        lines.append(f"  {label:40} p50 {ms:8.2f} ms  p95 {result[f'{name}_p95_ms']:8.2f} ms"
                     f"  {q[name]} SELECTs  {verdict(ms, TARGET_MS)}")
    lines.append(f"  {'topic totals backfill (first topic board)':40}"
                 f" {result['topic_backfill_s']:8.1f} s")
    ms = result["content_stats_ms"]
    lines.append(f"  {'content stats (' + str(result['content_stats_items']) + ' items)':40}"
                 f" p50 {ms:8.1f} ms  {result['content_stats_queries']} statements"
                 f"  {verdict(ms, CONTENT_STATS_TARGET_MS)}")
    ms = result["record_answer_ms"]
    lines.append(f"  {'record_answer':40} p50 {ms:8.2f} ms  p95"
                 f" {result['record_answer_p95_ms']:8.2f} ms  {verdict(ms, RECORD_TARGET_MS)}")
    if "boards_equal_recount" in result:
        lines.append(f"  boards equal a recount of every answer: {result['boards_equal_recount']}")
    if "learning" in result:
        lines += learning.report_lines(result["learning"])
    if "concurrent" in result:
        c = result["concurrent"]
        lines.append(f"  {c['members']} members answering at once ({c['threads']} threads):"
                     f" p50 {c['answer_p50_ms']} ms, p99 {c['answer_p99_ms']} ms per answer,"
                     f" {c['wall_s']} s in all; exactly once: {c['exactly_once']}, totals"
                     f" {c['totals_equal_recount']}, board {c['board_equal_recount']}")
    if "fan_out" in result:
        f = result["fan_out"]
        lines.append(f"  fan-out: {f['channels']:,} channels, {f['replicas']} replicas:"
                     f" {f['claims_won']:,} claims in {f['wall_s']} s; exactly once:"
                     f" {f['exactly_once']}")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchquiz bench core", description=__doc__)
    parser.add_argument("--answers", type=int, default=100_000,
                        help="answers to load (10000, 100000, 1000000)")
    parser.add_argument("--members", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=365)
    parser.add_argument("--repeat", type=int, default=20, help="timed calls after a warm-up")
    parser.add_argument("--record-samples", type=int, default=300)
    parser.add_argument("--postgres-url", help="a server to create a scratch database on")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--no-check", action="store_true",
                        help="skip comparing the boards with a recount")
    parser.add_argument("--concurrent", type=int, default=500,
                        help="members answering one round at once (0 to skip)")
    parser.add_argument("--threads", type=int, default=50, help="threads sending them")
    parser.add_argument("--channels", type=int, default=10_000,
                        help="channels in the fan-out (0 to skip)")
    parser.add_argument("--replicas", type=int, default=3, help="replicas racing in it")
    parser.add_argument("--review-cards", type=int, default=100_000,
                        help="FSRS cards spread over the members, for /quiz's pick (0 to skip)")
    parser.add_argument("--reminder-members", type=int, default=10_000,
                        help="members whose reminder is due in one minute (0 to skip)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path, help="where the SQLite file goes (a temp dir)")
    parser.add_argument("--json", action="store_true", help="one JSON object per backend")
    return parser


def main(argv: list[str]) -> int:
    """Run the benchmark; return the exit status."""
    args = _parser().parse_args(argv)
    bank = load_bank()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="torchquiz-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    results = []
    try:
        backends: list[Callable[[], Backend]] = [lambda: sqlite_backend(workdir)]
        with _postgres(args, workdir) as server:
            if server is not None:
                backends.append(lambda: postgres_backend(server))
            for make in backends:
                backend = make()
                try:
                    result = measure_backend(backend, args, bank)
                finally:
                    backend.drop()
                results.append(result)
                print(json.dumps(result) if args.json else report(result), flush=True)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


@contextmanager
def _postgres(args: argparse.Namespace, workdir: Path) -> Iterator[str | None]:
    if args.no_postgres:
        yield None
    elif args.postgres_url:
        yield args.postgres_url
    else:
        with throwaway_postgres(workdir) as url:
            if url is None:
                print("bench core: PostgreSQL skipped (no --postgres-url, no server started)",
                      file=sys.stderr)
            yield url


if __name__ == "__main__":
    with suppress(KeyboardInterrupt):
        raise SystemExit(main(sys.argv[1:]))
