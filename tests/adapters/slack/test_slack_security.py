"""What reaches the app without Slack's signature, what a broken request leaves behind,
and what Slack's retries of a delivered request do."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from urllib.parse import urlencode

import aiohttp

from tests.fake_slack import GENERAL


def _command_body(h, text="detach"):
    delivery = h.send._delivery("command", "alice", GENERAL)
    payload = h.send.command_payload("/explain", text, "alice", GENERAL, "T0TORCHQZ", delivery)
    return urlencode(payload)


FORM = "application/x-www-form-urlencoded"


def test_a_forged_signature_gets_401_and_does_nothing(slack_run):
    async def scenario(h):
        body = _command_body(h)
        forged = {"X-Slack-Request-Timestamp": str(int(time.time())),
                  "X-Slack-Signature": "v0=" + "0" * 64}
        status, _, _ = await h.send.post(body, FORM, headers=forged, signed=False)
        assert status == 401
        tampered = h.send.sign(body)
        status, _, _ = await h.send.post(body.replace("detach", "no_grad"), FORM,
                                         headers=tampered, signed=False)
        assert status == 401
        assert h.fake.calls == [] and h.fake.shown == []

    slack_run(scenario)


def test_a_missing_signature_gets_401(slack_run):
    async def scenario(h):
        status, _, _ = await h.send.post(_command_body(h), FORM, signed=False)
        assert status == 401 and h.fake.shown == []

    slack_run(scenario)


def test_a_timestamp_older_than_five_minutes_gets_401_even_when_signed(slack_run):
    async def scenario(h):
        stale = int(time.time()) - 5 * 60 - 30
        status, _, _ = await h.send.post(_command_body(h), FORM, timestamp=stale)
        assert status == 401 and h.fake.shown == []
        fresh = await h.send.command("/explain", "detach")
        assert "detach()" in (await h.reply(fresh)).shown_text

    slack_run(scenario)


def test_a_200_kb_command_text_is_refused_politely_and_the_app_keeps_serving(slack_run):
    async def scenario(h):
        huge = await h.send.command("/explain", "x" * 200_000)
        refused = await h.reply(huge)
        assert "200000 characters" in refused.shown_text and "at most 500" in refused.shown_text
        assert h.fake.calls_of("users.info") == []  # nothing was looked up for it
        after = await h.reply(await h.send.command("/explain", "detach"))
        assert "detach()" in after.shown_text

    slack_run(scenario)


def test_an_unexpected_error_is_logged_with_ids_and_apologised_for(slack_run, monkeypatch,
                                                                    caplog):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = (await h.post_today(channel)).raw
        rid = int(post.actions[0].split(":")[2])
        real = h.quiz.rounds.answer
        calls = []

        def flaky(*args, **kwargs):
            calls.append(args)
            if len(calls) == 1:
                raise RuntimeError("a bug")
            return real(*args, **kwargs)

        monkeypatch.setattr(h.quiz.rounds, "answer", flaky)
        with caplog.at_level(logging.ERROR, logger="bot.adapters.slack.handlers"):
            broken = await h.reply(await h.send.click(post, f"tq:answer:{rid}:B"))
        assert "Sorry, something went wrong on our side" in broken.shown_text
        failure = next(r for r in caplog.records if "failed" in r.getMessage())
        assert (f"team=T0TORCHQZ channel={GENERAL} user=U0ALICE round={rid}"
                in failure.getMessage())
        fine = await h.reply(await h.send.click(post, f"tq:answer:{rid}:B"))
        assert "Correct" in fine.shown_text

    slack_run(scenario)


def test_healthz_answers_on_the_http_server(slack_run):
    async def scenario(h):
        async with aiohttp.ClientSession() as session, session.get(
                f"{h.base_url}/healthz") as answer:
            assert answer.status == 200 and (await answer.json()) == {"ok": True}

    slack_run(scenario)


def test_slacks_url_verification_challenge_is_answered(slack_run):
    async def scenario(h):
        challenge = "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
        body = json.dumps({"token": "t", "challenge": challenge, "type": "url_verification"})
        status, answer, _ = await h.send.post(body, "application/json")
        assert status == 200 and answer == {"challenge": challenge}

    slack_run(scenario)


def test_a_slack_retry_of_a_share_click_posts_the_card_once(slack_run):
    async def scenario(h):
        card = await h.reply(await h.send.command("/explain", "detach"))
        click = await h.send.click(card, "tq:share:detach:card")
        await h.fake.wait_for(lambda s: s.kind == "post" and s.seq >= click.mark)
        h.acked(await h.send.resend(click, retry=1, reason="http_timeout"))
        h.acked(await h.send.resend(click, retry=2, reason="http_error"))
        await asyncio.sleep(1.0)
        assert len(h.fake.posts(GENERAL)) == 1
        assert h.bot.retries.dropped == 2

    slack_run(scenario)


def test_a_slack_retry_of_an_answer_records_nothing_twice(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.text-detach")
        post = await h.post_today(channel)
        view_id = await h.modal(await h.send.click(post.raw, post.form_button))
        first = await h.send.answer(view_id, "detach_")  # wrong: 2 tries left
        assert "2 tries left" in (await h.reply(first)).shown_text
        for reason in ("http_timeout", "http_error"):
            again = h.acked(await h.send.resend(first, reason=reason))
            assert again.body in ("", None)
        await asyncio.sleep(1.0)
        assert h.answers_recorded("alice", post.round_id) == 1
        assert len(h.fake.private_to("alice")) == 1  # one reply, to the first delivery

    slack_run(scenario)
