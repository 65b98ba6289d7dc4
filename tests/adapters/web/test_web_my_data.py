"""My progress beyond the numbers: the streak calendar, reviews, my answers, export, forget-me."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from bot.adapters.web.pages import chat_link
from bot.core.desk import Desk
from bot.core.kernel.models import Actor, ChannelDefaults, Review, WebGrant
from tests.adapters.web.support import csrf_of, link, serve, sign_in, who
from tests.support.core import day, only, shown


def _answer(quiz, channel, name: str, key: str, *, close: bool = True) -> None:
    """Post today's choice round; ``name`` answers the option stored as ``key``.

    ``close``: the round then closes (its hours pass, the clock set back for the page).
    """
    channel = only(quiz, channel, "t.choice-view")
    posted = quiz.rounds.post_round(channel.id)
    member = quiz.rounds.member("slack", name.lower(), name)
    quiz.rounds.submit_answer(channel.id, Actor(member), shown(posted.message, key))
    if close:
        clock = quiz.rounds.clock
        now = clock.now()
        day(clock)
        quiz.rounds.close_due_rounds()
        clock.set(now)


def _get(quiz, path, identity=None):
    signin = link(quiz, identity or who())

    async def scenario(client):
        await sign_in(client, signin)
        response = await client.get(path, allow_redirects=False)
        return response.status, await response.text(), response.headers

    return serve(quiz, scenario)


def test_the_calendar_labels_every_day_not_by_colour_alone(quiz, channel, clock):
    _answer(quiz, channel, "Alice", "B")
    day(clock)
    quiz.rounds.post_round(channel.id)  # tomorrow's round: open, not answered yet
    _, html, _ = _get(quiz, f"/channels/{channel.id}/me")
    table = html.split('<table class="calendar"')[1].split("</table>")[0]
    assert table.count('<tr>') == 9  # the weekdays' header and eight weeks
    assert "2026-03-02: solved" in table and "2026-03-03: open now" in table
    assert "2026-03-01: no question" in table and "2026-03-08: to come" in table
    assert '<caption id="calendar-caption">The last 8 weeks' in table


def test_a_missed_round_covered_by_a_freeze_reads_frozen(quiz, channel, clock):
    channel = only(quiz, channel, "t.text-detach")
    member = quiz.rounds.member("slack", "alice", "Alice")
    for _ in range(7):  # seven in a row earn a freeze
        quiz.rounds.post_round(channel.id)
        quiz.rounds.submit_answer(channel.id, Actor(member), "detach")
        quiz.rounds.close_due_rounds()
        day(clock)
    quiz.rounds.post_round(channel.id)  # missed
    quiz.rounds.close_due_rounds()
    day(clock, 2)
    _, html, _ = _get(quiz, f"/channels/{channel.id}/me")
    assert "2026-03-09: missed, a freeze kept the streak" in html
    assert "2026-03-08: solved" in html


def test_my_answers_show_the_wrong_options_why_and_the_explain_card(quiz, channel):
    _answer(quiz, channel, "Alice", "A")
    _, html, _ = _get(quiz, f"/channels/{channel.id}/me")
    history = html.split('id="history"')[1]
    assert "A. view" in history and "wrong" in history
    assert "Why it is wrong: view never copies." in history
    assert 'href="/cards/view-vs-reshape"' in history
    assert 'href="/questions/t.choice-view"' in history


def test_an_open_round_in_my_answers_links_no_card_yet(quiz, channel):
    _answer(quiz, channel, "Alice", "A", close=False)
    _, html, _ = _get(quiz, f"/channels/{channel.id}/me")
    history = html.split('id="history"')[1]
    assert "Why it is wrong: view never copies." in history  # chat's verdict said it already
    assert "/cards/view-vs-reshape" not in history and "B. reshape" not in history


def test_my_answers_come_twenty_a_page(quiz, channel, clock):
    channel = only(quiz, channel, "t.text-detach")
    member = quiz.rounds.member("slack", "alice", "Alice")
    for _ in range(25):
        quiz.rounds.post_round(channel.id)
        quiz.rounds.submit_answer(channel.id, Actor(member), "detach")
        quiz.rounds.close_due_rounds()
        day(clock)
    _, first, _ = _get(quiz, f"/channels/{channel.id}/me")
    _, second, _ = _get(quiz, f"/channels/{channel.id}/me?page=2")
    _, odd, _ = _get(quiz, f"/channels/{channel.id}/me?page=-1%00")
    assert first.split('<ol class="history">')[1].split('</ol>')[0].count("<li") == 20
    assert 'rel="next"' in first and 'rel="prev"' not in first
    assert second.split('<ol class="history">')[1].split('</ol>')[0].count("<li") == 5
    assert 'rel="prev"' in second and 'rel="next"' not in second
    assert "2026-03-26" in first and "2026-03-02" in second  # newest first
    assert odd.split("<main")[1] == first.split("<main")[1]


def test_reviews_due_link_to_the_channel_in_the_chat(quiz, channel):
    _, html, _ = _get(quiz, f"/channels/{channel.id}/me")
    assert "No review is due now." in html
    grant = WebGrant(platform="discord", workspace="111", user="9", display_name="A",
                     channel="222", locale="en", is_admin=False)
    assert chat_link(grant, "222") == "https://discord.com/channels/111/222"
    slack = WebGrant(platform="slack", workspace="T1", user="U1", display_name="A",
                     channel="C1", locale="en", is_admin=False)
    assert chat_link(slack, "C1") == "https://slack.com/app_redirect?team=T1&channel=C1"
    console = WebGrant(platform="console", workspace="local", user="me", display_name="A",
                       channel="c", locale="en", is_admin=False)
    assert chat_link(console, "c") == ""


def test_reviews_due_say_the_command_and_open_the_slack_channel(quiz, channel, store, clock):
    member = quiz.rounds.member("slack", "alice", "Alice")
    at = clock.now() - dt.timedelta(hours=1)
    store.save_review(Review(user_id=member.id, item_id="t.text-detach", state=1, step=0,
                             stability=None, difficulty=None, due_at=at, reviewed_at=at,
                             last_correct=False))
    _, html, _ = _get(quiz, f"/channels/{channel.id}/me")
    assert "1 review is due. Type /quiz in the chat to start." in html
    assert 'href="https://slack.com/app_redirect?team=W1&amp;channel=C1"' in html
    assert "Open the channel in Slack" in html


def test_the_export_is_the_data_forget_me_deletes_as_json(quiz, channel):
    _answer(quiz, channel, "Alice", "B")
    status, body, headers = _get(quiz, "/me/export")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert "attachment" in headers["Content-Disposition"]
    data = json.loads(body)
    assert data == quiz.people.export(who("alice"))
    sections = {s["name"]: s for s in data["sections"]}
    assert len(sections["answers"]["rows"]) == 1
    assert data["member"]["external_id"] == "alice"


def test_export_and_forget_need_a_session(quiz):
    async def scenario(client):
        out = []
        for path in ("/me/export", "/me/forget"):
            response = await client.get(path, allow_redirects=False)
            out.append((response.status, response.headers.get("Location")))
        return out

    assert serve(quiz, scenario) == [(303, "/"), (303, "/")]


def _forget(quiz, identity, *, confirm="yes", token=True):
    """Sign in, open the confirm page, post it; return (preview, status, page, headers, home)."""
    signin = link(quiz, identity)

    async def scenario(client):
        await sign_in(client, signin)
        page = await client.get("/me/forget")
        preview = await page.text()
        data = {"confirm": confirm} if confirm else {}
        if token:
            data["csrf"] = csrf_of(preview)
        response = await client.post("/me/forget", data=data, allow_redirects=False)
        after = await client.get("/", allow_redirects=False)
        return (preview, response.status, await response.text(), response.headers,
                await after.text())

    return serve(quiz, scenario)


def test_forget_me_confirms_then_does_what_chats_yes_does(quiz, channel):
    _answer(quiz, channel, "Alice", "B")
    chat_preview = Desk(quiz).command(who("alice"), "forget-me").message.body
    preview, status, html, headers, after = _forget(quiz, who("alice"))
    assert chat_preview.split(".")[0] in preview.replace("&#39;", "'")
    assert "Yes, delete my data" in preview and 'name="confirm" value="yes"' in preview
    assert status == 200 and "<h1>Your quiz data is deleted</h1>" in html
    assert quiz.people.export(who("alice")) is None
    assert "tq_session=\"\"" in headers.get("Set-Cookie", "") or \
        "tq_session=;" in headers.get("Set-Cookie", "")
    assert "You are signed out." in after


def test_forget_me_ends_every_web_session_of_the_member(quiz, channel):
    _answer(quiz, channel, "Alice", "B")
    signin = link(quiz, who("alice"))
    kept: dict[str, str] = {}

    async def first_browser(client):
        await sign_in(client, signin)
        kept.update({c.key: c.value for c in client.session.cookie_jar})

    serve(quiz, first_browser)
    assert quiz.signin.session(kept["tq_session"]) is not None
    _forget(quiz, who("alice"))
    assert quiz.signin.session(kept["tq_session"]) is None


def test_forget_me_without_the_confirm_field_or_token_deletes_nothing(quiz, channel):
    _answer(quiz, channel, "Alice", "B")
    _, status, _, _, _ = _forget(quiz, who("alice"), confirm="")
    assert status == 400 and quiz.people.export(who("alice")) is not None
    _, status, _, _, _ = _forget(quiz, who("alice"), confirm="no")
    assert status == 400 and quiz.people.export(who("alice")) is not None
    _, status, _, _, _ = _forget(quiz, who("alice"), token=False)
    assert status == 403 and quiz.people.export(who("alice")) is not None


def test_forget_me_deletes_only_the_signed_in_member(quiz, channel):
    _answer(quiz, channel, "Alice", "B")
    quiz.rounds.member("slack", "bob", "Bob")
    _forget(quiz, who("alice"))
    assert quiz.people.export(who("bob")) is not None


@pytest.mark.parametrize("path", ["/channels/{id}/me?page=2"])
def test_another_workspaces_progress_is_not_found(quiz, channel, path):
    theirs = quiz.rounds.channel("slack", "C9", "W2", ChannelDefaults(name="theirs"))
    status, _, _ = _get(quiz, path.format(id=theirs.id))
    assert status == 404


def test_member_text_in_my_answers_is_escaped(quiz, channel):
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    member = quiz.rounds.member("slack", "alice", "<b>Alice</b>")
    quiz.rounds.submit_answer(channel.id, Actor(member), "<script>alert(1)</script>")
    _, html, _ = _get(quiz, f"/channels/{channel.id}/me")
    assert "<script" not in html and "</script" not in html
    assert "alert(1)&lt;/script" in html


def test_my_progress_speaks_chinese(quiz, channel):
    _answer(quiz, channel, "Alice", "A")
    _, html, _ = _get(quiz, f"/channels/{channel.id}/me", who("alice", locale="zh-CN"))
    assert "连续打卡日历" in html and "<th scope=\"col\">周一</th>" in html
    assert "2026-03-02：未答对" not in html and "2026-03-02: 未答对" in html
    assert "我的作答记录" in html and "错误" in html and "删除我的数据" in html
