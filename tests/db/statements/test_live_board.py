"""Live points on the weekly board: added in a few statements when a session ends, read free.

A live session's points reach the weekly board (where the channel's live_on_board is on) as
additions to the stored weekly totals, once, when the session ends: the board's one read stays
what it was (no join of the live tables per row), and the ending sends the same statements
for 3 players or 30.
"""

from __future__ import annotations

import pytest

from bot.core.kernel.models import Actor, AnswerMode, ChannelUpdate
from bot.core.live import LiveOptions
from bot.core.questions import BASE_POINTS
from tests.db.statements.counting import LARGE, SMALL, history, sent_by
from tests.support.core import only

ITEM = "t.text-detach"  # detach (the history's open round is t.choice-view, held out)


def _play(quiz, store, past, players: int) -> int:
    """Run a one-question session in the history's channel; return it, still to be ended."""
    channel = quiz.rounds.store.update_channel(past.channel.id, ChannelUpdate(live_on_board=True))
    channel = only(quiz, channel, ITEM)
    host = Actor(past.members[0], is_admin=True)
    quiz.live.start(channel, host, LiveOptions(questions=1, lobby=0))
    session = store.active_live(channel.id)
    # One who joins and never answers: the question stays open until the test ends it (the
    # next session's advance would otherwise end this one once everyone answered).
    quiz.live.join(channel, store.ensure_member("console", f"{channel.name}-idle", "idle"), "en")
    quiz.live.advance("console")  # the lobby and the question
    people = [*past.members, *(store.ensure_member("console", f"{past.channel.name}-L{n}",
                                                   f"live {n}")
                               for n in range(players - len(past.members)))][:players]
    for member in people:
        said = quiz.live.answer(channel, member, "detach", AnswerMode.TEXT, "en")
        assert "Locked in" in said.body, said.body
    return session.id


@pytest.mark.parametrize("board", ["off", "on"])
def test_ending_a_session_sends_the_same_statements_for_3_players_or_30(quiz, store, board):
    small, large = history(store, "small", *SMALL), history(store, "large", *LARGE)
    ids = [_play(quiz, store, past, players) for past, players in ((small, 3), (large, 30))]
    sent = [sent_by(store.engine, lambda i=i: store.finish_live(i, quiz.live.clock.now(), True,
                                                               board == "on"))
            for i in ids]
    assert sent[0].statements == sent[1].statements
    # The conditional end; on the board: the answers with the channel's zone, and one upsert
    # of every player's week (PostgreSQL first takes record_answer's shared channel lock).
    pinned = {"UPDATE": 1} if board == "off" else {
        "UPDATE": 1, "SELECT": 2 if store.engine.dialect.name == "postgresql" else 1,
        "INSERT": 1}
    assert (dict(sent[1].statements), sent[1].transactions) == (pinned, 1)


def test_the_weekly_board_with_live_points_is_still_one_statement(quiz, store):
    small, large = history(store, "small", *SMALL), history(store, "large", *LARGE)
    before = {row.display_name: row.points for row in quiz.board.rows(large.channel, "week")}
    for past in (small, large):  # each member plays once more: no tie at the board's cut
        players = len(past.members)
        store.finish_live(_play(quiz, store, past, players), quiz.live.clock.now(), True, True)
    sent = [sent_by(store.engine, lambda past=past: quiz.board.leaderboard(past.channel, "week",
                                                                           "en"))
            for past in (small, large)]
    assert sent[0].statements == sent[1].statements
    assert (dict(sent[1].statements), sent[1].transactions) == ({"SELECT": 1}, 1)
    week = {row.display_name: row.points for row in quiz.board.rows(large.channel, "week")}
    full = BASE_POINTS[2]  # t.text-detach's difficulty, answered at once: full points
    assert week == {name: points + full for name, points in before.items()}
