"""Commands end to end, on Discord and on Slack: explain, practice, boards, settings, errors."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

CHINESE = re.compile(r"[\u4e00-\u9fff]")
DOUBLE = "def double(x):\n    return x * 2\n"


def test_explain_with_an_alias_shows_the_card_privately_with_a_share_button(chat):
    async def scenario(d):
        card = await d.command("explain", topic="stop gradient")
        assert card.private
        assert "detach()" in card.text and "Cuts a tensor from the graph" in card.text
        assert "print('detach example')" in card.text  # the card's example
        assert "tq:share:detach:card" in card.buttons

    chat.run(scenario)


def test_explain_with_an_unknown_topic_suggests_real_ones(chat):
    async def scenario(d):
        reply = await d.command("explain", topic="astrology")
        assert reply.private and "No card for 'astrology'" in reply.text
        assert reply.buttons == ()

    chat.run(scenario)


def test_sharing_a_card_posts_it_for_the_channel(chat):
    async def scenario(d):
        card = await d.command("explain", topic="detach")
        shared = await d.click(card, "tq:share:detach:card")
        assert not shared.private
        assert "detach()" in shared.text and shared.buttons == ()

    chat.run(scenario)


def test_a_member_who_is_no_admin_cannot_change_settings_and_nothing_changes(chat):
    async def scenario(d):
        refused = await d.settings("alice", enabled=True)
        assert "Only admins" in refused.text
        assert d.forms_opened() == 0 and d.stored_channel() is None
        channel = await d.enable_channel()
        again = await d.settings("bob", time="06:00")
        assert "Only admins" in again.text
        assert d.stored_channel().post_time == dt.time(9, 0) == channel.post_time

    chat.run(scenario)


def test_an_admins_change_is_applied_and_reschedules_at_once(chat):
    async def scenario(d):
        channel = await d.enable_channel()
        assert (d.next_post_at(channel).hour, d.next_post_at(channel).minute) == (9, 0)
        saved = await d.settings("admin", time="07:45", timezone="Asia/Shanghai",
                                 topics=["autograd"], difficulties=[1, 2], board_day="mon",
                                 board_hour=8)
        assert "Settings saved" in saved.text and "Asia/Shanghai" in saved.text
        await d.settle(0.1)  # the reschedule is handed to the loop from a worker thread
        local = d.next_post_at(channel).astimezone(ZoneInfo("Asia/Shanghai"))
        assert (local.hour, local.minute) == (7, 45)
        now = d.stored_channel()
        assert (now.topics, now.difficulties) == (("autograd",), (1, 2))
        assert (now.leaderboard_weekday, now.leaderboard_hour) == (0, 8)
        shown = await d.view_settings("bob")
        assert "07:45" in shown.text and "Asia/Shanghai" in shown.text

    chat.run(scenario)


def test_practice_is_private_and_its_answer_is_graded(chat):
    async def scenario(d):
        await d.enable_channel()
        question = await d.command("quiz", topic="tensors")
        assert question.private and "Practice" in question.text
        if any(b.startswith("tq:pform:") for b in question.buttons):
            form = await d.open_form(question)
            done = await d.submit(form, DOUBLE if form.mode == "code" else "(2, 3)")
        else:
            done = await d.click(question, question.button("tq:practice:"))
        assert done.private and "Answer:" in done.text

    chat.run(scenario)


def test_leaderboard_and_stats_are_private(chat):
    async def scenario(d):
        await d.enable_channel()
        week = await d.command("leaderboard")
        assert week.private and "Leaderboard · this week" in week.text
        everyone = await d.command("leaderboard", period="all")
        assert everyone.private and "all time" in everyone.text
        mine = await d.command("stats", "bob")
        assert mine.private and "Stats · 王小明" in mine.text
        theirs = await d.command("stats", "bob", member="alice")
        assert theirs.private and "Stats · Alice" in theirs.text

    chat.run(scenario)


def test_boards_in_a_channel_without_a_quiz_say_how_to_start_one(chat):
    async def scenario(d):
        reply = await d.command("leaderboard", channel="random")
        assert "no daily quiz yet" in reply.text

    chat.run(scenario)


def test_a_chinese_channel_posts_replies_and_boards_in_chinese(chat):
    async def scenario(d):
        channel = await d.enable_channel("t.choice-view", language="zh-CN")
        post = await d.post_today(channel)
        assert "每日 PyTorch 一题" in post.text
        assert "答对了" in (await d.click(post, post.choice("B"))).text
        board = await d.post_board(channel)
        assert "每周排行榜" in board.text and "Alice" in board.text

    chat.run(scenario)


def test_outside_a_quiz_channel_replies_follow_the_members_language(chat):
    async def scenario(d):
        card = await d.command("explain", "mei", channel="random", topic="detach")
        assert CHINESE.search(card.text)
        assert card.labels == ("分享到频道",)

    chat.run(scenario)


def test_an_unexpected_error_is_an_apology_and_the_next_request_works(chat, monkeypatch):
    async def scenario(d):
        d.break_once(monkeypatch)
        broken = await d.command("explain", topic="detach")
        assert "Sorry, something went wrong on our side" in broken.text
        fine = await d.command("explain", topic="detach")
        assert "detach()" in fine.text

    chat.run(scenario)
