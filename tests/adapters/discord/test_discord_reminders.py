"""Review reminders on Discord: a DM once a day, never a channel post; closed DMs told once."""

from __future__ import annotations

import datetime as dt

from bot.core.kernel.models import Review
from tests.fake_discord import GENERAL, USERS, custom_ids, message_text

EVENING = dt.datetime(2026, 3, 2, 18, 0, 30, tzinfo=dt.UTC)  # 18:00 in the channel's zone (UTC)


def _due_review(h, who="alice"):
    member = h.quiz.rounds.member("discord", USERS[who]["id"], who)
    at = EVENING - dt.timedelta(days=1)
    h.quiz.rounds.store.save_review(Review(
        user_id=member.id, item_id="t.text-detach", state=1, step=0, stability=None,
        difficulty=None, due_at=at, reviewed_at=at, last_correct=False))


async def _opt_in(h, hour=18):
    reply = await h.done(await h.fake.slash("quiz-remind", "alice", state="on", hour=hour))
    assert reply.ephemeral and "Reminders on: one private message a day at 18:00 (UTC)" in (
        reply.text())


def test_a_reminder_is_a_direct_message_once_a_day_never_a_channel_post(discord_run):
    async def scenario(h):
        await h.enable_channel()
        await _opt_in(h)
        _due_review(h)
        posts_before = len(h.fake.channel_posts(GENERAL))
        h.clock.set(EVENING)
        await h.scheduler.remind()
        await h.scheduler.remind()  # the same minute again: claimed already
        [dm] = h.fake.direct_messages("alice")
        assert "1 review due · /quiz" in message_text(dm)
        assert custom_ids(dm) == ["tq:remind:reviews:start", "tq:remind:reviews:snooze",
                                  "tq:remind:reviews:stop"]
        assert len(h.fake.channel_posts(GENERAL)) == posts_before
        assert h.fake.direct_messages("bob") == []

    discord_run(scenario)


def test_snooze_in_the_dm_skips_tomorrow(discord_run):
    async def scenario(h):
        await h.enable_channel()
        await _opt_in(h)
        _due_review(h)
        h.clock.set(EVENING)
        await h.scheduler.remind()
        [dm] = h.fake.direct_messages("alice")
        clicked = await h.done(await h.fake.click(int(dm["id"]), "tq:remind:reviews:snooze"))
        assert "Snoozed: no reminder on 2026-03-03" in clicked.text()
        h.clock.set(EVENING + dt.timedelta(days=1))
        await h.scheduler.remind()
        assert len(h.fake.direct_messages("alice")) == 1
        h.clock.set(EVENING + dt.timedelta(days=2))
        await h.scheduler.remind()
        assert len(h.fake.direct_messages("alice")) == 2

    discord_run(scenario)


def test_closed_dms_turn_the_reminder_off_and_the_member_is_told_once(discord_run):
    async def scenario(h):
        await h.enable_channel()
        await _opt_in(h)
        _due_review(h)
        h.fake.closed_dms.add(USERS["alice"]["id"])
        h.clock.set(EVENING)
        await h.scheduler.remind()
        dm = h.fake.dm_channels[USERS["alice"]["id"]]
        tries = [c for c in h.fake.calls if c.path == f"/channels/{dm}/messages"]
        assert [c.status for c in tries] == [403]
        h.clock.set(EVENING + dt.timedelta(days=1))
        await h.scheduler.remind()  # turned off: not tried again
        assert len([c for c in h.fake.calls if c.path == f"/channels/{dm}/messages"]) == 1
        told = await h.done(await h.fake.slash("quiz", "alice"))
        assert told.ephemeral and "could not send you a direct message" in told.text()
        again = await h.done(await h.fake.slash("quiz", "alice"))
        assert "direct message" not in again.text()

    discord_run(scenario)
