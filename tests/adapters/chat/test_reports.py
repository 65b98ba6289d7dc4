"""Reports, the reveal's distribution and the weekly extras, on Discord and on Slack."""

from __future__ import annotations

from bot.core.quality.reports import NOTE_CHARS
from tests.hostile import HOSTILE_STRINGS, invisible_or_control, pings

# What a member might type as a note: pings for both platforms and markup.
NOTE = " ".join(HOSTILE_STRINGS[k] for k in ("everyone", "discord-mentions", "slack-mentions",
                                             "markdown"))


async def _played(d, **settings):
    """Alice and Bob pick "view" (wrong), the admin "reshape"; return the post and replies."""
    post = await d.todays_post("t.choice-view", **settings)
    replies = {who: await d.click(post, post.choice(key), who)
               for who, key in (("alice", "A"), ("bob", "A"), ("admin", "B"))}
    return post, replies


def test_a_member_reports_from_the_feedback_in_a_form_with_a_reason_menu(chat):
    async def scenario(d):
        post, replies = await _played(d)
        report = replies["alice"].button("tq:report:")
        assert report == f"tq:report:{post.round_id}:open"
        form = await d.open_form(replies["alice"], "alice", button=report)
        assert form.choices == ("incorrect", "ambiguous", "several_correct", "outdated",
                                "translation", "other")
        assert form.max_length == NOTE_CHARS
        thanks = await d.submit(form, NOTE, choice="several_correct")
        assert thanks.private and "Thank you" in thanks.text
        again = await d.submit(form, "", choice="ambiguous")
        assert "already reported this version" in again.text
        [stored] = d.quiz.rounds.store.reports()
        assert (stored.reason, stored.note, stored.item_version) == ("several_correct", NOTE, 1)

    chat.run(scenario)


def test_only_an_admin_lists_and_closes_reports_and_a_note_shows_inert(chat):
    async def scenario(d):
        _, replies = await _played(d)
        report = replies["bob"].button("tq:report:")
        form = await d.open_form(replies["bob"], "bob", button=report)
        await d.submit(form, NOTE, choice="incorrect")
        refused = await d.command("reports", "alice")
        assert "Only admins" in refused.text
        listing = await d.command("reports", "admin")
        assert listing.private and "The marked answer is incorrect" in listing.text
        assert not listing.can_ping
        assert pings(listing.text) == [] and invisible_or_control(listing.text) == []
        closed = await d.command("reports", "admin", close=1, reason="the key is right")
        assert "Report #1 is closed" in closed.text
        assert "No open reports" in (await d.command("reports", "admin")).text

    chat.run(scenario)


def test_the_reveal_and_the_weekly_post_show_what_the_answers_taught(chat):
    async def scenario(d):
        post, _ = await _played(d)
        wrong, right = post.letter("A"), post.letter("B")
        d.clock.advance(hours=24)
        await d.close_due()
        [reveal] = d.thread_of(post)
        assert "First tries" in reveal.text
        assert f"{wrong} 2" in reveal.text and f"{right} 1" in reveal.text
        assert reveal.button("tq:report:") == f"tq:report:{post.round_id}:open"
        board = await d.post_board(d.stored_channel())
        assert "Misconception of the week" in board.text and "view never copies." in board.text
        assert "Hardest question of the week" in board.text
        assert "/explain view-vs-reshape" in board.text

    chat.run(scenario)


def test_the_weekly_extras_speak_the_channels_language(chat):
    async def scenario(d):
        await _played(d, language="zh-CN")
        d.clock.advance(hours=24)
        await d.close_due()
        board = await d.post_board(d.stored_channel())
        assert "本周易错点" in board.text and "错在哪里：view 从不复制。" in board.text
        assert "本周最难的题" in board.text and "首次作答正确率 33%" in board.text

    chat.run(scenario)
