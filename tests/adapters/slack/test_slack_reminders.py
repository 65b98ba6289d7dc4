"""Review reminders on Slack: a direct message (never a channel), and the home tab's reviews."""

from __future__ import annotations

import datetime as dt

from bot.core.kernel.models import Review
from tests.fake_slack import GENERAL, user

EVENING = dt.datetime(2026, 3, 2, 18, 0, 30, tzinfo=dt.UTC)  # 18:00 in the channel's zone (UTC)


def _due_review(h, who="alice", item="t.text-detach"):
    member = h.quiz.rounds.member("slack", user(who)["id"], who)
    at = EVENING - dt.timedelta(days=1)
    h.quiz.rounds.store.save_review(Review(
        user_id=member.id, item_id=item, state=1, step=0, stability=None, difficulty=None,
        due_at=at, reviewed_at=at, last_correct=False))


def test_a_reminder_is_a_direct_message_once_a_day_never_a_channel_post(slack_run):
    async def scenario(h):
        await h.enable_channel()
        on = await h.reply(await h.send.command("/quiz-remind", "on 18"))
        assert "Reminders on: one private message a day at 18:00 (UTC)" in on.shown_text
        _due_review(h)
        posts_before = len(h.fake.posts(GENERAL))
        h.clock.set(EVENING)
        await h.scheduler.remind()
        await h.scheduler.remind()  # the same minute again: claimed already
        [dm] = h.fake.direct_messages("alice")
        assert dm.channel.startswith("D") and "1 review due · /quiz" in dm.shown_text
        assert dm.actions == ["tq:remind:reviews:start", "tq:remind:reviews:snooze",
                              "tq:remind:reviews:stop"]
        assert len(h.fake.posts(GENERAL)) == posts_before
        assert [c.args["users"] for c in h.fake.calls_of("conversations.open")] == ["U0ALICE"]
        stopped = await h.reply(await h.send.click(dm, "tq:remind:reviews:stop"))
        assert "Reminders off" in stopped.shown_text
        h.clock.set(EVENING + dt.timedelta(days=1))
        await h.scheduler.remind()
        assert len(h.fake.direct_messages("alice")) == 1

    slack_run(scenario)


def test_a_member_who_did_not_opt_in_gets_no_message(slack_run):
    async def scenario(h):
        await h.enable_channel()
        _due_review(h, "bob")
        h.clock.set(EVENING)
        await h.scheduler.remind()
        assert h.fake.calls_of("conversations.open") == []
        assert h.fake.direct_messages("bob") == []

    slack_run(scenario)


def test_the_home_tab_lists_the_reviews_due(slack_run):
    async def scenario(h):
        await h.enable_channel()
        _due_review(h, "bob")
        _due_review(h, "bob", "t.choice-view")
        h.clock.set(EVENING)
        opened = h.acked(await h.send.open_home("bob"))
        home = await h.fake.wait_for(lambda s: s.kind == "home" and s.seq >= opened.mark)
        assert "*2 reviews due*" in home.shown_text
        assert "Topics: autograd (1), tensors (1)" in home.shown_text
        assert "`/quiz-remind on|off [HOUR]`" in home.shown_text

    slack_run(scenario)
