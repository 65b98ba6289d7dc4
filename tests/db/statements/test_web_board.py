"""The web page's board (GET /channels/ID/board): its statements, over a small history and a large.

Through the real aiohttp page over the real store: the signed-in session's check, the channel,
the viewer and the board itself, whatever the members and rounds behind it.
"""

import pytest

from bot.core.quiz import build_quiz
from tests.adapters.web.support import BASE, link, serve, sign_in, who
from tests.db.statements.counting import LARGE, SMALL, counting, history
from tests.support.core import RecordingExecutor

# The session by its token; the channel; the viewer; the board in one statement (a topic's
# board too: its stored totals, once the library's topics were given to the store).
PINNED = ({"SELECT": 4}, 4)  # reads only: a page view takes no write lock


@pytest.mark.parametrize("period", ["week", "all", "topic"])
def test_the_web_board_sends_the_same_statements_whatever_the_history(store, bank, clock,
                                                                      period):
    quiz = build_quiz(store, bank, clock, RecordingExecutor(), web_url=BASE)
    sent = []
    for name, size in (("small", SMALL), ("large", LARGE)):
        past = history(store, name, *size)
        viewer = past.members[0]
        signin = link(quiz, who(viewer.external_id, workspace="ws", channel=name,
                                platform="console", name=viewer.display_name))

        async def scenario(client, channel_id=past.channel.id, signin=signin, past=past):
            await sign_in(client, signin)
            if period == "topic":  # the replica's first topic board stores the library's topics
                quiz.board.topic_board(past.channel, "tensors", 1)
            with counting(store.engine) as seen:
                query = "topic=tensors" if period == "topic" else f"period={period}"
                response = await client.get(f"/channels/{channel_id}/board?{query}")
            assert response.status == 200
            assert "member" in await response.text()
            return seen

        sent.append(serve(quiz, scenario))
    assert sent[0].statements == sent[1].statements
    assert sent[0].transactions == sent[1].transactions
    assert (dict(sent[1].statements), sent[1].transactions) == PINNED
