"""Slack's own side of posting a round: no blind retry, and a workspace without the history
scope (installed before the app asked for it).

The round's post, its crash recovery and its reveal on both platforms are in
tests/adapters/chat/test_rounds.py.
"""

from __future__ import annotations

import asyncio
import itertools
import logging

from bot.adapters.slack.replies import RATE_LIMIT_RETRIES
from bot.core.kernel.messages import Message
from tests.fake_slack import BOT_TOKEN, GENERAL


def test_a_post_slack_took_without_answering_in_time_is_kept_not_posted_twice(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        h.fake.hold("chat.postMessage", accepted=True)  # Slack posts it, the answer never comes
        h.bot.publisher._round_client.timeout = 1  # a client timeout, shortened for the test
        await h.post_now(channel)
        [post] = h.fake.posts(GENERAL)
        rnd = h.quiz.rounds.store.latest_round(channel.id)
        assert rnd.message_ref == f"{GENERAL}:{post.ts}"
        assert len(h.fake.calls_of("chat.postMessage")) == 1  # no blind retry either

    slack_run(scenario)


def test_without_the_history_scope_a_taken_over_post_goes_out_unchecked(slack_run):
    async def scenario(h):
        h.fake.tokens[BOT_TOKEN]["scopes"].discard("channels:history")  # installed before it
        channel = await h.enable_channel("t.choice-view")
        round_id = await h.claim_without_posting(channel)  # then "crash"
        h.clock.advance(minutes=5)
        await h.restart()
        assert len(h.fake.posts(GENERAL)) == 1
        assert [c.answer.get("error") for c in h.fake.calls_of("conversations.history")] == [
            "missing_scope"]
        assert h.message_ref(round_id) is not None

    slack_run(scenario)


def test_a_post_slack_keeps_refusing_is_one_warning_and_goes_out_after_the_lease(slack_run,
                                                                              caplog):
    # Found by the soak run (tests/soak): a burst of 429s longer than the client's retries
    # logged the refusal as an ERROR with a traceback. It is weather: one warning line, the
    # claim stays, and the round goes out once after its lease.
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        h.fake.rate_limit("chat.postMessage", retry_after=0, times=RATE_LIMIT_RETRIES + 1)
        await h.post_now(channel)
        assert h.fake.posts(GENERAL) == []
        rnd = h.quiz.rounds.store.latest_round(channel.id)
        assert rnd.message_ref is None
        h.clock.advance(minutes=5)  # past the post lease
        await h.restart()
        [post] = h.fake.posts(GENERAL)
        assert h.message_ref(rnd.id) == f"{GENERAL}:{post.ts}"

    caplog.set_level(logging.INFO)
    slack_run(scenario)
    refused = [r for r in caplog.records if "publishing round refused" in r.getMessage()]
    assert len(refused) == 1 and refused[0].levelno == logging.WARNING
    assert "ratelimited" in refused[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def test_live_posts_arrive_a_second_apart_when_one_is_slow_on_the_way(slack_run):
    # Seen in CI on a busy machine: posts sent a second apart arrived 0.94 s apart, because
    # the one before spent longer on the way. Slack counts arrivals.
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        h.fake.slow_transit("chat.postMessage", 0.3)
        before = len(h.fake.calls_of("chat.postMessage"))
        await asyncio.gather(*(h.bot.publisher.publish_live(channel, Message(body=f"post {i}"))
                               for i in range(3)))
        arrivals = [c.at for c in h.fake.calls_of("chat.postMessage")[before:]]
        assert len(arrivals) == 3
        gaps = [b - a for a, b in itertools.pairwise(arrivals)]
        assert all(gap >= 1.0 for gap in gaps), gaps

    slack_run(scenario)
