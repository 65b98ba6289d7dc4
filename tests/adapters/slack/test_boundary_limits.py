"""Per-member rate limits and backpressure, over real signed requests to the Slack app."""

from __future__ import annotations

import asyncio
import threading

from tests.fake_slack import GENERAL

WRONG = "def double(x):\n    return x + 2\n"


def test_code_answers_faster_than_the_limit_get_a_clear_reply(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.code-double")
        post = (await h.post_today(channel)).raw
        rid = int(post.actions[0].split(":")[2])
        view_id = await h.modal(await h.send.click(post, f"tq:form:{rid}:open"))
        first = await h.reply(await h.send.answer(view_id, WRONG), timeout=60)
        assert "faster than they can be graded" not in first.shown_text
        second = await h.reply(await h.send.answer(view_id, WRONG))
        assert "faster than they can be graded; try again in" in second.shown_text
        # Another member has a bucket of their own.
        bobs = await h.modal(await h.send.click(post, f"tq:form:{rid}:open", "bob"))
        other = await h.reply(await h.send.answer(bobs, WRONG, "bob"), timeout=60)
        assert "faster than" not in other.shown_text

    slack_run(scenario, rate_code_per_minute=1)


def test_commands_faster_than_the_limit_get_a_clear_reply(slack_run):
    async def scenario(h):
        for _ in range(2):
            shown = await h.reply(await h.send.command("/explain", "detach"))
            assert "detach()" in shown.shown_text
        limited = await h.reply(await h.send.command("/explain", "detach"))
        assert "a lot of commands at once; try again in" in limited.shown_text
        bob = await h.reply(await h.send.command("/explain", "detach", who="bob"))
        assert "detach()" in bob.shown_text

    slack_run(scenario, rate_commands_per_10s=2)


def test_a_full_process_answers_busy_instead_of_queueing(slack_run, monkeypatch):
    async def scenario(h):
        release = threading.Event()
        entered = threading.Event()
        real = h.runtime.desk.command

        def slow(*args, **kwargs):
            if not entered.is_set():
                entered.set()
                release.wait(30)
            return real(*args, **kwargs)

        monkeypatch.setattr(h.runtime.desk, "command", slow)
        first = await h.send.command("/explain", "detach")
        h.acked(first)
        await asyncio.to_thread(entered.wait, 20)
        busy = await h.reply(await h.send.command("/explain", "detach", who="bob",
                                                  channel=GENERAL))
        assert "busy right now" in busy.shown_text
        release.set()
        assert "detach()" in (await h.reply(first)).shown_text
        after = await h.reply(await h.send.command("/explain", "detach", who="bob"))
        assert "detach()" in after.shown_text

    slack_run(scenario, max_in_flight=1)
