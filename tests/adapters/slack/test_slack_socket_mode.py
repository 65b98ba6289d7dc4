"""The same app in Socket Mode: envelopes over the fake's websocket, acknowledged at once."""

from __future__ import annotations

import asyncio

from tests.fake_slack import GENERAL


def test_a_command_over_socket_mode_is_acknowledged_and_answered(slack_run):
    async def scenario(h):
        assert h.fake.hellos == 1
        asked = await h.send.command("/explain", "view vs reshape")
        reply = await h.reply(asked)
        assert asked.body is None  # an empty acknowledgement: the card comes privately
        assert reply.kind == "response" and "view never copies" in reply.shown_text

    slack_run(scenario, transport="socket")


def test_a_button_and_a_modal_over_socket_mode_answer_the_daily_round(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")  # the settings modal, by socket too
        post = await h.post_today(channel)
        reply = await h.click(post, post.choice("B"), "bob")
        assert reply.raw.kind == "ephemeral" and "Correct" in reply.text
        await h.settle()
        assert "1 solved · 1 answered" in h.current(post).text

    slack_run(scenario, transport="socket")


def test_a_redelivered_envelope_is_acknowledged_and_not_answered_twice(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        first = await h.send.click(post.raw, post.choice("A"), "bob")
        await h.reply(first)
        again = h.acked(await h.send.resend(first, reason="timeout"))
        assert again.status == 200
        await asyncio.sleep(1.0)
        assert len(h.fake.private_to("bob")) == 1
        assert h.answers_recorded("bob", post.round_id) == 1
        assert h.bot.retries.dropped == 1
        assert h.fake.posts(GENERAL)[-1].ts == post.raw.ts

    slack_run(scenario, transport="socket")
