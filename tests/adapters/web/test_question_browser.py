"""The question browser: every member may read the questions; answers only once earned.

A member sees an item's answer once they answered it, never while the item is in play (an
open round of the workspace, their own practice question); admins see every answer.
"""

from __future__ import annotations

import pytest

from bot.core.kernel.models import Actor, ChannelDefaults
from tests.adapters.web.support import link, serve, sign_in, who
from tests.support.core import only


def _page(quiz, path, identity=None, **query):
    login = link(quiz, identity)

    async def scenario(client):
        await sign_in(client, login)
        response = await client.get(path, params=query)
        return response.status, await response.text()

    return serve(quiz, scenario)


def _answer(quiz, channel, user: str, response: str) -> None:
    member = quiz.rounds.member("slack", user, user.title())
    quiz.rounds.submit_answer(channel.id, Actor(member), response)


def test_the_list_shows_the_workspaces_questions_filtered_by_kind_and_topic(quiz, channel):
    status, everything = _page(quiz, "/questions")
    assert status == 200 and "t.text-detach" in everything and "t.choice-view" in everything
    _, texts = _page(quiz, "/questions", kind="text")
    assert "t.text-detach" in texts and "t.choice-view" not in texts
    _, hostile = _page(quiz, "/questions", kind="<script>", topic="../../etc", page="-1")
    assert "t.choice-view" in hostile and "<script>" not in hostile


def test_a_question_nobody_answered_shows_no_answer_to_a_member(quiz, channel):
    status, html = _page(quiz, "/questions/t.text-detach")
    assert status == 200
    assert "Answer this question first" in html
    assert "detach" not in html.split("<h2>")[-1]  # nothing below the answer heading leaks it


def test_an_admin_sees_every_answer_and_a_code_items_reference(quiz, channel):
    status, html = _page(quiz, "/questions/t.code-double", who(admin=True))
    assert status == 200 and "Reference solution" in html and "def " in html
    _, choice = _page(quiz, "/questions/t.choice-view", who(admin=True))
    assert "Answer this question first" not in choice


def test_the_open_round_stays_hidden_even_from_who_answered_it_wrong(quiz, channel):
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    _answer(quiz, channel, "alice", "clone")  # wrong, and tries are left
    _, open_round = _page(quiz, "/questions/t.text-detach")
    assert "still in play" in open_round
    quiz.rounds.reveal_now(channel.id, Actor(quiz.rounds.member("slack", "boss", "Boss"),
                                             is_admin=True))
    _, closed = _page(quiz, "/questions/t.text-detach")
    assert "still in play" not in closed and "Answer this question first" not in closed
    assert "detach" in closed.split("<h2>")[-1]


def test_another_workspaces_open_round_does_not_hide_an_answer_here(quiz, channel):
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    _answer(quiz, channel, "alice", "detach")
    quiz.rounds.reveal_now(channel.id, Actor(quiz.rounds.member("slack", "b", "B"),
                                             is_admin=True))
    elsewhere = quiz.rounds.channel("slack", "C9", "W2", ChannelDefaults(name="other"))
    elsewhere = only(quiz, elsewhere, "t.text-detach")
    quiz.rounds.post_round(elsewhere.id)
    _, html = _page(quiz, "/questions/t.text-detach")
    assert "detach" in html.split("<h2>")[-1]


@pytest.mark.parametrize("item", ["t.nope", "p.other-team.x", "..%2f..%2fetc"])
def test_a_question_the_workspace_does_not_draw_is_not_found(quiz, channel, item):
    status, _ = _page(quiz, f"/questions/{item}")
    assert status == 404


def test_the_browser_speaks_chinese(quiz, channel):
    status, html = _page(quiz, "/questions", who(locale="zh-CN"))
    assert status == 200 and "题库" in html and "道题" in html


def test_signed_out_the_browser_sends_the_reader_home(quiz, channel):
    async def scenario(client):
        response = await client.get("/questions", allow_redirects=False)
        return response.status, response.headers.get("Location")

    assert serve(quiz, scenario) == (303, "/")
