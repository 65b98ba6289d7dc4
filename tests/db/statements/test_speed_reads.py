"""The speed board, the held verdicts and the open challenge: one read each, whatever the history.

Each is read over a channel with a few verdicts and one with many, on SQLite and PostgreSQL:
a statement added per member or verdict changes the count, and a read that took the write lock
(BEGIN IMMEDIATE on SQLite) would hold up every answer while a board is shown.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import Engine, event

from bot.core.kernel.models import PENDING, RELEASED, SpeedShapeFigure, SpeedVerdictRecord
from db.store import SqlStore
from tests.db.builders import make_channel, make_member
from tests.db.statements.counting import Sent, counting

ITEM = "speed.test-row-norms"
AT = dt.datetime(2026, 3, 8, 9, tzinfo=dt.UTC)
SIZES = {"few": (2, 2), "many": (40, 6)}  # members, verdicts each


@contextlib.contextmanager
def begins(engine: Engine) -> Iterator[list[str]]:
    """Collect the BEGIN statements ``engine`` sends in the block (SQLite names its lock)."""
    seen: list[str] = []

    def on_statement(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        if statement.lstrip().upper().startswith("BEGIN"):
            seen.append(statement.strip().upper())

    event.listen(engine, "before_cursor_execute", on_statement)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", on_statement)


def history(store: SqlStore, name: str) -> tuple[int, int, str]:
    """Return a channel (its id), a member and a workspace with verdicts of every kind."""
    members, each = SIZES[name]
    workspace = f"slack:{name}"
    channel = make_channel(store, f"C-{name}", workspace=name)
    first = 0
    for m in range(members):
        member = make_member(store, f"U-{name}-{m}", f"member {m}")
        first = first or member.id
        store.open_speed(member.id, ITEM, 1, AT)
        for v in range(each):
            status, held = ((PENDING, True) if v == each - 1 else (RELEASED, False))
            score = 1.5 + (m * each + v) % 7
            store.add_speed_verdict(SpeedVerdictRecord(
                member.id, channel.id, workspace, ITEM, 1, status, v % 3 != 2, held, score,
                (SpeedShapeFigure("small", score, score * 0.9, score * 1.1),), "",
                AT + dt.timedelta(minutes=m * each + v)))
    return channel.id, first, workspace


READS: dict[str, Callable[[SqlStore, int, int, str], object]] = {
    "board": lambda store, channel, _member, _ws: store.speed_board(ITEM, 1, channel, 10),
    "held": lambda store, _channel, _member, ws: store.held_speed(ws, 20),
    "open": lambda store, _channel, member, _ws: store.current_speed(member),
}


@pytest.mark.parametrize("read", sorted(READS))
def test_a_speed_read_is_one_select_without_the_write_lock_whatever_the_history(store, read):
    sent: list[Sent] = []
    for name in SIZES:
        channel, member, workspace = history(store, name)
        with counting(store.engine) as seen, begins(store.engine) as opened:
            result = READS[read](store, channel, member, workspace)
        assert result, f"the {read} read found nothing in the {name} history"
        assert not any("IMMEDIATE" in b or "EXCLUSIVE" in b for b in opened), opened
        sent.append(seen)
    assert sent[0].statements == sent[1].statements
    assert (dict(sent[1].statements), sent[1].transactions) == ({"SELECT": 1}, 1)


def test_the_board_keeps_each_members_best_released_faster_verdict(store):
    channel, _member, _workspace = history(store, "many")
    board = store.speed_board(ITEM, 1, channel, 10)
    assert len(board) == 10
    assert [e.rank for e in board] == list(range(1, 11))
    assert len({e.user_id for e in board}) == 10
    scores = [e.score for e in board]
    assert scores == sorted(scores, reverse=True)
