"""Slack's own side of posting a round: no blind retry, and a workspace without the history
scope (installed before the app asked for it).

The round's post, its crash recovery and its reveal on both platforms are in
tests/adapters/chat/test_rounds.py.
"""

from __future__ import annotations

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
