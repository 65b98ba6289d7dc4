"""Slash commands end to end: registration, /explain with autocomplete, refusals, errors."""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from zoneinfo import ZoneInfo

from bot.scheduling import post_job_id
from tests.fake_discord import APP_ID, GENERAL, GUILD_ID, RANDOM, custom_ids, message_text


def test_commands_are_registered_with_their_options_and_admin_default(discord_run):
    async def scenario(h):
        names = {c["name"] for c in h.fake.commands}
        assert names == {"explain", "quiz", "leaderboard", "stats", "quiz-settings",
                         "quiz-forget-me"}
        settings = next(c for c in h.fake.commands if c["name"] == "quiz-settings")
        assert int(settings["default_member_permissions"]) == 1 << 5  # Manage Server
        options = {o["name"] for o in settings["options"]}
        assert options == {"channel", "time", "timezone", "language", "topics", "difficulty",
                           "leaderboard_day", "leaderboard_hour", "enabled"}

    discord_run(scenario)


def test_explain_autocompletes_and_shows_the_card_privately_with_a_share_button(discord_run):
    async def scenario(h):
        choices = await h.done(await h.fake.autocomplete("explain", "topic", "deta"))
        offered = [c["value"] for c in choices.callbacks[0]["data"]["choices"]]
        assert offered and offered[0] == "detach"
        card = await h.done(await h.fake.slash("explain", topic="detach"))
        assert card.ephemeral
        reply = card.replies()[0]
        assert "detach" in card.text().lower()
        assert "tq:share:detach:card" in custom_ids(reply)

    discord_run(scenario)


def test_commands_sync_to_one_server_when_a_guild_id_is_set(discord_run):
    async def scenario(h):
        assert h.fake.command_scope == "global"
        await h.restart_bot_with(guild_id=GUILD_ID)
        assert h.fake.command_scope == "guild"
        puts = [c.path for c in h.fake.calls if c.method == "PUT"]
        assert puts[-1] == f"/applications/{APP_ID}/guilds/{GUILD_ID}/commands"
        reply = await h.done(await h.fake.slash("explain", topic="detach"))
        assert "detach" in reply.text().lower()

    discord_run(scenario)


def test_an_unknown_topic_gets_suggestions(discord_run):
    async def scenario(h):
        reply = await h.done(await h.fake.slash("explain", topic="astrology"))
        assert reply.ephemeral and "No card for 'astrology'" in reply.text()

    discord_run(scenario)


def test_sharing_a_card_posts_it_for_the_channel(discord_run):
    async def scenario(h):
        card = await h.done(await h.fake.slash("explain", topic="detach"))
        shared = await h.done(await h.fake.click_ephemeral(card.replies()[0],
                                                           "tq:share:detach:card"))
        assert shared.callback_type == 4 and not shared.ephemeral
        assert "detach" in shared.text().lower()

    discord_run(scenario)


def test_settings_are_refused_without_manage_server_and_nothing_changes(discord_run):
    async def scenario(h):
        refused = await h.done(await h.fake.slash("quiz-settings", "alice", enabled=True))
        assert "Only admins" in refused.text()
        assert h.quiz.rounds.find_channel("discord", str(GENERAL)) is None
        channel = await h.enable_channel()
        again = await h.done(await h.fake.slash("quiz-settings", "bob", time="06:00"))
        assert "Only admins" in again.text()
        assert h.quiz.rounds.get_channel(channel.id).post_time == dt.time(9, 0)

    discord_run(scenario)


def test_an_admin_change_of_post_time_reschedules_at_once(discord_run):
    async def scenario(h):
        channel = await h.enable_channel()
        job = h.scheduler.scheduler.get_job(post_job_id(channel.id))
        assert (job.next_run_time.hour, job.next_run_time.minute) == (9, 0)
        saved = await h.done(await h.fake.slash("quiz-settings", "admin", time="07:45",
                                                timezone="Asia/Shanghai"))
        assert "Settings saved" in saved.text()
        await asyncio.sleep(0.1)  # the reschedule is handed to the loop from a worker thread
        job = h.scheduler.scheduler.get_job(post_job_id(channel.id))
        local = job.next_run_time.astimezone(ZoneInfo("Asia/Shanghai"))
        assert (local.hour, local.minute) == (7, 45)
        shown = await h.done(await h.fake.slash("quiz-settings", "bob"))
        assert "07:45" in shown.text() and "Asia/Shanghai" in shown.text()

    discord_run(scenario)


def test_timezone_autocomplete_offers_iana_names(discord_run):
    async def scenario(h):
        choices = await h.done(await h.fake.autocomplete("quiz-settings", "timezone", "shang",
                                                         "admin"))
        assert "Asia/Shanghai" in [c["value"] for c in choices.callbacks[0]["data"]["choices"]]

    discord_run(scenario)


def test_practice_is_private_and_a_code_question_is_graded(discord_run):
    async def scenario(h):
        await h.enable_channel()
        question = await h.done(await h.fake.slash("quiz", topic="tensors"))
        assert question.ephemeral and "Practice" in question.text()
        reply = question.replies()[0]
        ids = custom_ids(reply)
        if any(i.startswith("tq:pform:") for i in ids):
            item = next(i for i in ids if i.startswith("tq:pform:")).split(":")[2]
            opened = await h.done(await h.fake.click_ephemeral(reply, f"tq:pform:{item}:open"))
            assert opened.callback_type == 9
            mode = opened.callbacks[0]["data"]["custom_id"].rsplit(":", 1)[1]
            answer = "def double(x):\n    return x * 2\n" if mode == "code" else "(2, 3)"
            done = await h.done(await h.fake.submit(f"tq:psubmit:{item}:{mode}", answer))
        else:
            letter = next(i for i in ids if i.startswith("tq:practice:"))
            done = await h.done(await h.fake.click_ephemeral(reply, letter))
        assert done.ephemeral and done.text()

    discord_run(scenario)


def test_leaderboard_and_stats_are_private_unless_shared(discord_run):
    async def scenario(h):
        await h.enable_channel()
        private = await h.done(await h.fake.slash("leaderboard"))
        assert private.ephemeral and "Leaderboard" in private.text()
        shared = await h.done(await h.fake.slash("leaderboard", period="all", share=True))
        assert not shared.ephemeral and "all time" in shared.text()
        mine = await h.done(await h.fake.slash("stats", "bob"))
        assert mine.ephemeral and "王小明" in mine.text()
        theirs = await h.done(await h.fake.slash("stats", "bob", member="alice", share=True))
        assert not theirs.ephemeral and "Alice" in theirs.text()

    discord_run(scenario)


def test_boards_in_a_channel_without_a_quiz_say_how_to_start_one(discord_run):
    async def scenario(h):
        reply = await h.done(await h.fake.slash("leaderboard", channel_id=RANDOM))
        assert "no daily quiz yet" in reply.text()

    discord_run(scenario)


def test_a_chinese_channel_posts_and_replies_in_chinese(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view", language="zh-CN")
        post = await h.post_today(channel)
        assert "每日 PyTorch 一题" in message_text(post)
        rid = custom_ids(post)[0].split(":")[2]
        click = await h.done(await h.fake.click(int(post["id"]), f"tq:answer:{rid}:B"))
        assert "答对了" in click.text()

    discord_run(scenario)


def test_outside_a_quiz_channel_replies_follow_the_members_discord_language(discord_run):
    async def scenario(h):
        reply = await h.done(await h.fake.slash("explain", topic="detach", channel_id=RANDOM,
                                                locale="zh-CN"))
        assert re.search(r"[\u4e00-\u9fff]", reply.text())

    discord_run(scenario)


def test_an_unexpected_error_is_an_apology_and_the_next_interaction_works(discord_run,
                                                                          monkeypatch):
    async def scenario(h):
        real = h.quiz.explain.explain
        calls = []

        def flaky(query, locale):
            calls.append(query)
            if len(calls) == 1:
                raise RuntimeError("a bug")
            return real(query, locale)

        monkeypatch.setattr(h.quiz.explain, "explain", flaky)
        broken = await h.done(await h.fake.slash("explain", topic="detach"))
        assert "Sorry, something went wrong on our side" in broken.text()
        fine = await h.done(await h.fake.slash("explain", topic="detach"))
        assert "detach" in fine.text().lower()

    discord_run(scenario)
