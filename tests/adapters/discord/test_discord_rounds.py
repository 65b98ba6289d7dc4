"""A daily round on Discord end to end: the post, buttons and modals, tallies, the reveal."""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import re

from safetext.inert import ONE_LINE_CHARS
from tests.fake_discord import GENERAL, custom_ids, message_text
from tests.hostile import invisible_or_control, pings


def _round_id(post):
    return int(next(c for c in custom_ids(post) if c.startswith("tq:")).split(":")[2])


async def _settle(h, seconds=1.2):
    """Let coalesced tally edits land (the harness's tally delay is 0.4 s)."""
    await asyncio.sleep(seconds)


def test_a_choice_round_from_post_to_thread_reveal(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        ids = custom_ids(post)
        # Options come in the round's own order; each button carries its option's stored key.
        assert sorted(i.rsplit(":", 1)[1] for i in ids) == ["A", "B", "C"]
        assert "Which call may copy?" in message_text(post)
        shown = re.search(r"([A-C])\. reshape", message_text(post)).group(1)
        assert post["allowed_mentions"] == {"parse": []}
        rid = _round_id(post)
        right, wrong = f"tq:answer:{rid}:B", f"tq:answer:{rid}:A"
        clicks = await asyncio.gather(
            h.fake.click(int(post["id"]), right, "alice"),
            h.fake.click(int(post["id"]), wrong, "bob"),
            h.fake.click(int(post["id"]), right, "admin"))
        for click in clicks:
            await h.done(click)
            assert click.callback_type == 5 and click.ephemeral  # deferred, privately
        assert "Correct" in clicks[0].text() and "Correct" in clicks[2].text()
        assert "Not this time" in clicks[1].text() or "Why not A" in clicks[1].text()
        await _settle(h)
        edits = h.fake.edits_of(int(post["id"]))
        assert 1 <= len(edits) <= 2, f"{len(edits)} edits for 3 answers"
        assert "2 solved · 3 answered" in message_text(h.fake.messages[int(post["id"])])
        # The next day the round closes: buttons go, the answer goes into a thread.
        h.clock.advance(hours=24)
        await h.scheduler.close_due()
        thread = h.fake.thread_on(int(post["id"]))
        assert thread is not None
        reveal = h.fake.channel_posts(thread)
        assert len(reveal) == 1 and f"Answer: {shown}. reshape" in message_text(reveal[0])
        assert custom_ids(h.fake.messages[int(post["id"])]) == []

    discord_run(scenario)


def test_a_text_round_is_answered_in_a_modal(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.text-detach")
        post = await h.post_today(channel)
        rid = _round_id(post)
        opened = await h.done(await h.fake.click(int(post["id"]), f"tq:form:{rid}:open"))
        assert opened.callback_type == 9  # the modal is the first response
        modal = opened.callbacks[0]["data"]
        assert modal["custom_id"] == f"tq:submit:{rid}:text"
        answered = await h.done(await h.fake.submit(f"tq:submit:{rid}:text", "x.detach()"))
        assert answered.ephemeral and "Correct" in answered.text()

    discord_run(scenario)


def test_a_code_round_is_graded_by_the_real_sandbox(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.code-double")
        post = await h.post_today(channel)
        rid = _round_id(post)
        opened = await h.done(await h.fake.click(int(post["id"]), f"tq:form:{rid}:open"))
        box = opened.callbacks[0]["data"]["components"][0]["components"][0]
        assert box["style"] == 2 and "def double" in box["value"]  # tall, with the starter
        wrong = await h.done(await h.fake.submit(f"tq:submit:{rid}:code",
                                                 "def double(x):\n    return x + 2\n", "bob"))
        assert "failed: 0/1 hidden tests passed" in wrong.text()
        assert "values differ" in wrong.text()
        right = await h.done(await h.fake.submit(f"tq:submit:{rid}:code",
                                                 "def double(x):\n    return 2 * x\n"))
        assert "All 1 hidden tests passed" in right.text()

    discord_run(scenario)


def test_what_a_submission_prints_reaches_discord_inert(discord_run):
    hostile = ("def double(x):\n"
               "    print('@everyone <@&123456789012345678> **Correct!** \\x1b[2K\\u202e')\n"
               "    raise ValueError('@here <!channel> ```fence``` \\n fake line')\n")

    async def scenario(h):
        channel = await h.enable_channel("t.code-double")
        rid = _round_id(await h.post_today(channel))
        reply = await h.done(await h.fake.submit(f"tq:submit:{rid}:code", hostile))
        message = reply.replies()[0]
        shown = message_text(message)
        assert "ValueError" in shown
        assert pings(shown) == [] and invisible_or_control(shown) == []
        assert message["allowed_mentions"] == {"parse": []}
        embed = message["embeds"][0]
        detail = next(line for line in embed["description"].splitlines() if "ValueError" in line)
        assert len(detail) < ONE_LINE_CHARS * 3  # one line, capped (escapes add characters)
        output = next(f["value"] for f in embed["fields"] if f["name"] == "Your output")
        assert output.count("```") == 2  # the submission could not close the block

    discord_run(scenario)


def test_a_burst_of_fifty_answers_gets_every_reply_in_time_and_few_edits(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        rid = _round_id(post)
        clicks = await asyncio.gather(*(
            h.fake.click(int(post["id"]), f"tq:answer:{rid}:{'B' if i % 2 else 'C'}",
                         f"member{i}") for i in range(50)))
        await asyncio.gather(*(h.done(c) for c in clicks))
        await _settle(h, 2.0)
        edits = h.fake.edits_of(int(post["id"]))
        assert 1 <= len(edits) <= 6, f"{len(edits)} edits for 50 answers"
        assert "25 solved · 50 answered" in message_text(h.fake.messages[int(post["id"])])

    discord_run(scenario)


def test_buttons_keep_working_after_a_restart(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        await h.restart_bot()
        click = await h.done(await h.fake.click(int(post["id"]),
                                                f"tq:answer:{_round_id(post)}:B"))
        assert "Correct" in click.text()
        assert len(h.fake.channel_posts(GENERAL)) == 1  # the restart did not post again

    discord_run(scenario)


def test_a_closed_or_unknown_round_gets_a_clear_private_line(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        rid = _round_id(post)
        buttons = copy.deepcopy(post["components"])
        h.clock.advance(hours=24)
        await h.scheduler.close_due()
        # A member clicks a button from a stale client that still shows the old post.
        h.fake.messages[int(post["id"])]["components"] = buttons
        late = await h.done(await h.fake.click(int(post["id"]), f"tq:answer:{rid}:B"))
        assert late.ephemeral and "This round is closed" in late.text()
        h.fake.messages[int(post["id"])]["components"] = [{"type": 1, "components": [
            {"type": 2, "style": 2, "label": "A", "custom_id": "tq:answer:99999:A"}]}]
        unknown = await h.done(await h.fake.click(int(post["id"]), "tq:answer:99999:A"))
        assert "no open question" in unknown.text()

    discord_run(scenario)


def test_a_3000_character_answer_is_graded_and_3001_is_refused_clearly(discord_run):
    # One length rule on every platform, the core's: Slack's inputs take at most 3,000.
    async def scenario(h):
        channel = await h.enable_channel("t.code-double")
        rid = _round_id(await h.post_today(channel))
        body = "def double(x):\n    return x * 2\n"
        code = body + "#" * (3000 - len(body) - 1) + "\n"
        assert len(code) == 3000
        graded = await h.done(await h.fake.submit(f"tq:submit:{rid}:code", code))
        assert "All 1 hidden tests passed" in graded.text()
        refused = await h.done(await h.fake.submit(f"tq:submit:{rid}:code", code + "#", "bob"))
        assert "3001 characters" in refused.text() and "3000" in refused.text()
        assert h.quiz.rounds.store.answers_for(rid, 1) is not None

    discord_run(scenario)


def test_ten_members_within_a_second_are_all_answered_in_time(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.code-double")
        rid = _round_id(await h.post_today(channel))
        code = "def double(x):\n    return x * 2\n"
        submits = await asyncio.gather(*(h.fake.submit(f"tq:submit:{rid}:code", code,
                                                        f"member{i}") for i in range(10)))
        for record in submits:
            await h.done(record, timeout=60)
            assert "All 1 hidden tests passed" in record.text()

    discord_run(scenario)


def test_a_rate_limited_post_is_waited_out_and_posted_once(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        h.fake.rate_limit("POST", r"/channels/\d+/messages", retry_after=0.5)
        await h.scheduler.post(channel.id)
        attempts = [c for c in h.fake.calls if c.method == "POST"
                    and c.path == f"/channels/{GENERAL}/messages"]
        assert [c.status for c in attempts] == [429, 200]
        assert len(h.fake.channel_posts(GENERAL)) == 1

    discord_run(scenario)


def test_a_crash_between_claim_and_post_is_posted_once_on_the_next_start(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        claimed = await h.runtime.call(h.quiz.rounds.post_round, channel.id)  # then "crash"
        assert claimed is not None and h.fake.channel_posts(GENERAL) == []
        h.clock.advance(minutes=5)  # past the claim's lease
        await h.restart_bot()
        await h.restart_bot()  # a second start finds it posted and does nothing
        posts = h.fake.channel_posts(GENERAL)
        assert len(posts) == 1 and _round_id(posts[0]) == claimed.round.id
        assert h.quiz.rounds.store.get_round(claimed.round.id).message_ref.endswith(posts[0]["id"])

    discord_run(scenario)


def test_a_post_discord_accepted_before_a_crash_is_found_not_posted_again(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        claimed = await h.runtime.call(h.quiz.rounds.post_round, channel.id)
        ref = await h.bot.publisher.publish_round(claimed)  # Discord took it; then "crash"
        h.fake.nonces.clear()  # long after: Discord's nonce de-duplication has expired
        h.clock.advance(minutes=5)  # past the claim's lease
        await h.restart_bot()
        await h.restart_bot()
        assert len(h.fake.channel_posts(GENERAL)) == 1
        assert h.quiz.rounds.store.get_round(claimed.round.id).message_ref == ref

    discord_run(scenario)


def test_the_weekly_post_has_a_table_and_a_png_chart(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        for who in ("alice", "bob"):
            await h.done(await h.fake.click(int(post["id"]), f"tq:answer:{_round_id(post)}:B",
                                            who))
        await h.scheduler.post_board(channel.id)
        board = h.fake.messages[h.fake.posted[-1]]
        upload = [c for c in h.fake.calls if c.files][-1]
        assert upload.files == [f"leaderboard-{dt.date(2026, 3, 2).isoformat()}.png"]
        text = message_text(board)
        assert "Weekly leaderboard" in text and "王小明" in text and "Alice" in text
        assert board["embeds"][0]["image"]["url"].startswith("attachment://leaderboard-")

    discord_run(scenario)


def test_a_code_answer_sent_during_an_executor_outage_is_graded_later_and_sent_by_dm(
        discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.code-double")
        rid = _round_id(await h.post_today(channel))
        h.outage(True)
        waiting = await h.done(await h.fake.submit(f"tq:submit:{rid}:code",
                                                   "def double(x):\n    return x * 2\n"))
        assert "delayed" in waiting.text()
        h.outage(False)
        await h.scheduler.deliver_pending()
        dms = h.fake.direct_messages("alice")
        assert len(dms) == 1 and "All 1 hidden tests passed" in message_text(dms[0])
        assert dms[0]["allowed_mentions"] == {"parse": []}
        await h.scheduler.deliver_pending()  # graded once, delivered once
        assert len(h.fake.direct_messages("alice")) == 1

    discord_run(scenario)
