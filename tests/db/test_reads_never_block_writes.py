"""A long read and an answer at the same moment: the answer goes through, the read finishes.

The read is held open inside its transaction (an event hook parks it after its first SELECT)
until the answer has been stored, so the test pins the order of events, never a duration. On
SQLite a read that began with BEGIN IMMEDIATE would hold the write lock and the answer would
wait out the busy timeout and fail; reads now begin deferred.
"""

from __future__ import annotations

import datetime as dt
import threading
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import event

from bot.core.boards.board import BoardService
from content.loader import load_bank
from tests.db.builders import DAY, HOUR, T0, answer, make_channel, make_member, open_round
from tests.support.core import BANK

HANG_GUARD_S = 60  # only ever reached when the answer is stuck: the test then fails


class ParkedRead:
    """Park the first SELECT that ``thread`` runs until ``release`` is set."""

    def __init__(self) -> None:
        self.thread: int | None = None
        self.parked = threading.Event()
        self.release = threading.Event()

    def __call__(self, _conn, _cursor, statement, *_args) -> None:
        if threading.get_ident() != self.thread or self.parked.is_set():
            return
        if statement.lstrip().upper().startswith("SELECT"):
            self.parked.set()
            self.release.wait(HANG_GUARD_S)


def _run_together(engine, read, write):
    """Start ``read``, park it mid-transaction, run ``write``, then let the read finish."""
    park = ParkedRead()
    events: list[str] = []
    event.listen(engine, "after_cursor_execute", park)

    def reader():
        park.thread = threading.get_ident()
        result = read()
        events.append("read finished")
        return result

    def writer():
        try:
            assert park.parked.wait(HANG_GUARD_S), "the read never started"
            result = write()
            events.append("write finished")
            return result
        finally:
            park.release.set()

    try:
        with ThreadPoolExecutor(2) as pool:
            read_result, write_result = pool.submit(reader), pool.submit(writer)
            return events, read_result.result(), write_result.result()
    finally:
        event.remove(engine, "after_cursor_execute", park)


def test_an_answer_goes_through_while_a_board_read_is_open(store, engine, clock):
    channel = make_channel(store)
    ada, bob = make_member(store, "U1", "Ada"), make_member(store, "U2", "Bob")
    round_ = open_round(store, channel)
    answer(store, round_, ada, points=10, at=T0)
    board = BoardService(store, load_bank(BANK), clock)

    events, rows, stored = _run_together(
        engine,
        lambda: store.top_scores(channel.id, None, 20),
        lambda: answer(store, round_, bob, points=25, at=T0 + HOUR),
    )

    assert events == ["write finished", "read finished"]
    assert stored is not None
    # The read kept the snapshot it began with; the next one sees the answer.
    assert [r.display_name for r in rows] == ["Ada"]
    assert [r.display_name for r in board.rows(channel, "all")] == ["Bob", "Ada"]


def test_an_answer_goes_through_while_a_recount_of_every_answer_is_open(store, engine):
    channel = make_channel(store)
    ada = make_member(store)
    first = open_round(store, channel)
    second = open_round(store, channel, DAY + dt.timedelta(days=1), item="other")
    answer(store, first, ada, points=10)

    events, rows, stored = _run_together(
        engine,
        lambda: store.scores(channel.id),
        lambda: answer(store, second, ada, points=5, at=T0 + HOUR),
    )

    assert events == ["write finished", "read finished"]
    assert stored is not None
    assert [r.points for r in rows] == [10]
