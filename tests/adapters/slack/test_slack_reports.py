"""Reports, the reveal's distribution and the weekly extras on Slack, end to end."""

from __future__ import annotations

import re

from tests.fake_slack import GENERAL, TEAM, check_view
from tests.fake_slack_requests import modal_values
from tests.hostile import HOSTILE_STRINGS, invisible_or_control, pings

NOTE = HOSTILE_STRINGS["slack-mentions"] + " " + HOSTILE_STRINGS["markdown"]


def _round_id(post):
    return int(next(a for a in post.actions if a.startswith("tq:")).split(":")[2])


async def _played(h, **settings):
    """Alice and Bob pick "view" (wrong), the admin "reshape"; return the post and replies."""
    channel = await h.enable_channel("t.choice-view", **settings)
    post = await h.post_today(channel)
    rid = _round_id(post)
    replies = {}
    for who, key in (("alice", "A"), ("bob", "A"), ("admin", "B")):
        replies[who] = await h.reply(await h.send.click(post, f"tq:answer:{rid}:{key}", who))
    return channel, post, rid, replies


def test_a_member_reports_from_the_feedback_through_a_modal_with_a_reason_select(slack_run):
    async def scenario(h):
        _, _, rid, replies = await _played(h)
        assert f"tq:report:{rid}:open" in replies["alice"].actions
        view_id = await h.modal(await h.send.click(replies["alice"], f"tq:report:{rid}:open"))
        view = h.fake.views[view_id]
        check_view(view)
        assert view["callback_id"] == f"tq:reported:{rid}:text"
        values = modal_values(view, choice="several_correct", answer=NOTE)
        thanks = await h.reply(await h.send.submit(view_id, values))
        assert "Thank you" in thanks.shown_text
        again = await h.reply(await h.send.submit(view_id, values))
        assert "already reported this version" in again.shown_text
        [stored] = h.quiz.rounds.store.reports()
        assert (stored.reason, stored.note, stored.workspace) == ("several_correct", NOTE, TEAM)

    slack_run(scenario)


def test_only_a_workspace_admin_lists_reports_and_the_note_is_inert(slack_run):
    async def scenario(h):
        _, _, rid, replies = await _played(h)
        view_id = await h.modal(await h.send.click(replies["bob"], f"tq:report:{rid}:open",
                                                   "bob"))
        await h.reply(await h.send.submit(view_id, modal_values(
            h.fake.views[view_id], choice="incorrect", answer=NOTE), "bob"))
        refused = await h.reply(await h.send.command("/quiz-reports", who="alice"))
        assert "Only admins" in refused.shown_text
        listing = await h.reply(await h.send.command("/quiz-reports", who="admin"))
        shown = listing.shown_text
        assert "The marked answer is incorrect" in shown
        assert pings(shown) == [] and invisible_or_control(shown) == []
        assert "<!" not in shown and "<@" not in shown
        closed = await h.reply(await h.send.command("/quiz-reports", "close 1 not a fault",
                                                    who="admin"))
        assert "Report #1 is closed" in closed.shown_text

    slack_run(scenario)


def test_the_reveal_and_the_weekly_post_speak_the_channels_language(slack_run):
    async def scenario(h):
        channel, post, _, _ = await _played(h, lang="zh-CN")
        wrong = re.search(r"([A-C])\. view", post.shown_text).group(1)
        h.clock.advance(hours=24)
        await h.scheduler.close_due()
        [reveal] = h.fake.posts(GENERAL, thread_ts=post.ts)
        assert "首次作答分布" in reveal.shown_text and f"{wrong} 2" in reveal.shown_text
        assert any(a.startswith("tq:report:") for a in reveal.actions)
        await h.scheduler.post_board(channel.id)
        board = h.fake.posts(GENERAL)[-1].shown_text
        assert "本周易错点" in board and "错在哪里：view 从不复制。" in board
        assert "本周最难的题" in board and "/explain view-vs-reshape" in board

    slack_run(scenario)
