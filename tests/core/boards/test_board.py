"""Leaderboards and stats over real answers."""

import datetime as dt

import pytest
from sqlalchemy import event

from bot.core.boards.board import BoardService
from bot.core.kernel.models import Actor, ChannelUpdate, Chart
from tests.db.builders import DAY, T0, answer, make_channel, make_member, open_round
from tests.support.core import only, shown


def _play(quiz, channel, actor, answer):
    return quiz.rounds.submit_answer(channel.id, actor, answer)


def test_week_board_ranks_by_points(quiz, channel, alice, bob):
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    _play(quiz, channel, bob, "clone")
    _play(quiz, channel, bob, "detach")
    _play(quiz, channel, alice, "detach")
    rows = quiz.board.rows(channel, "week")
    assert [(r.rank, r.display_name, r.points) for r in rows] == [(1, "Alice", 25), (2, "Bob", 17)]
    table = quiz.board.leaderboard(channel, "week", "en").code
    assert "Alice" in table.splitlines()[1] and "Bob" in table.splitlines()[2]


def test_last_week_points_leave_the_week_board_but_stay_all_time(quiz, channel, alice, clock):
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    _play(quiz, channel, alice, "detach")
    clock.advance(days=7)
    assert quiz.board.rows(channel, "week") == []
    assert [r.points for r in quiz.board.rows(channel, "all")] == [25]


def test_streak_grows_over_consecutive_rounds(quiz, channel, alice, clock):
    for day in range(3):
        channel = only(quiz, channel, "t.text-detach" if day % 2 == 0 else "t.text-number")
        quiz.rounds.post_round(channel.id)
        item = quiz.rounds.store.latest_round(channel.id).item_id
        _play(quiz, channel, alice, "detach" if item == "t.text-detach" else "3")
        clock.advance(days=1)
    assert quiz.board.stats(channel, alice.member).streak == 3


def test_unknown_period_gets_usage(quiz, channel):
    assert "week" in quiz.board.leaderboard(channel, "month", "en").body


def test_stats_show_mastery_per_topic(quiz, channel, alice):
    channel = only(quiz, channel, "t.choice-view")
    posted = quiz.rounds.post_round(channel.id)
    _play(quiz, channel, alice, shown(posted.message, "B"))
    stats = quiz.board.stats(channel, alice.member)
    assert stats.points == 15 and stats.solved == 1 and stats.attempted == 1
    assert [(m.topic, m.solved, m.attempted) for m in stats.mastery] == [("tensors", 1, 1)]
    assert "tensors" in quiz.board.stats_message(channel, alice.member, "en").code


def test_chinese_board_aligns_wide_names(quiz, channel):
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    wang = Actor(quiz.rounds.member("console", "wang", "王小明"))
    _play(quiz, channel, wang, "detach")
    line = quiz.board.leaderboard(channel, "all", "zh-CN").code.splitlines()[1]
    assert line.startswith("1   王小明") and line.endswith("25       1       1")


# queries per call: a count, not a timing

LONG = 20  # rounds: a streak longer than the sixteen rounds boards once read first


def _selects(engine, call):
    """Return how many SELECT statements ``call`` sends."""
    sent = []

    def seen(_conn, _cursor, statement, *_):
        if statement.lstrip().upper().startswith("SELECT"):
            sent.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        call()
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    return len(sent)


def _history(store, members, rounds):
    """Let ``members`` new members solve each of ``rounds`` rounds of a fresh channel."""
    channel = make_channel(store, f"C{members}")
    people = [make_member(store, f"U{members}-{n}", f"m{n}") for n in range(members)]
    for day in range(rounds):
        round_ = open_round(store, channel, DAY + dt.timedelta(days=day), item=f"i{day}")
        for n, person in enumerate(people):
            answer(store, round_, person, points=10 + n, at=T0 + dt.timedelta(days=day))
    return channel, people


@pytest.mark.parametrize("period", ["week", "all"])
@pytest.mark.parametrize(
    "rounds", [3, LONG], ids=["short-streaks", "long-streaks"]
)
def test_leaderboard_queries_do_not_grow_with_members(store, engine, bank, clock, period, rounds):
    board = BoardService(store, bank, clock)
    clock.set(T0 + dt.timedelta(days=rounds - 1, hours=1))
    few, _ = _history(store, 3, rounds)
    many, _ = _history(store, 12, rounds)
    counts = [_selects(engine, lambda c=c: board.leaderboard(c, period, "en")) for c in (few, many)]
    assert counts[0] == counts[1]
    # top totals, hidden members counted, the rounds (how many, the latest), stored streaks:
    # however long the streaks
    assert counts[1] <= 4
    assert board.rows(many, period)[0].streak == rounds  # a streak spans every round


def test_stats_queries_do_not_grow_with_members(store, engine, bank, clock):
    board = BoardService(store, bank, clock)
    few, few_people = _history(store, 3, 5)
    many, many_people = _history(store, 12, 5)
    counts = [_selects(engine, lambda c=c, m=m: board.stats(c, m[0]))
              for c, m in ((few, few_people), (many, many_people))]
    # totals, round dates, solved dates, results (daily, practice), due reviews, latest round,
    # and two reads per rank (this week, all time)
    assert counts[0] == counts[1] <= 11


def test_a_full_tie_at_the_cut_is_listed_by_name_and_shares_the_rank(store, bank, clock):
    channel = make_channel(store)
    round_ = open_round(store, channel)
    for n, name in enumerate(["zed", "Amy", "max"]):
        answer(store, round_, make_member(store, f"U{n}", name), points=10, at=T0)
    rows = BoardService(store, bank, clock).rows(channel, "all", limit=2)
    assert [(r.rank, r.display_name) for r in rows] == [(1, "Amy"), (1, "max")]


def test_a_streak_longer_than_the_window_is_counted_whole(store, bank, clock):
    rounds = 16 * 4 + 3  # past what boards once read first, and four times that
    channel, _ = _history(store, 1, rounds)
    clock.set(T0 + dt.timedelta(days=rounds - 1, hours=1))
    assert BoardService(store, bank, clock).rows(channel, "all")[0].streak == rounds


class RecordingCharts:
    """The chart renderer's edge: records what it was asked to draw."""

    def __init__(self):
        self.drawn = []

    def leaderboard(self, rows, *, title, week_start, locale):
        self.drawn.append((list(rows), title, week_start, locale))
        return Chart(b"PNG", f"leaderboard-{week_start.isoformat()}.png")


def test_weekly_post_draws_the_week_and_says_what_the_chart_shows_in_the_channel_language(
        quiz, store, bank, clock, channel, alice):
    charts = RecordingCharts()
    board = BoardService(store, bank, clock, charts)
    channel = only(quiz, channel, "t.text-detach")
    store.update_channel(channel.id, ChannelUpdate(locale="zh-CN"))
    quiz.rounds.post_round(channel.id)
    _play(quiz, channel, alice, "detach")
    post = board.weekly_post(channel.id).message
    [(rows, title, start, locale)] = charts.drawn
    assert title == "排行榜 · 本周"
    assert [r.display_name for r in rows] == ["Alice"] and locale == "zh-CN"
    assert post.audience == "channel" and post.image_png == b"PNG"
    assert post.image_name == f"leaderboard-{start.isoformat()}-{channel.id}.png"
    assert post.image_alt.startswith("本周积分条形图") and "1. Alice" in post.image_alt


def test_weekly_post_without_a_renderer_is_the_table_alone(quiz, channel):
    board = quiz.board.weekly_post(channel.id)
    post = board.message
    assert board.channel == channel
    assert post.image_png is None and post.image_alt == ""
    assert post.title.startswith("Weekly leaderboard")
