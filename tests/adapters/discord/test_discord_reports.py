"""Reports, the reveal's distribution and the weekly extras on Discord, end to end."""

from __future__ import annotations

import re

from tests.fake_discord import GUILD_ID, custom_ids, message_text
from tests.hostile import HOSTILE_STRINGS, invisible_or_control, pings

NOTE = HOSTILE_STRINGS["everyone"] + " " + HOSTILE_STRINGS["discord-mentions"]


def _round_id(post):
    return int(next(c for c in custom_ids(post) if c.startswith("tq:")).split(":")[2])


async def _played(h):
    """Alice and Bob pick "view" (wrong), the admin "reshape"; return the post and the clicks."""
    channel = await h.enable_channel("t.choice-view")
    post = await h.post_today(channel)
    rid = _round_id(post)
    clicks = {}
    for who, key in (("alice", "A"), ("bob", "A"), ("admin", "B")):
        clicks[who] = await h.done(await h.fake.click(int(post["id"]), f"tq:answer:{rid}:{key}",
                                                      who))
    return channel, post, rid, clicks


def test_a_member_reports_from_the_feedback_through_a_modal_with_a_reason_menu(discord_run):
    async def scenario(h):
        _, _, rid, clicks = await _played(h)
        feedback = clicks["alice"].replies()[0]
        assert f"tq:report:{rid}:open" in custom_ids(feedback)
        opened = await h.done(await h.fake.click_ephemeral(feedback, f"tq:report:{rid}:open"))
        assert opened.callback_type == 9  # the modal is the first response: no defer
        modal = opened.callbacks[0]["data"]
        assert modal["custom_id"] == f"tq:reported:{rid}:text"
        menu = modal["components"][0]["component"]
        assert [o["value"] for o in menu["options"]][:2] == ["incorrect", "ambiguous"]
        thanks = await h.done(await h.fake.submit(modal["custom_id"], NOTE, choice="incorrect"))
        assert thanks.ephemeral and "Thank you" in thanks.text()
        again = await h.done(await h.fake.submit(modal["custom_id"], "", choice="ambiguous"))
        assert "already reported this version" in again.text()
        [stored] = h.quiz.rounds.store.reports()
        assert (stored.reason, stored.note, stored.workspace) == ("incorrect", NOTE,
                                                                   str(GUILD_ID))

    discord_run(scenario)


def test_only_a_manage_server_member_lists_reports_and_the_note_is_inert(discord_run):
    async def scenario(h):
        _, _, rid, _ = await _played(h)
        await h.done(await h.fake.submit(f"tq:reported:{rid}:text", NOTE, choice="outdated"))
        refused = await h.done(await h.fake.slash("quiz-reports", "alice"))
        assert "Only admins" in refused.text()
        listing = await h.done(await h.fake.slash("quiz-reports", "admin"))
        shown = listing.text()
        assert listing.ephemeral and "Outdated for today's PyTorch" in shown
        assert pings(shown) == [] and invisible_or_control(shown) == []
        closed = await h.done(await h.fake.slash("quiz-reports", "admin", close=1,
                                                 reason="fixed in version 2"))
        assert "Report #1 is closed" in closed.text()

    discord_run(scenario)


def test_the_reveal_shows_the_distribution_and_the_week_its_misconception(discord_run):
    async def scenario(h):
        channel, post, _, _ = await _played(h)
        wrong = re.search(r"([A-C])\. view", message_text(post)).group(1)
        right = re.search(r"([A-C])\. reshape", message_text(post)).group(1)
        h.clock.advance(hours=24)
        await h.scheduler.close_due()
        reveal = h.fake.channel_posts(h.fake.thread_on(int(post["id"])))[0]
        text = message_text(reveal)
        assert f"{wrong} 2" in text and f"{right} 1" in text and "First tries" in text
        assert any(c.startswith("tq:report:") for c in custom_ids(reveal))
        await h.scheduler.post_board(channel.id)
        board = message_text(h.fake.messages[h.fake.posted[-1]])
        assert "Misconception of the week" in board and "view never copies." in board
        assert "Hardest question of the week" in board and "/explain view-vs-reshape" in board

    discord_run(scenario)
