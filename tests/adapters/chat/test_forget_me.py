"""Forget-me end to end, on Discord and on Slack: what goes, the confirmation, the tally redrawn."""

from __future__ import annotations

import asyncio


async def _answered(d):
    """Alice and Bob answer today's choice round; return the post."""
    post = await d.todays_post("t.choice-view")
    await asyncio.gather(d.click(post, post.choice("B"), "alice"),
                         d.click(post, post.choice("B"), "bob"))
    await d.settle()
    assert "2 solved · 2 answered" in d.current(post).text
    return post


def _confirm(reply):
    return next(b for b in reply.buttons if b.startswith("tq:forget:") and b.endswith(":yes"))


def test_forget_me_asks_then_deletes_and_redraws_the_tally(chat):
    async def scenario(d):
        post = await _answered(d)
        asked = await d.command("forget_me", "alice")
        assert asked.private
        assert "1 answer, your totals in 1 channel" in asked.text
        assert d.answers_kept("alice") == 1  # nothing gone yet
        done = await d.click(asked, _confirm(asked), "alice")
        assert done.private
        # Her try at the open round stays without her: the rest goes.
        assert "Deleted your totals in 1 channel" in done.text
        assert "you go on from your next try" in done.text
        assert d.answers_kept("alice") is None
        await d.settle()
        assert "1 solved · 1 answered" in d.current(post).text
        again = await d.click(asked, _confirm(asked), "alice")
        assert "Nothing is stored about you" in again.text

    chat.run(scenario)


def test_another_members_click_on_the_confirmation_deletes_nobody(chat):
    async def scenario(d):
        await _answered(d)
        asked = await d.command("forget_me", "alice")
        refused = await d.click(asked, _confirm(asked), "bob")
        assert refused.private
        assert "offered to someone else; nothing was deleted" in refused.text
        assert d.answers_kept("alice") == d.answers_kept("bob") == 1

    chat.run(scenario)
