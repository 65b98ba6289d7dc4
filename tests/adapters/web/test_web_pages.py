"""The board and my-progress pages: what a member sees, and what they never see."""

from __future__ import annotations

import re

import pytest

from bot.core.kernel.models import Actor, ChannelDefaults
from tests.adapters.web.support import csrf_of, link, serve, sign_in, who
from tests.support.core import only


def _solve(quiz, channel, *names: str, hidden: tuple[str, ...] = ()) -> None:
    """Post a round; each named member (user id = name lower-cased) solves it on the first try."""
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    for name in names:
        member = quiz.rounds.member("slack", name.lower(), name)
        quiz.rounds.submit_answer(channel.id, Actor(member), "detach")
        if name in hidden:
            quiz.board.privacy(member, "hidden", "en")


def _page(quiz, path, identity=None):
    signin = link(quiz, identity or who())

    async def scenario(client):
        await sign_in(client, signin)
        response = await client.get(path, allow_redirects=False)
        return response.status, await response.text(), response.headers

    return serve(quiz, scenario)


def test_the_board_shows_who_answered_and_never_a_hidden_member(quiz, channel):
    _solve(quiz, channel, "Alice", "Bob", "Mallory", hidden=("Mallory",))
    status, html, _ = _page(quiz, f"/channels/{channel.id}/board")
    assert status == 200
    assert "Alice" in html and "Bob" in html and "Mallory" not in html
    assert "+1 member hidden" in html


def test_the_board_highlights_the_viewers_own_row(quiz, channel):
    _solve(quiz, channel, "Alice", "Bob")
    _, html, _ = _page(quiz, f"/channels/{channel.id}/board", who("bob"))
    mine = html.split('class="mine"')[1].split("</tr>")[0]
    assert "Bob" in mine and "Alice" not in mine


def test_the_board_shows_accuracy_streak_and_when_it_was_read(quiz, channel):
    _solve(quiz, channel, "Alice")
    _, html, _ = _page(quiz, f"/channels/{channel.id}/board?period=all")
    assert "100%" in html and "Updated at 2026-03-02" in html and "All time" in html


def test_the_board_lists_fifty_rows_a_page(quiz, channel):
    names = [f"M{i:02d}" for i in range(60)]
    _solve(quiz, channel, *names)
    _, first, _ = _page(quiz, f"/channels/{channel.id}/board")
    _, second, _ = _page(quiz, f"/channels/{channel.id}/board?page=2")
    _, beyond, _ = _page(quiz, f"/channels/{channel.id}/board?page=9999")
    assert first.count('<th scope="row">') == 50 and "Page 1" in first
    assert 'rel="next"' in first and 'rel="prev"' not in first
    assert second.count('<th scope="row">') == 10 and "Page 2" in second
    assert 'rel="next"' not in second and 'rel="prev"' in second
    assert beyond.split('<main')[1] == second.split('<main')[1]  # the session's token aside


def test_the_topic_board_counts_only_that_topics_rounds_and_hides_as_chat_does(quiz, channel):
    _solve(quiz, channel, "Alice", "Bob", "Mallory", hidden=("Mallory",))  # an autograd item
    base = f"/channels/{channel.id}/board"
    status, autograd, _ = _page(quiz, f"{base}?topic=autograd", who("bob"))
    _, tensors, _ = _page(quiz, f"{base}?topic=tensors")
    assert status == 200 and "All time in" in autograd
    assert "Alice" in autograd and "Bob" in autograd and "Mallory" not in autograd
    assert "+1 member hidden" in autograd
    mine = autograd.split('class="mine"')[1].split("</tr>")[0]
    assert "Bob" in mine and "Alice" not in mine
    assert '<option value="autograd" selected>' in autograd
    assert "Nobody has points yet." in tensors and "Alice" not in tensors.split("<main")[1]


def test_the_topic_board_pages_keep_the_topic_and_an_unknown_topic_is_the_week(quiz, channel):
    _solve(quiz, channel, *[f"M{i:02d}" for i in range(60)])
    base = f"/channels/{channel.id}/board"
    _, first, _ = _page(quiz, f"{base}?topic=autograd")
    _, second, _ = _page(quiz, f"{base}?topic=autograd&page=2")
    _, unknown, _ = _page(quiz, f"{base}?topic=no-such-topic")
    _, hostile, _ = _page(quiz, f"{base}?topic=%3Cscript%3E&page=x")
    assert first.count('<th scope="row">') == 50
    assert f'href="{base}?topic=autograd&amp;page=2"' in first
    assert second.count('<th scope="row">') == 10
    assert "This week" in unknown.split("<caption>")[1] and "<script>" not in hostile


def test_my_progress_shows_my_numbers_and_mastery_by_topic(quiz, channel):
    _solve(quiz, channel, "Alice")
    status, html, _ = _page(quiz, f"/channels/{channel.id}/me")
    assert status == 200
    assert "Points" in html and "<meter" in html and "My progress in #general" in html


def test_my_progress_says_so_when_i_never_answered(quiz, channel):
    _, html, _ = _page(quiz, f"/channels/{channel.id}/me")
    assert "You have not answered in this channel yet." in html


@pytest.mark.parametrize("route", ["/board", "/me", "/me/mastery.png", "/settings"])
@pytest.mark.parametrize("elsewhere", [("slack", "W2"), ("discord", "W1")])
def test_another_workspaces_channel_is_not_found(quiz, channel, route, elsewhere):
    platform, workspace = elsewhere
    other = quiz.rounds.channel(platform, "C9", workspace, ChannelDefaults(name="secret"))
    status, html, _ = _page(quiz, f"/channels/{other.id}{route}", who(admin=True))
    assert status == 404 and "secret" not in html


def test_the_channels_page_lists_only_the_workspaces_channels(quiz, channel):
    quiz.rounds.channel("slack", "C9", "W2", ChannelDefaults(name="elsewhere"))
    _, html, _ = _page(quiz, "/")
    assert "general" in html and "elsewhere" not in html


def test_a_page_speaks_the_members_chat_language(quiz, channel):
    _, html, _ = _page(quiz, f"/channels/{channel.id}/board", who(locale="zh-CN"))
    assert '<html lang="zh-CN">' in html and "排行榜" in html


def test_signed_out_pages_send_the_reader_home(quiz, channel):
    async def scenario(client):
        board = await client.get(f"/channels/{channel.id}/board", allow_redirects=False)
        home = await client.get("/")
        return board.status, board.headers.get("Location"), home.status, await home.text()

    status, location, home_status, home = serve(quiz, scenario)
    assert (status, location, home_status) == (303, "/", 200)
    assert "/quiz-web" in home  # how to sign in, as Discord and Slack name it


def test_an_admin_sees_the_channels_settings_as_chat_shows_them(quiz, channel):
    status, html, _ = _page(quiz, f"/channels/{channel.id}/settings", who("ada", admin=True))
    assert status == 200 and "Channel settings" in html
    assert "<code>time</code></th><td>09:00" in html and "/quiz-settings" in html


def test_a_member_gets_403_on_an_admins_page(quiz, channel):
    status, html, _ = _page(quiz, f"/channels/{channel.id}/settings", who("bob"))
    assert status == 403 and "Only the workspace&#39;s admins" in html
    _, home, _ = _page(quiz, "/", who("bob"))
    assert "/settings" not in home


def test_a_member_switches_the_pages_language(quiz, channel):
    signin = link(quiz)

    async def scenario(client):
        await sign_in(client, signin)
        board = await client.get(f"/channels/{channel.id}/board")
        switched = await client.post("/language", allow_redirects=False, data={
            "csrf": csrf_of(await board.text()), "lang": "zh-CN",
            "next": f"/channels/{channel.id}/board?period=all"})
        after = await client.get(switched.headers["Location"])
        return switched.status, switched.headers["Location"], await after.text()

    status, location, html = serve(quiz, scenario)
    assert (status, location) == (303, f"/channels/{channel.id}/board?period=all")
    assert '<html lang="zh-CN">' in html and "总榜" in html


@pytest.mark.parametrize("back", ["//evil.example/x", "https://evil.example", "/\\evil", "x"])
def test_switching_the_language_never_sends_the_browser_elsewhere(quiz, channel, back):
    signin = link(quiz)

    async def scenario(client):
        await sign_in(client, signin)
        page = await (await client.get("/")).text()
        switched = await client.post("/language", allow_redirects=False, data={
            "csrf": csrf_of(page), "lang": "en", "next": back})
        bad = await client.post("/language", data={"csrf": csrf_of(page), "lang": "fr"})
        return switched.headers["Location"], bad.status

    assert serve(quiz, scenario) == ("/", 400)


def test_the_chosen_language_reaches_what_the_core_words(quiz, channel):
    signin = link(quiz, who("ada", admin=True))

    async def scenario(client):
        await sign_in(client, signin)
        page = await (await client.get("/")).text()
        await client.post("/language", data={"csrf": csrf_of(page), "lang": "zh-CN",
                                             "next": "/"})
        return await (await client.get(f"/channels/{channel.id}/settings")).text()

    html = serve(quiz, scenario)
    assert "频道设置" in html and "Channel settings" not in html


def test_a_pages_title_is_its_name_alone(quiz, channel):
    # The board's title block once swallowed the share section: its forms were the tab's text.
    _solve(quiz, channel, "Alice")
    admin = who(admin=True)
    for path in (f"/channels/{channel.id}/board", f"/channels/{channel.id}/me"):
        status, html, _ = _page(quiz, path, admin)
        assert status == 200
        title = re.search(r"<title>(.*?)</title>", html, re.S)
        assert title is not None
        assert "&lt;" not in title.group(1) and "<" not in title.group(1), title.group(1)
        assert title.group(1).endswith(" · torchquiz") and len(title.group(1)) < 80
        assert html.count('aria-labelledby="share"') <= 1
