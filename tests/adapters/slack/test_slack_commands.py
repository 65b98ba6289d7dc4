"""Slash commands end to end: /explain, /quiz, /leaderboard, /quiz-stats, /quiz-settings, home."""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from zoneinfo import ZoneInfo

from bot.scheduling import post_job_id
from tests.fake_slack import GENERAL, RANDOM
from tests.fake_slack_requests import modal_values


def test_explain_with_an_alias_shows_the_card_privately_with_a_share_button(slack_run):
    async def scenario(h):
        reply = await h.reply(await h.send.command("/explain", "stop gradient"))
        assert reply.kind == "response" and reply.user == "U0ALICE"
        assert "detach()" in reply.shown_text
        assert "Cuts a tensor from the graph" in reply.shown_text
        assert "```\nprint('detach example')\n```" in reply.shown_text
        assert "tq:share:detach:card" in reply.actions

    slack_run(scenario)


def test_explain_with_an_unknown_topic_suggests_real_ones(slack_run):
    async def scenario(h):
        reply = await h.reply(await h.send.command("/explain", "astrology"))
        assert reply.kind == "response" and "No card for 'astrology'" in reply.shown_text
        assert reply.actions == []

    slack_run(scenario)


def test_sharing_a_card_posts_it_for_the_channel(slack_run):
    async def scenario(h):
        card = await h.reply(await h.send.command("/explain", "detach"))
        click = await h.send.click(card, "tq:share:detach:card")
        h.acked(click)
        shared = await h.fake.wait_for(lambda s: s.kind == "post" and s.seq >= click.mark)
        assert shared.user == "" and shared.channel == GENERAL
        assert "detach()" in shared.shown_text and shared.actions == []

    slack_run(scenario)


def test_a_non_admin_is_refused_by_quiz_settings_and_nothing_changes(slack_run):
    async def scenario(h):
        asked = await h.send.command("/quiz-settings", who="alice")
        refused = await h.reply(asked)
        assert "Only admins" in refused.shown_text
        assert asked.trigger_id not in h.fake.trigger_views  # no form was opened
        assert h.quiz.rounds.find_channel("slack", GENERAL) is None
        channel = await h.enable_channel()
        again = await h.reply(await h.send.command("/quiz-settings", who="bob"))
        assert "Only admins" in again.shown_text and "09:00" in again.shown_text
        assert h.quiz.rounds.get_channel(channel.id).post_time == dt.time(9, 0)

    slack_run(scenario)


def test_a_forged_settings_submission_from_a_non_admin_changes_nothing(slack_run):
    async def scenario(h):
        channel = await h.enable_channel()
        view_id = await h.modal(await h.send.command("/quiz-settings", who="admin"))
        values = modal_values(h.fake.views[view_id], time="05:00")
        denied = await h.reply(await h.send.submit(view_id, values, who="alice"))
        assert "Only admins" in denied.shown_text
        assert h.quiz.rounds.get_channel(channel.id).post_time == dt.time(9, 0)

    slack_run(scenario)


def test_an_admins_modal_submission_is_applied_and_reschedules_at_once(slack_run):
    async def scenario(h):
        channel = await h.enable_channel()
        job = h.scheduler.scheduler.get_job(post_job_id(channel.id))
        assert (job.next_run_time.hour, job.next_run_time.minute) == (9, 0)
        view_id = await h.modal(await h.send.command("/quiz-settings", who="admin"))
        view = h.fake.views[view_id]
        labels = [b["label"]["text"] for b in view["blocks"] if b["type"] == "input"]
        assert labels == ["Channel", "Daily post time", "Time zone", "Language",
                          "Topics (none: every topic)", "Difficulty (none: all)",
                          "Weekly leaderboard day", "Weekly leaderboard hour", "Daily question"]
        zones = await h.send.options(view_id, "tq-settings-tz", "shang")
        assert "Asia/Shanghai" in [o["value"] for o in h.acked(zones).body["options"]]
        topics = await h.send.options(view_id, "tq-settings-topics", "auto")
        assert [o["value"] for o in topics.body["options"]] == ["autograd"]
        values = modal_values(view, time="07:45", tz="Asia/Shanghai", topics=["autograd"],
                              difficulty=["1", "2"], day="mon", hour="8")
        saved = await h.reply(await h.send.submit(view_id, values, who="admin"))
        assert "Settings saved" in saved.shown_text and "Asia/Shanghai" in saved.shown_text
        await asyncio.sleep(0.1)  # the reschedule is handed to the loop from a worker thread
        job = h.scheduler.scheduler.get_job(post_job_id(channel.id))
        local = job.next_run_time.astimezone(ZoneInfo("Asia/Shanghai"))
        assert (local.hour, local.minute) == (7, 45)
        now = h.quiz.rounds.get_channel(channel.id)
        assert (now.topics, now.difficulties) == (("autograd",), (1, 2))
        assert (now.leaderboard_weekday, now.leaderboard_hour) == (0, 8)

    slack_run(scenario)


def test_picking_another_channel_redraws_the_settings_modal_for_it(slack_run):
    async def scenario(h):
        await h.enable_channel(time="06:30")
        view_id = await h.modal(await h.send.command("/quiz-settings", who="admin",
                                                     channel=RANDOM))
        shown = {b["block_id"]: b["element"] for b in h.fake.views[view_id]["blocks"]
                 if b["type"] == "input"}
        assert shown["time"]["initial_time"] == "09:00"  # #random has no quiz yet
        h.acked(await h.send.view_action(view_id, "channel",
                                         {"selected_conversation": GENERAL}))
        await h.fake.wait_for(lambda s: s.kind == "modal"
                              and s.extra["method"] == "views.update")
        shown = {b["block_id"]: b["element"] for b in h.fake.views[view_id]["blocks"]
                 if b["type"] == "input"}
        assert shown["time"]["initial_time"] == "06:30"
        assert shown["channel"]["initial_conversation"] == GENERAL

    slack_run(scenario)


def test_workspace_owners_and_configured_users_may_change_settings(slack_run):
    async def scenario(h):
        for who in ("owner", "alice"):
            asked = await h.send.command("/quiz-settings", who=who)
            assert await h.modal(asked)

    slack_run(scenario, SLACK_ADMIN_USER_IDS="U0NOBODY, U0ALICE")


def test_practice_is_private_and_a_code_question_is_graded(slack_run):
    async def scenario(h):
        await h.enable_channel()
        question = await h.reply(await h.send.command("/quiz", "tensors"))
        assert question.kind == "response" and "Practice" in question.shown_text
        forms = [a for a in question.actions if a.startswith("tq:pform:")]
        if forms:
            view_id = await h.modal(await h.send.click(question, forms[0]))
            mode = h.fake.views[view_id]["callback_id"].rsplit(":", 1)[1]
            answer = "def double(x):\n    return x * 2\n" if mode == "code" else "(2, 3)"
            done = await h.reply(await h.send.answer(view_id, answer), timeout=60)
        else:
            letter = next(a for a in question.actions if a.startswith("tq:practice:"))
            done = await h.reply(await h.send.click(question, letter))
        assert done.shown_text and "Answer:" in done.shown_text

    slack_run(scenario)


def test_leaderboard_and_stats_are_private(slack_run):
    async def scenario(h):
        await h.enable_channel()
        week = await h.reply(await h.send.command("/leaderboard"))
        assert week.kind == "response" and "Leaderboard · this week" in week.shown_text
        everyone = await h.reply(await h.send.command("/leaderboard", "all"))
        assert "all time" in everyone.shown_text
        bad = await h.reply(await h.send.command("/leaderboard", "yesterday"))
        assert "/leaderboard week or /leaderboard all" in bad.shown_text
        mine = await h.reply(await h.send.command("/quiz-stats", who="bob"))
        assert "Stats · 王小明" in mine.shown_text
        theirs = await h.reply(await h.send.command("/quiz-stats", "<@U0ALICE|alice>", "bob"))
        assert "Stats · Alice" in theirs.shown_text
        unclear = await h.reply(await h.send.command("/quiz-stats", "alice please", "bob"))
        assert "/quiz-stats @alice" in unclear.shown_text

    slack_run(scenario)


def test_boards_in_a_channel_without_a_quiz_say_how_to_start_one(slack_run):
    async def scenario(h):
        reply = await h.reply(await h.send.command("/leaderboard", channel=RANDOM))
        assert "no daily quiz yet" in reply.shown_text

    slack_run(scenario)


def test_a_chinese_channel_posts_and_replies_in_chinese(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view", lang="zh-CN")
        post = await h.post_today(channel)
        assert "每日 PyTorch 一题" in post.shown_text
        rid = post.actions[0].split(":")[2]
        click = await h.reply(await h.send.click(post, f"tq:answer:{rid}:B"))
        assert "答对了" in click.shown_text

    slack_run(scenario)


def test_outside_a_quiz_channel_replies_follow_the_members_slack_language(slack_run):
    async def scenario(h):
        reply = await h.reply(await h.send.command("/explain", "detach", "mei",
                                                   channel=RANDOM))
        assert re.search(r"[\u4e00-\u9fff]", reply.shown_text)
        actions = next(b for b in reply.blocks if b["type"] == "actions")
        assert actions["elements"][0]["text"]["text"] == "分享到频道"

    slack_run(scenario)


def test_the_home_tab_shows_the_members_stats_and_the_commands(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        rid = post.actions[0].split(":")[2]
        await h.reply(await h.send.click(post, f"tq:answer:{rid}:B", "bob"))
        opened = h.acked(await h.send.open_home("bob"))
        home = await h.fake.wait_for(lambda s: s.kind == "home" and s.seq >= opened.mark)
        assert home.user == "U0BOB"
        text = home.shown_text
        assert f"<#{GENERAL}>" in text and "Stats · 王小明" in text
        assert "15 points · 1/1 solved" in text
        for command in ("/explain", "/quiz", "/leaderboard", "/quiz-stats", "/quiz-settings"):
            assert f"`{command}" in text

    slack_run(scenario)
