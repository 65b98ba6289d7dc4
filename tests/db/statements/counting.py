"""Count what a hot path sends to the database, and build histories of two sizes to compare.

A hot path's statements are pinned as a count on a real database (SQLite and PostgreSQL), and
each test runs the path over a small history and over one several times larger: a statement
added per row (member, answer, round, channel) changes the count and fails deterministically,
with no timing involved.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sqlalchemy import Engine, event

from bot.core.kernel.models import ChannelDefaults, ChannelSettings, Member, Review, Round
from db.store import SqlStore
from tests.db.builders import HOUR, answer, open_round

# Transaction control is said differently by each driver (pysqlite sends BEGIN through the
# cursor, psycopg does not): transactions are counted apart, by the engine's begin event.
_CONTROL = {"BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"}
ITEMS = ("t.choice-view", "t.text-detach", "t.text-shape", "t.text-number")
# The history ends on a Saturday; today (Sunday 2026-03-08) has an open round, and the week
# board's week holds the six rounds before it.
TODAY = dt.date(2026, 3, 8)
NOW = dt.datetime(2026, 3, 8, 9, 0, tzinfo=dt.UTC)


@dataclass
class Sent:
    """What an engine sent inside a ``counting`` block."""

    statements: Counter[str]
    transactions: int = 0

    @property
    def total(self) -> int:
        """Return every statement but transaction control."""
        return sum(self.statements.values())


@contextlib.contextmanager
def counting(engine: Engine) -> Iterator[Sent]:
    """Count the statements (by first word) and transactions ``engine`` sends in the block.

    The store's read-only engine is an option view of its engine: it shares these listeners.
    """
    sent = Sent(Counter())

    def on_statement(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        word = statement.lstrip().split(None, 1)[0].upper()
        if word not in _CONTROL:
            sent.statements[word] += 1

    def on_begin(_conn: object) -> None:
        sent.transactions += 1

    event.listen(engine, "before_cursor_execute", on_statement)
    event.listen(engine, "begin", on_begin)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", on_statement)
        event.remove(engine, "begin", on_begin)


def sent_by(engine: Engine, call: Callable[[], object]) -> Sent:
    """Return what ``call`` sends."""
    with counting(engine) as sent:
        call()
    return sent


@dataclass(frozen=True)
class History:
    """A channel whose members answered its past rounds, and today's open round (a choice)."""

    channel: ChannelSettings
    members: list[Member]
    today: Round


def history(store: SqlStore, name: str, members: int, rounds: int) -> History:
    """Return a channel where ``members`` members answered ``rounds`` daily rounds up to today.

    Every member solves every round (so every streak spans them all, past any read window);
    every third member misses once first. Each member also holds a review card due now and a
    practice result, so reads of cards and results see rows that grow with the members.
    """
    channel = store.ensure_channel("console", name, "ws",
                                   ChannelDefaults(name=name, timezone="Europe/Berlin"))
    people = [store.ensure_member("console", f"{name}-U{n}", f"{name} member {n}")
              for n in range(members)]
    for back in range(rounds, 0, -1):
        day = TODAY - dt.timedelta(days=back)
        opened = dt.datetime.combine(day, dt.time(8), tzinfo=dt.UTC)
        round_ = open_round(store, channel, day, ITEMS[back % len(ITEMS)], opened)
        for n, person in enumerate(people):
            at = opened + HOUR + dt.timedelta(minutes=n)
            attempt = 1
            if n % 3 == 0:
                answer(store, round_, person, correct=False, points=0, at=at)
                attempt = 2
            answer(store, round_, person, attempt, points=10 + n, at=at + HOUR)
    for n, person in enumerate(people):
        store.save_review(Review(user_id=person.id, item_id=ITEMS[n % len(ITEMS)], state=2,
                                 step=None, stability=3.0, difficulty=5.0, due_at=NOW - HOUR,
                                 reviewed_at=NOW - 30 * HOUR, last_correct=True))
        store.record_practice_result(person.id, ITEMS[(n + 1) % len(ITEMS)], 1, n % 2 == 0,
                                     NOW - 20 * HOUR, first_try=n % 2 == 0)
    today = open_round(store, channel, TODAY, "t.choice-view", NOW - HOUR)
    return History(channel, people, today)


SMALL = (3, 4)  # members, rounds
LARGE = (12, 20)  # four times the members, five times the rounds, past the streak window
