"""Leaderboards and stats over real answers."""

from bot.core.models import Actor
from tests.core.conftest import only


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
    quiz.rounds.post_round(channel.id)
    _play(quiz, channel, alice, "B")
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
