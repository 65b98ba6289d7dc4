"""/quiz-forget-me on Slack end to end: what goes, the confirmation, the tally redrawn."""

from __future__ import annotations

import asyncio

from tests.fake_slack import USERS


def _confirm(reply):
    return next(a for a in reply.actions if a.startswith("tq:forget:") and a.endswith(":yes"))


async def _answered(h):
    """Alice and Bob answer today's choice round; return the post."""
    channel = await h.enable_channel("t.choice-view")
    post = await h.post_today(channel)
    rid = int(next(a for a in post.actions if a.startswith("tq:")).split(":")[2])
    clicks = await asyncio.gather(h.send.click(post, f"tq:answer:{rid}:B", "alice"),
                                  h.send.click(post, f"tq:answer:{rid}:B", "bob"))
    for click in clicks:
        await h.reply(click)
    await h.settle()
    assert "2 solved · 2 answered" in h.fake.current(post).shown_text
    return post


def test_forget_me_asks_then_deletes_and_redraws_the_tally(slack_run):
    async def scenario(h):
        post = await _answered(h)
        store = h.quiz.rounds.store
        alice = USERS["alice"]["id"]
        asked = await h.reply(await h.send.command("/quiz-forget-me", who="alice"))
        assert asked.kind == "response" and asked.user == alice
        assert "1 answer, your totals in 1 channel" in asked.shown_text
        assert store.member_data("slack", alice).counts()["answers"] == 1  # nothing gone yet
        done = await h.reply(await h.send.click(asked, _confirm(asked), "alice"))
        assert done.user == alice
        assert "Deleted 1 answer, your totals in 1 channel" in done.shown_text
        assert store.member_data("slack", alice) is None
        await h.settle()
        assert "1 solved · 1 answered" in h.fake.current(post).shown_text
        again = await h.reply(await h.send.click(asked, _confirm(asked), "alice"))
        assert "Nothing is stored about you" in again.shown_text

    slack_run(scenario)


def test_another_members_click_on_the_confirmation_deletes_nobody(slack_run):
    async def scenario(h):
        await _answered(h)
        store = h.quiz.rounds.store
        asked = await h.reply(await h.send.command("/quiz-forget-me", who="alice"))
        refused = await h.reply(await h.send.click(asked, _confirm(asked), "bob"))
        assert refused.user == USERS["bob"]["id"]
        assert "offered to someone else; nothing was deleted" in refused.shown_text
        for who in ("alice", "bob"):
            assert store.member_data("slack", USERS[who]["id"]).counts()["answers"] == 1

    slack_run(scenario)
