"""The boards' and /stats' statements, over a small history and a large one."""

import pytest
from sqlalchemy import update

from bot.core.boards.board import BoardService
from db.tables import ScoreTotalRow
from tests.db.statements.counting import LARGE, NOW, SMALL, history, sent_by
from tests.fakes import FakeClock

# What each call sends: one read-only transaction for a board and for /stats (the weekly
# post adds the channel and the week's first tries).
PINNED = {
    # one statement: the top totals with their streaks, the hidden count and the rounds
    "week": ({"SELECT": 1}, 1),
    "all": ({"SELECT": 1}, 1),
    "weekly-post": ({"SELECT": 3}, 3),
    # the member's totals, streak, ranks and the rounds in one row; outcomes per item and
    # cards due in another
    "stats": ({"SELECT": 2}, 1),
    "team-stats": ({"SELECT": 1}, 1),
    # one statement: the channel's per-topic totals, hidden members flagged in them (once the
    # library's topics were given to the store: see the tests below)
    "topic": ({"SELECT": 1}, 1),
}
CALLS = {
    "week": lambda quiz, past: quiz.board.leaderboard(past.channel, "week", "en"),
    "all": lambda quiz, past: quiz.board.leaderboard(past.channel, "all", "en"),
    "weekly-post": lambda quiz, past: quiz.board.weekly_post(past.channel.id),
    "stats": lambda quiz, past: quiz.board.stats_message(past.channel, past.members[-1], "en"),
    "team-stats": lambda quiz, past: quiz.board.team_stats(past.channel, "en"),
    "topic": lambda quiz, past: quiz.board.topic_board(past.channel, "tensors", 501),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_a_board_sends_the_same_statements_whatever_the_history(quiz, store, name):
    small, large = history(store, "small", *SMALL), history(store, "large", *LARGE)
    if name == "topic":
        quiz.board.topic_board(small.channel, "autograd", 1)  # the library's topics, stored
    sent = [sent_by(store.engine, lambda past=past: CALLS[name](quiz, past))
            for past in (small, large)]
    assert sent[0].statements == sent[1].statements
    assert sent[0].transactions == sent[1].transactions
    assert (dict(sent[1].statements), sent[1].transactions) == PINNED[name]


def test_the_library_s_topics_cost_one_read_when_the_store_holds_them_already(
        quiz, store, bank):
    small, large = history(store, "small", *SMALL), history(store, "large", *LARGE)
    first = sent_by(store.engine, lambda: quiz.board.topic_board(large.channel, "tensors", 50))
    # Another replica (a fresh service over the same store) gives the same topics: one read.
    other = BoardService(store, bank, FakeClock(NOW))
    again = [sent_by(store.engine, lambda past=past: other.topic_board(past.channel, "tensors",
                                                                        50))
             for past in (small, large)]
    # The first ever: the pairs and the note that they are owed written in one transaction,
    # the touched channels' totals counted again in another (a delete and an insert from the
    # answers), the note removed in a third, whatever the history.
    assert first.statements["INSERT"] == 3 and first.statements["DELETE"] == 2
    # The pairs and what is owed, in one read; then the board.
    assert (dict(again[0].statements), again[0].transactions) == ({"SELECT": 3}, 2)
    assert (dict(again[1].statements), again[1].transactions) == ({"SELECT": 1}, 1)


def test_a_hidden_member_costs_no_statement_on_the_board(quiz, store):
    large = history(store, "large", *LARGE)
    before = sent_by(store.engine, lambda: quiz.board.leaderboard(large.channel, "all", "en"))
    for member in large.members[::2]:
        store.set_hidden(member.id, True)
    after = sent_by(store.engine, lambda: quiz.board.leaderboard(large.channel, "all", "en"))
    assert after.statements == before.statements


def _stale(store, past):
    """Mark every member's stored streak stale, as a concurrent solve does (through -1)."""
    with store.engine.begin() as connection:
        connection.execute(update(ScoreTotalRow)
                           .where(ScoreTotalRow.channel_id == past.channel.id)
                           .values(streak_through=-1))


@pytest.mark.parametrize("period", ["week", "all"])
def test_stale_streaks_cost_one_more_statement_whatever_the_history(quiz, store, period):
    small, large = history(store, "small", *SMALL), history(store, "large", *LARGE)
    fresh = [quiz.board.rows(past.channel, period) for past in (small, large)]
    for past in (small, large):
        _stale(store, past)
    sent = [sent_by(store.engine, lambda past=past: quiz.board.leaderboard(past.channel,
                                                                             period, "en"))
            for past in (small, large)]
    assert sent[0].statements == sent[1].statements
    # The board, then every round with the shown members' solves, walked again: one read.
    assert (dict(sent[1].statements), sent[1].transactions) == ({"SELECT": 2}, 2)
    assert [quiz.board.rows(past.channel, period) for past in (small, large)] == fresh
