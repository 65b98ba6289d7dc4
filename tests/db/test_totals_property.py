"""The stored totals equal a recount: random answer histories, boards and stats, both backends.

Hypothesis draws channels in several zones, members with clashing names, rounds opened and
closed, answers with retries and corrections (also after a solve, also repeated), zone changes
and time jumps across week boundaries. The boards and stats read from the totals must equal a
slow reference computed here in Python from the same history, and the store's own recount.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.boards.board import BoardService
from bot.core.kernel.models import (
    AnswerDraft,
    AnswerMode,
    ChannelDefaults,
    ChannelUpdate,
    ScoreRow,
    week_start,
)
from bot.core.questions.scoring import best_streak, current_streak, points_for, rank
from content.loader import load_bank
from db.store import SqlStore
from db.tables import Base
from tests.fakes import CLOCK_START, FakeClock

BANK = load_bank(Path(__file__).parents[1] / "core" / "bank")
ITEMS = sorted(BANK.questions)
ZONES = [
    "UTC", "Asia/Shanghai", "America/Los_Angeles", "Pacific/Kiritimati", "Pacific/Pago_Pago",
    "Asia/Kathmandu", "Europe/Berlin", "Australia/Lord_Howe",
]
# Clashing and differently cased names: full ties are listed by casefolded name, then id.
NAMES = ["ada", "Ada", "bob", "Émile", "王小明", "zed"]
WAITS = [0, 0, 1, 30, 240, 600, 1439, 1440, 2880, 5000]  # minutes; 0 makes ties in time

# Answers dominate, as in a real channel; the other steps move time and settings around them.
KINDS = ["answer"] * 8 + ["wait"] * 4 + ["round"] * 2 + ["close", "again", "zone"]
ARGS = {
    "wait": st.tuples(st.sampled_from(WAITS)),
    "round": st.tuples(st.integers(0, 2), st.integers(1, 3), st.integers(1, 30)),
    "close": st.tuples(st.integers(0, 2)),
    "answer": st.tuples(st.integers(0, 2), st.integers(0, 5), st.sampled_from([0, 0, 0, 1, 2]),
                        st.booleans(), st.integers(1, 3)),
    "again": st.tuples(),
    "zone": st.tuples(st.integers(0, 2), st.sampled_from(ZONES)),
}
steps = st.sampled_from(KINDS).flatmap(lambda kind: ARGS[kind].map(lambda a: (kind, *a)))


@dataclass
class Model:
    """The history as plain Python: what the reference recomputes from."""

    rounds: dict[int, list] = field(default_factory=dict)  # channel -> [Round]
    answers: list[tuple[int, AnswerDraft]] = field(default_factory=list)  # (channel, draft)
    last: AnswerDraft | None = None


def _reference_scores(model, channel_id, since, names):
    """Sum each member's answers in the channel at or after ``since`` (the rules, by hand)."""
    rows = {}
    for channel, a in model.answers:
        if channel != channel_id or (since is not None and a.submitted_at < since):
            continue
        row = rows.setdefault(a.user_id, {"points": 0, "solved": set(), "first": 0,
                                          "last": None, "attempted": set()})
        row["points"] += a.points
        row["attempted"].add(a.round_id)
        if a.correct:
            row["solved"].add(a.round_id)
            row["first"] += a.attempt == 1
            row["last"] = max(filter(None, (row["last"], a.submitted_at)))
    return [
        ScoreRow(uid, names[uid], r["points"], len(r["solved"]), r["first"], r["last"],
                 len(r["attempted"]))
        for uid, r in rows.items()
    ]


def _dates(model, channel_id):
    return sorted(r.local_date for r in model.rounds.get(channel_id, []))


def _solved(model, channel_id, user_id):
    by_id = {r.id: r for r in model.rounds.get(channel_id, [])}
    return {by_id[a.round_id].local_date for c, a in model.answers
            if c == channel_id and a.user_id == user_id and a.correct}


def _open_date(model, channel_id, now):
    rounds = sorted(model.rounds.get(channel_id, []), key=lambda r: r.local_date)
    if not rounds:
        return None
    latest = rounds[-1]
    return latest.local_date if latest.status == "open" and latest.closes_at > now else None


def _reset(store: SqlStore) -> None:
    with store.engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            connection.execute(table.delete())


def _claim(store, clock, model, channel_id, gap=1, hours=23):
    dates = _dates(model, channel_id)
    day = (dates[-1] if dates else dt.date(2026, 3, 1)) + dt.timedelta(days=gap)
    now = clock.now()
    claimed = store.claim_round(channel_id, day, ITEMS[len(dates) % len(ITEMS)], 1, now,
                                now + dt.timedelta(hours=hours))
    assert claimed is not None
    model.rounds.setdefault(channel_id, []).append(claimed)
    return claimed


def _play(store, clock, history, start_offset):
    clock.set(CLOCK_START + dt.timedelta(minutes=start_offset))
    model = Model()
    channels = [
        store.ensure_channel("slack", f"C{n}", "W", ChannelDefaults(timezone=ZONES[n * 3]))
        for n in range(3)
    ]
    members = [store.ensure_member("slack", f"U{n}", name) for n, name in enumerate(NAMES)]
    for step in history:
        kind, *args = step
        if kind == "wait":
            clock.advance(minutes=args[0])
        elif kind == "round":
            _claim(store, clock, model, channels[args[0]].id, *args[1:])
        elif kind == "close":
            rounds = model.rounds.get(channels[args[0]].id)
            if rounds:
                store.close_round(rounds[-1].id, clock.now())
        elif kind == "answer":
            channel, member, back, correct, difficulty = (
                channels[args[0]], members[args[1]], *args[2:])
            rounds = model.rounds.get(channel.id) or [_claim(store, clock, model, channel.id)]
            rnd = rounds[max(0, len(rounds) - 1 - back)]
            attempt = 1 + sum(1 for _, a in model.answers
                              if a.round_id == rnd.id and a.user_id == member.id)
            draft = AnswerDraft(rnd.id, member.id, attempt, AnswerMode.TEXT, "x", correct,
                                points_for(difficulty, attempt, correct), clock.now())
            assert store.record_answer(draft) is not None
            model.answers.append((channel.id, draft))
            model.last = draft
        elif kind == "again" and model.last is not None:
            # A double click: the same attempt again is stored once and counts once.
            assert store.record_answer(model.last) is None
        elif kind == "zone":
            channels[args[0]] = store.update_channel(
                channels[args[0]].id, ChannelUpdate(timezone=args[1]))
    # Statuses as the store holds them, for the open-round grace rule.
    for channel_id, rounds in model.rounds.items():
        model.rounds[channel_id] = [store.get_round(r.id) for r in rounds]
    return model, channels, members


@settings(max_examples=50, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(history=st.lists(steps, min_size=10, max_size=60), start_offset=st.integers(0, 7 * 1440),
       limit=st.sampled_from([1, 2, 3, None]))
def test_boards_and_stats_from_totals_equal_a_recount(engine, history, start_offset, limit):
    clock = FakeClock(CLOCK_START)
    store = SqlStore(engine, clock=clock)
    _reset(store)
    model, channels, members = _play(store, clock, history, start_offset)
    board = BoardService(store, BANK, clock)
    names = {m.id: m.display_name for m in members}
    now = clock.now()
    for channel in channels:
        dates = _dates(model, channel.id)
        open_date = _open_date(model, channel.id, now)
        for period in ("week", "all"):
            since = week_start(now, channel.timezone) if period == "week" else None
            reference = _reference_scores(model, channel.id, since, names)
            streaks = {r.user_id: current_streak(dates, _solved(model, channel.id, r.user_id),
                                                 open_date) for r in reference}
            expected = rank(reference, streaks)
            if limit is not None:
                expected = expected[:limit]
            assert board.rows(channel, period, limit) == expected, (period, channel.timezone)
            recount = rank(store.scores(channel.id, since), streaks)
            assert recount[: len(expected)] == expected
        everyone = {r.user_id: r for r in _reference_scores(model, channel.id, None, names)}
        for member in members:
            stats = board.stats(channel, member)
            mine = everyone.get(member.id)
            solved = _solved(model, channel.id, member.id)
            assert store.member_score(channel.id, member.id) == mine
            assert (stats.points, stats.solved, stats.attempted, stats.streak,
                    stats.best_streak) == (
                mine.points if mine else 0, mine.solved if mine else 0,
                mine.attempted if mine else 0, current_streak(dates, solved, open_date),
                best_streak(dates, solved))

