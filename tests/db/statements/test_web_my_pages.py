"""My progress, the reports queue and a published board: their statements, small and large.

Through the real aiohttp page over the real store, as test_web_board.py: a statement added per
answer, round, member or report changes the count and fails, with no timing involved.
"""

from __future__ import annotations

import pytest

from bot.core.quality import Where
from bot.core.quiz import build_quiz
from tests.adapters.web.support import BASE, link, serve, sign_in, who
from tests.db.statements.counting import LARGE, NOW, SMALL, counting, history
from tests.support.core import RecordingExecutor

# The session; the channel; the member (a read: a page view takes no write lock); /stats'
# read; the streak calendar (the latest round, the channel's rounds with my solves); one page
# of my answers.
PINNED_PROGRESS = ({"SELECT": 8}, 7)
# The session; the reports; the insights' three reads (sums, open reports, paused items).
PINNED_REPORTS = ({"SELECT": 5}, 5)
# The link's channel; the channel; the board in one statement. No session, no viewer.
PINNED_PUBLIC = ({"SELECT": 3}, 3)


def _viewer(quiz, past, name, *, admin=False):
    viewer = past.members[0]
    return link(quiz, who(viewer.external_id, workspace="ws", channel=name, platform="console",
                          name=viewer.display_name, admin=admin))


def _count(store, quiz, path, signin):
    async def scenario(client):
        if signin is not None:
            await sign_in(client, signin)
        with counting(store.engine) as seen:
            response = await client.get(path)
        assert response.status == 200, await response.text()
        return seen

    return serve(quiz, scenario)


@pytest.mark.parametrize("page", [1, 2])
def test_my_progress_sends_the_same_statements_whatever_the_history(store, bank, clock, page):
    clock.set(NOW)
    quiz = build_quiz(store, bank, clock, RecordingExecutor(), web_url=BASE)
    sent = []
    for name, size in (("small", SMALL), ("large", LARGE)):
        past = history(store, name, *size)
        sent.append(_count(store, quiz, f"/channels/{past.channel.id}/me?page={page}",
                           _viewer(quiz, past, name)))
    assert sent[0].statements == sent[1].statements
    assert sent[0].transactions == sent[1].transactions
    assert (dict(sent[1].statements), sent[1].transactions) == PINNED_PROGRESS


def test_the_reports_queue_sends_the_same_statements_whatever_the_reports(store, bank, clock):
    clock.set(NOW)
    quiz = build_quiz(store, bank, clock, RecordingExecutor(), web_url=BASE)
    sent = []
    for name, size in (("small", SMALL), ("large", LARGE)):
        past = history(store, name, *size)
        for member in past.members:  # every member reports today's question
            quiz.reports.file_for_round(member, Where("console", "ws"), past.today.id,
                                        "ambiguous", "a note", "en")
        sent.append(_count(store, quiz, "/reports", _viewer(quiz, past, name, admin=True)))
    assert sent[0].statements == sent[1].statements
    assert (dict(sent[1].statements), sent[1].transactions) == PINNED_REPORTS


@pytest.mark.parametrize("period", ["week", "all"])
def test_a_published_board_sends_the_same_statements_whatever_the_history(store, bank, clock,
                                                                           period):
    clock.set(NOW)
    quiz = build_quiz(store, bank, clock, RecordingExecutor(), web_url=BASE)
    sent = []
    for name, size in (("small", SMALL), ("large", LARGE)):
        past = history(store, name, *size)
        token = f"{name:-<43}"
        store.publish_board(past.channel.id, token, NOW)
        sent.append(_count(store, quiz, f"/boards/{token}?period={period}", None))
    assert sent[0].statements == sent[1].statements
    assert (dict(sent[1].statements), sent[1].transactions) == PINNED_PUBLIC
