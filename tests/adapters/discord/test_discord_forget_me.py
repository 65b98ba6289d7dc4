"""/quiz-forget-me on Discord end to end: what goes, the confirmation, the tally redrawn."""

from __future__ import annotations

import asyncio

from tests.fake_discord import USERS, custom_ids, message_text


def _confirm(reply):
    return next(c for c in custom_ids(reply) if c.startswith("tq:forget:") and c.endswith(":yes"))


async def _answered(h):
    """Alice and Bob answer today's choice round; return the post's id."""
    channel = await h.enable_channel("t.choice-view")
    post = await h.post_today(channel)
    rid = int(next(c for c in custom_ids(post) if c.startswith("tq:")).split(":")[2])
    clicks = await asyncio.gather(h.fake.click(int(post["id"]), f"tq:answer:{rid}:B", "alice"),
                                  h.fake.click(int(post["id"]), f"tq:answer:{rid}:B", "bob"))
    for click in clicks:
        await h.done(click)
    await asyncio.sleep(1.2)  # let the coalesced tally edit land (the harness delays 0.4 s)
    assert "2 solved · 2 answered" in message_text(h.fake.messages[int(post["id"])])
    return int(post["id"])


def test_forget_me_asks_then_deletes_and_redraws_the_tally(discord_run):
    async def scenario(h):
        post_id = await _answered(h)
        store = h.quiz.rounds.store
        alice = USERS["alice"]["id"]
        asked = await h.done(await h.fake.slash("quiz-forget-me"))
        assert asked.ephemeral
        assert "1 answer, your totals in 1 channel" in asked.text()
        assert store.member_data("discord", alice).counts()["answers"] == 1  # nothing gone yet
        reply = asked.replies()[0]
        done = await h.done(await h.fake.click_ephemeral(reply, _confirm(reply), "alice"))
        assert done.ephemeral
        assert "Deleted 1 answer, your totals in 1 channel" in done.text()
        assert store.member_data("discord", alice) is None
        await asyncio.sleep(1.2)
        assert "1 solved · 1 answered" in message_text(h.fake.messages[post_id])
        again = await h.done(await h.fake.click_ephemeral(reply, _confirm(reply), "alice"))
        assert "Nothing is stored about you" in again.text()

    discord_run(scenario)


def test_another_members_click_on_the_confirmation_deletes_nobody(discord_run):
    async def scenario(h):
        await _answered(h)
        store = h.quiz.rounds.store
        reply = (await h.done(await h.fake.slash("quiz-forget-me"))).replies()[0]
        refused = await h.done(await h.fake.click_ephemeral(reply, _confirm(reply), "bob"))
        assert "offered to someone else; nothing was deleted" in refused.text()
        for who in ("alice", "bob"):
            assert store.member_data("discord", USERS[who]["id"]).counts()["answers"] == 1

    discord_run(scenario)
