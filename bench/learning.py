"""The learning figures of `torchquiz bench core`: the next practice item, FSRS, reminders.

Run on the database ``bench/core.py`` loaded (N answers of its members): the members get
review cards (``--review-cards`` in all, spread evenly, some due), then

- ``/quiz`` with no topic is timed through PracticeService.start (the member's cards and
  results read, pick(), the session stored), and pick() alone on what those reads returned;
- one answer's FSRS update (ReviewScheduler.review), on a new card and on a card in review,
  and with the card's read and write around it (what recording an answer adds);
- the reminder fan-out: ``--reminder-members`` members whose reminder is due in the same
  minute (half with reviews due) claimed by one replica (time, statements per batch), then
  again by two replicas racing, each nudge sent exactly once.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import Engine, insert, text, update

from bot.core.learning.practice import PracticeService, pick
from bot.core.learning.reminders import ReminderService
from bot.core.questions.reviews import ReviewScheduler
from content.loader import Bank
from db.engine import make_engine
from db.store import SqlStore
from db.tables import ReminderRow, ReviewRow, UserRow

PICK_TARGET_MS = 20.0
FSRS_TARGET_MS = 2.0
FSRS_SAMPLES = 2000
REMINDER_PLATFORM = "remind-bench"
FIRST_REMINDER_USER = 10_000_000
CHUNK = 5000


class _Clock:
    def __init__(self, now: dt.datetime) -> None:
        self._now = now

    def now(self) -> dt.datetime:
        return self._now


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    last = len(ordered) - 1
    return ordered[len(ordered) // 2], ordered[min(last, round(0.95 * last))]


def _p50_or_none(samples: list[float]) -> float | None:
    return round(_percentiles(samples)[0], 2) if samples else None


def _insert(engine: Engine, table: Any, rows: list[dict[str, Any]]) -> None:
    with engine.begin() as connection:
        for start in range(0, len(rows), CHUNK):
            connection.execute(insert(table), rows[start:start + CHUNK])


def load_reviews(engine: Engine, members: int, cards: int, items: list[str],
                 now: dt.datetime, seed: int) -> int:
    """Give members 1..``members`` review cards, ``cards`` in all, some due; return how many."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible data set
    per_member = min(len(items), max(1, cards // members))
    rows = []
    for user_id in range(1, members + 1):
        for item in rng.sample(items, per_member):
            due = now + dt.timedelta(hours=rng.uniform(-24 * 7, 24 * 30 * 4))
            reviewed = min(due, now) - dt.timedelta(days=rng.uniform(1, 30))
            rows.append({"user_id": user_id, "item_id": item, "state": 2, "step": None,
                         "stability": rng.uniform(1, 60), "difficulty": rng.uniform(2, 8),
                         "due_at": due, "last_correct": rng.random() < 0.7,
                         "reviewed_at": reviewed})
    _insert(engine, ReviewRow, rows)
    return len(rows)


def measure_practice(url: str, bank: Bank, members: int, now: dt.datetime, repeat: int,
                     seed: int) -> dict[str, Any]:
    """Time /quiz's choice of the next item through PracticeService.start, and pick() alone."""
    engine = make_engine(url)
    try:
        clock = _Clock(now)
        store = SqlStore(engine, clock=clock)
        practice = PracticeService(store, bank, clock)
        rng = random.Random(seed)  # noqa: S311
        chosen = [store.get_member(rng.randrange(1, members + 1)) for _ in range(repeat + 1)]
        people = [m for m in chosen if m is not None]
        starts: dict[bool, list[float]] = {True: [], False: []}
        picks, reads, review_reads = [], [], []
        eligible = practice._eligible(None, None)
        allowed = set(eligible)
        for n, member in enumerate(people):
            t0 = time.perf_counter()
            practice.start(member, None, "en")
            t1 = time.perf_counter()
            reviews = store.reviews(member.id)
            due = any(r.due_at <= now and r.item_id in allowed for r in reviews)
            t_reviews = time.perf_counter()
            results = store.item_results(member.id)
            t2 = time.perf_counter()
            pick(eligible, reviews, results, practice.bank.topics_of(), now, f"{member.id}|x")
            t3 = time.perf_counter()
            if n:  # the first call warms the caches
                starts[due].append((t1 - t0) * 1000)
                reads.append((t2 - t1) * 1000)
                review_reads.append((t_reviews - t1) * 1000)
                picks.append((t3 - t2) * 1000)
        start_p50, start_p95 = _percentiles(starts[True] + starts[False])
        return {"practice_start_ms": round(start_p50, 2),
                "practice_start_p95_ms": round(start_p95, 2),
                "practice_start_review_due_ms": _p50_or_none(starts[True]),
                "practice_start_none_due_ms": _p50_or_none(starts[False]),
                "practice_members_with_review_due": len(starts[True]),
                "practice_reads_ms": round(_percentiles(reads)[0], 2),
                "practice_reviews_read_ms": round(_percentiles(review_reads)[0], 2),
                "practice_pick_ms": round(_percentiles(picks)[0], 3)}
    finally:
        engine.dispose()


def measure_card_update(url: str, members: int, items: list[str], now: dt.datetime,
                        repeat: int, seed: int) -> dict[str, Any]:
    """Time what an answer adds for its card: read it, FSRS, write it (as recording does)."""
    engine = make_engine(url)
    try:
        store = SqlStore(engine)
        scheduler = ReviewScheduler()
        rng = random.Random(seed)  # noqa: S311
        times = []
        for n in range(repeat + 1):
            user_id, item = rng.randrange(1, members + 1), rng.choice(items)
            start = time.perf_counter()
            card = scheduler.review(store.get_review(user_id, item), user_id, item,
                                    n % 3 != 0, 0, now)
            store.save_review(card)
            if n:
                times.append((time.perf_counter() - start) * 1000)
        p50, p95 = _percentiles(times)
        return {"card_update_ms": round(p50, 2), "card_update_p95_ms": round(p95, 2)}
    finally:
        engine.dispose()


def measure_fsrs(now: dt.datetime, samples: int = FSRS_SAMPLES) -> dict[str, Any]:
    """Time one answer's FSRS update: a new card, then a card answered many times."""
    scheduler = ReviewScheduler()
    card = None
    times = []
    for n in range(samples):
        at = now + dt.timedelta(days=n)
        start = time.perf_counter()
        card = scheduler.review(card if n % 10 else None, 1, "item", n % 4 != 0, n % 3, at)
        times.append((time.perf_counter() - start) * 1000)
    p50, p95 = _percentiles(times)
    return {"fsrs_update_ms": round(p50, 4), "fsrs_update_p95_ms": round(p95, 4)}


def load_reminders(engine: Engine, count: int, channel_id: int, now: dt.datetime) -> None:
    """Add ``count`` members whose reminder is due at ``now``; every other one has 3 reviews due."""
    users = [{"id": FIRST_REMINDER_USER + n, "platform": REMINDER_PLATFORM,
              "external_id": f"R{n}", "display_name": f"reminded {n}"} for n in range(count)]
    _insert(engine, UserRow, users)
    _insert(engine, ReminderRow, [
        {"user_id": u["id"], "platform": REMINDER_PLATFORM, "member_external_id": u["external_id"],
         "channel_id": channel_id, "local_time": dt.time(18), "timezone": "Europe/Berlin",
         "enabled": True, "next_at": now, "last_sent": None, "snoozed_until": None,
         "stopped": None, "notice": False} for u in users])
    _insert(engine, ReviewRow, [
        {"user_id": u["id"], "item_id": f"item-{k}", "state": 1, "step": 0, "stability": None,
         "difficulty": None, "due_at": now - dt.timedelta(hours=k + 1), "last_correct": False,
         "reviewed_at": now - dt.timedelta(days=1)}
        for n, u in enumerate(users) if n % 2 for k in range(3)])


def measure_reminders(url: str, count: int, channel_id: int, now: dt.datetime,
                      counter: Any) -> dict[str, Any]:
    """Claim one minute's reminders of ``count`` members: once alone, once by two replicas."""
    engine = make_engine(url)
    counter.attach(engine)
    try:
        load_reminders(engine, count, channel_id, now)
        service = ReminderService(SqlStore(engine), _Clock(now))
        with counter.measuring() as sent:
            start = time.perf_counter()
            nudges = service.due(REMINDER_PLATFORM)
            alone = time.perf_counter() - start
        batches = max(1, sent.get("UPDATE", 0))
        # Due again, and two replicas race for the same minute.
        with engine.begin() as connection:
            connection.execute(update(ReminderRow).where(ReminderRow.platform == REMINDER_PLATFORM)
                               .values(next_at=now, last_sent=None))
        engines = [make_engine(url) for _ in range(2)]
        try:
            replicas = [ReminderService(SqlStore(e), _Clock(now)) for e in engines]
            start = time.perf_counter()
            with ThreadPoolExecutor(2) as pool:
                raced = list(pool.map(lambda r: r.due(REMINDER_PLATFORM), replicas))
            race_s = time.perf_counter() - start
        finally:
            for e in engines:
                e.dispose()
        won = [n.user_id for replica in raced for n in replica]
        with engine.connect() as connection:
            sent_today = connection.execute(text(
                "SELECT count(*) FROM reminders WHERE platform = :p AND last_sent IS NOT NULL"),
                {"p": REMINDER_PLATFORM}).scalar_one()
        return {
            "members": count, "nudges": len(nudges), "wall_s": round(alone, 2),
            "batches": batches, "selects": sent.get("SELECT", 0), "updates": sent.get("UPDATE", 0),
            "statements_per_batch": round((sent.get("SELECT", 0) + sent.get("UPDATE", 0))
                                          / batches, 2),
            "race_wall_s": round(race_s, 2), "race_split": [len(r) for r in raced],
            "exactly_once": len(won) == len(set(won)) == sent_today == count // 2,
        }
    finally:
        engine.dispose()


def measure(url: str, bank: Bank, args: argparse.Namespace, members: int, channel_id: int,
            now: dt.datetime, counter: Any) -> dict[str, Any]:
    """Return the learning figures on the loaded database at ``url``."""
    result: dict[str, Any] = {}
    engine = make_engine(url)
    try:
        start = time.perf_counter()
        result["review_cards"] = load_reviews(engine, members, args.review_cards,
                                              sorted(bank.questions), now, args.seed)
        result["review_load_s"] = round(time.perf_counter() - start, 1)
    finally:
        engine.dispose()
    result.update(measure_practice(url, bank, members, now, args.repeat, args.seed))
    result.update(measure_fsrs(now))
    result.update(measure_card_update(url, members, sorted(bank.questions), now, args.repeat,
                                      args.seed))
    if args.reminder_members:
        result["reminders"] = measure_reminders(url, args.reminder_members, channel_id, now,
                                                counter)
    return result


def report_lines(result: dict[str, Any]) -> list[str]:
    """Return the learning figures as lines beside the board figures."""
    def verdict(ms: float, target: float) -> str:
        return "ok" if ms <= target else f"MISSES by {ms - target:.1f} ms"

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f} ms"

    lines = [
        f"  {'/quiz next item (PracticeService.start)':40} p50 {result['practice_start_ms']:8.2f}"
        f" ms  p95 {result['practice_start_p95_ms']:8.2f} ms  {result['review_cards']:,} cards"
        f"  {verdict(result['practice_start_ms'], PICK_TARGET_MS)}",
        f"  {'  a review due / none due (new item)':40} p50"
        f" {ms(result['practice_start_review_due_ms'])}"
        f" / {ms(result['practice_start_none_due_ms'])}"
        f"  ({result['practice_members_with_review_due']} calls with a review due)",
        f"  {'  of which reads / pick()':40} p50 {result['practice_reads_ms']:8.2f} ms"
        f" / {result['practice_pick_ms']:.3f} ms (the cards alone:"
        f" {result['practice_reviews_read_ms']:.2f} ms)",
        f"  {'one answer FSRS update':40} p50 {result['fsrs_update_ms']:8.4f} ms  p95"
        f" {result['fsrs_update_p95_ms']:8.4f} ms"
        f"  {verdict(result['fsrs_update_ms'], FSRS_TARGET_MS)}",
        f"  {'  with its card read and written':40} p50 {result['card_update_ms']:8.2f} ms  p95"
        f" {result['card_update_p95_ms']:8.2f} ms",
    ]
    if "reminders" in result:
        r = result["reminders"]
        lines.append(
            f"  reminder fan-out: {r['members']:,} members due in one minute, {r['nudges']:,}"
            f" nudges in {r['wall_s']} s, {r['batches']} batches, {r['selects']} SELECTs +"
            f" {r['updates']} UPDATEs ({r['statements_per_batch']} per batch); two replicas"
            f" {r['race_wall_s']} s, split {r['race_split']}, exactly once: {r['exactly_once']}")
    return lines
