"""A board published at an unguessable link, and withdrawn: admins only, in the audit log."""

from __future__ import annotations

import re

import pytest

from bot.core.kernel.models import Actor, ChannelDefaults
from tests.adapters.web.support import csrf_of, link, serve, sign_in, who
from tests.support.core import only

ADA = who("ada", admin=True, name="Ada")
_SHARED = re.compile(r'class="shared-link" href="http://quiz\.test(/boards/[A-Za-z0-9_-]{43})"')


def _solve(quiz, channel, *names: str, hidden: tuple[str, ...] = ()) -> None:
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    for name in names:
        member = quiz.rounds.member("slack", name.lower(), name)
        quiz.rounds.submit_answer(channel.id, Actor(member), "detach")
        if name in hidden:
            quiz.board.privacy(member, "hidden", "en")


def _act(quiz, channel_id, *actions, identity=ADA, token=True):
    """Sign in; post each action (publish, withdraw) from the board page; return the pages."""
    signin = link(quiz, identity)

    async def scenario(client):
        await sign_in(client, signin)
        statuses = []
        for action in actions:
            page = await client.get("/")
            data = {"csrf": csrf_of(await page.text())} if token else {}
            response = await client.post(f"/channels/{channel_id}/{action}", data=data,
                                         allow_redirects=False)
            statuses.append((response.status, response.headers.get("Location")))
        board = await client.get(f"/channels/{channel_id}/board")
        return statuses, board.status, await board.text()

    return serve(quiz, scenario)


def _anonymous(quiz, path):
    async def scenario(client):
        response = await client.get(path, allow_redirects=False)
        return response.status, await response.text(), response.headers

    return serve(quiz, scenario)


def test_an_admin_publishes_and_anyone_with_the_link_sees_the_board(quiz, channel):
    _solve(quiz, channel, "Alice", "Mallory", hidden=("Mallory",))
    statuses, _, html = _act(quiz, channel.id, "publish")
    assert statuses == [(303, f"/channels/{channel.id}/board#share")]
    path = _SHARED.search(html).group(1)
    status, public, headers = _anonymous(quiz, path)
    assert status == 200 and "Alice" in public and "Mallory" not in public
    assert "+1 member hidden" in public and "Sign out" not in public
    assert "/me" not in public.split("<main")[1]  # nobody's progress from a public page
    assert headers["Cache-Control"] == "no-store"
    status, week, _ = _anonymous(quiz, path + "?period=all&page=x")
    assert status == 200 and 'aria-current="page">All time' in week


def test_a_withdrawn_link_answers_404_and_a_replaced_one_too(quiz, channel):
    _solve(quiz, channel, "Alice")
    _, _, first = _act(quiz, channel.id, "publish")
    old = _SHARED.search(first).group(1)
    _, _, second = _act(quiz, channel.id, "publish")
    new = _SHARED.search(second).group(1)
    assert new != old and "Replace the link" in second
    assert _anonymous(quiz, old)[0] == 404 and _anonymous(quiz, new)[0] == 200
    _, _, third = _act(quiz, channel.id, "withdraw")
    assert _anonymous(quiz, new)[0] == 404 and _SHARED.search(third) is None
    assert "Publish at a link" in third


def test_publishing_and_withdrawing_are_in_the_audit_log(quiz, channel):
    _act(quiz, channel.id, "publish", "publish", "withdraw", "withdraw")
    changes = [(c.action, c.before, c.after, c.actor) for c in quiz.audit.latest("slack", "W1")]
    assert changes == [("withdraw_board", "published", "private", "ada"),
                       ("publish_board", "published", "published at a new link", "ada"),
                       ("publish_board", "private", "published", "ada")]


def test_a_member_can_neither_publish_nor_see_the_share_controls(quiz, channel):
    statuses, status, html = _act(quiz, channel.id, "publish", "withdraw",
                                  identity=who("alice"))
    assert [s for s, _ in statuses] == [403, 403] and status == 200
    assert "Share the board" not in html and "/publish" not in html
    assert quiz.board.store.board_token(channel.id) is None
    assert quiz.audit.latest("slack", "W1") == []


def test_a_forged_publish_without_the_token_is_refused(quiz, channel):
    statuses, _, _ = _act(quiz, channel.id, "publish", token=False)
    assert statuses[0][0] == 403 and quiz.board.store.board_token(channel.id) is None


def test_another_workspaces_channel_cannot_be_published(quiz, channel):
    theirs = quiz.rounds.channel("slack", "C9", "W2", ChannelDefaults(name="theirs"))
    statuses, _, _ = _act(quiz, theirs.id, "publish", "withdraw")
    assert [s for s, _ in statuses] == [404, 404]
    assert quiz.board.store.board_token(theirs.id) is None


@pytest.mark.parametrize("path", ["/boards/" + "a" * 43, "/boards/short", "/boards/" + "a" * 44,
                                  "/boards/%00" + "a" * 40, "/boards/"])
def test_an_unknown_or_malformed_link_is_a_404(quiz, channel, path):
    assert _anonymous(quiz, path)[0] == 404
