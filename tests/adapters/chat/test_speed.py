"""Speed challenges end to end, on Discord and on Slack, timed by the real sandboxed timer.

One timed verdict per platform (each takes seconds); the refusals and the review of a held
verdict cost no timing.
"""

from __future__ import annotations

import datetime as dt

from bot.core.kernel.messages import speed_review_action
from bot.core.kernel.models import SpeedShapeFigure, SpeedVerdictRecord
from bot.core.speed import MAX_CODE_CHARS
from content.loader import load_bank
from executors.speed.executor import LocalSpeedExecutor
from tests.support.speed import FASTER, ROW_NORMS, speed_bank


def _with_speed(chat, tmp_path, speed_timer) -> None:
    chat.bank = speed_bank(tmp_path)
    chat.config = chat.base_settings()
    chat.speed_executor = LocalSpeedExecutor(load_bank(chat.bank), timer=speed_timer)


def test_a_speed_answer_is_timed_ranked_and_a_held_one_reviewed_by_an_admin(
        chat, tmp_path, speed_timer):
    _with_speed(chat, tmp_path, speed_timer)

    async def scenario(d):
        await d.enable_channel()
        served = await d.command("quiz", topic=f"speed {ROW_NORMS}")
        assert served.private and "row_norms(x: torch.Tensor)" in served.text
        form = await d.open_form(served, button=served.button("tq:sform:"))
        assert form.mode == "code" and "wide = x.double()" in form.prefill
        verdict = await d.submit(form, FASTER)
        assert verdict.private and "Correct and faster" in verdict.text, verdict.text
        assert verdict.text.count("95 % interval") == 3 and "Checked: " in verdict.text
        board = await d.command("speed", who="bob", challenge=ROW_NORMS)
        assert d.display_name("alice") in board.text and "best score" in board.text

        unknown = await d.command("speed", challenge="speed.nope")
        assert "No speed challenge has that id" in unknown.text
        huge = await d.submit(form, "#" * (MAX_CODE_CHARS + 1), forged=True)
        assert "at most" in huge.text

        member = d.quiz.rounds.member(d.platform, d.user_id("bob"), d.display_name("bob"))
        held = d.quiz.speed.store.add_speed_verdict(SpeedVerdictRecord(
            member.id, d.stored_channel().id, d.pack_scope(), ROW_NORMS, 1, "pending", True,
            True, 40.0, (SpeedShapeFigure("small", 60.0, 55.0, 65.0),), "small: above the cap",
            dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)))
        refused = await d.command("speed", who="bob", challenge="held")
        assert "Only an admin" in refused.text
        listing = await d.command("speed", who="admin", challenge="held")
        release = speed_review_action(held, "release")
        assert release in listing.buttons
        forged = await d.click(listing, release, who="bob")
        assert "Only an admin" in forged.text
        released = await d.click(listing, release, who="admin")
        assert "Released speed verdict" in released.text
        board = await d.command("speed", challenge=ROW_NORMS)
        assert d.display_name("bob") in board.text.split(d.display_name("alice"))[0]
        twice = await d.click(listing, speed_review_action(held, "reject"), who="admin")
        assert "not waiting for review" in twice.text

    chat.run(scenario)


def test_a_daily_speed_round_is_set_posted_timed_counted_and_revealed(
        chat, tmp_path, speed_timer):
    _with_speed(chat, tmp_path, speed_timer)

    async def scenario(d):
        channel = await d.enable_channel(kinds=["speed"])  # the platform's own settings form
        assert channel.kinds == ("speed",)
        shown = await d.view_settings("bob")
        assert "kinds" in shown.text and "speed" in shown.text
        post = await d.post_today(channel)
        assert "row_norms(x: torch.Tensor)" in post.text and "faster `row_norms`" in post.text
        form = await d.open_form(post)
        assert form.mode == "code" and "wide = x.double()" in form.prefill
        reply = await d.submit(form, FASTER)  # acknowledged at once, the verdict follows
        assert reply.private and "Correct and faster" in reply.text, reply.text
        assert "Today's round: +" in reply.text
        await d.settle()
        assert "1 solved · 1 answered" in d.current(post).text
        d.clock.advance(hours=24)
        await d.close_due()
        [reveal] = d.thread_of(post)
        assert "own fast solution" in reveal.text and "One float32 reduction" in reveal.text
        assert d.display_name("alice") in reveal.text and "vector_norm" in reveal.text

    chat.run(scenario)
