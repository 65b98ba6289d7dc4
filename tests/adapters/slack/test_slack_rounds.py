"""A daily round on Slack end to end: the post, buttons and modals, tallies, the thread reveal."""

from __future__ import annotations

import asyncio
import io
import re

from PIL import Image

from safetext.inert import ONE_LINE_CHARS
from tests.fake_slack import BOT_TOKEN, GENERAL, USERS
from tests.hostile import invisible_or_control, pings


def _round_id(post):
    return int(next(a for a in post.actions if a.startswith("tq:")).split(":")[2])


def test_a_choice_round_from_post_to_thread_reveal(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        # Options come in the round's own order; each button carries its option's stored key.
        assert sorted(a.rsplit(":", 1)[1] for a in post.actions) == ["A", "B", "C"]
        assert "Which call may copy?" in post.shown_text
        shown = re.search(r"([A-C])\. reshape", post.shown_text).group(1)
        assert post.extra["parse"] == "none"
        rid = _round_id(post)
        right, wrong = f"tq:answer:{rid}:B", f"tq:answer:{rid}:A"
        clicks = await asyncio.gather(h.send.click(post, right, "alice"),
                                      h.send.click(post, wrong, "bob"),
                                      h.send.click(post, right, "admin"))
        replies = [await h.reply(click) for click in clicks]
        assert all(r.kind == "ephemeral" and r.channel == GENERAL for r in replies)
        assert [r.user for r in replies] == ["U0ALICE", "U0BOB", "U0ADMIN"]
        assert "Correct" in replies[0].shown_text and "Correct" in replies[2].shown_text
        assert "Not this time" in replies[1].shown_text
        await h.settle()
        edits = h.fake.edits_of(post)
        assert 1 <= len(edits) <= 2, f"{len(edits)} edits for 3 answers"
        assert "2 solved · 3 answered" in h.fake.current(post).shown_text
        # The next day the round closes: the buttons go, the answer goes into the thread.
        h.clock.advance(hours=24)
        await h.scheduler.close_due()
        thread = h.fake.posts(GENERAL, thread_ts=post.ts)
        assert len(thread) == 1 and f"Answer: {shown}. reshape" in thread[0].shown_text
        assert h.fake.current(post).actions == []

    slack_run(scenario)


def test_a_text_round_is_answered_in_a_modal(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.text-detach")
        post = await h.post_today(channel)
        rid = _round_id(post)
        assert post.actions == [f"tq:form:{rid}:open"]
        view_id = await h.modal(await h.send.click(post, f"tq:form:{rid}:open"))
        view = h.fake.views[view_id]
        assert view["callback_id"] == f"tq:submit:{rid}:text"
        assert view["blocks"][0]["element"]["multiline"] is False
        reply = await h.reply(await h.send.answer(view_id, "x.detach()"))
        assert reply.kind == "ephemeral" and "Correct" in reply.shown_text

    slack_run(scenario)


def test_a_code_round_with_three_members_is_graded_by_the_real_sandbox(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.code-double")
        post = await h.post_today(channel)
        rid = _round_id(post)
        answers = {"alice": "def double(x):\n    return 2 * x\n",
                   "bob": "def double(x):\n    return x + 2\n",
                   "admin": "def double(x):\n    return x * 2\n"}
        views = {}
        for who in answers:
            views[who] = await h.modal(await h.send.click(post, f"tq:form:{rid}:open", who))
        box = h.fake.views[views["alice"]]["blocks"][0]["element"]
        assert box["multiline"] is True and "def double" in box["initial_value"]
        submitted = await asyncio.gather(*(h.send.answer(views[who], code, who)
                                           for who, code in answers.items()))
        replies = {who: (await h.reply(d, timeout=60)).shown_text
                   for who, d in zip(answers, submitted, strict=True)}
        assert "All 1 hidden tests passed" in replies["alice"]
        assert "failed: 0/1 hidden tests passed" in replies["bob"]
        assert "values differ" in replies["bob"]
        assert "All 1 hidden tests passed" in replies["admin"]
        await h.settle()
        assert 1 <= len(h.fake.edits_of(post)) <= 2
        assert "2 solved · 3 answered" in h.fake.current(post).shown_text
        h.clock.advance(hours=24)
        await h.scheduler.close_due()
        thread = h.fake.posts(GENERAL, thread_ts=post.ts)
        assert len(thread) == 1 and "A reference solution" in thread[0].shown_text
        assert "def double" in thread[0].shown_text

    slack_run(scenario)


def test_what_a_submission_prints_reaches_slack_inert(slack_run):
    hostile = ("def double(x):\n"
               "    print('<!channel> <@U0ALICE> *Correct!* ```fence``` \\x1b[2K\\u202e')\n"
               "    raise ValueError('<!here> @everyone ```fence``` \\n fake line')\n")

    async def scenario(h):
        channel = await h.enable_channel("t.code-double")
        post = await h.post_today(channel)
        rid = _round_id(post)
        view_id = await h.modal(await h.send.click(post, f"tq:form:{rid}:open"))
        reply = await h.reply(await h.send.answer(view_id, hostile))
        shown = reply.shown_text
        assert "ValueError" in shown
        assert pings(shown) == [] and invisible_or_control(shown) == []
        assert "<!" not in shown and "<@" not in shown
        detail = next(line for line in shown.splitlines() if "ValueError" in line)
        assert len(detail) < ONE_LINE_CHARS * 3  # one line, capped (escapes add characters)
        output = next(b["text"]["text"] for b in reply.blocks
                      if b.get("text", {}).get("text", "").startswith("*Your output*"))
        assert output.count("```") == 2  # the submission could not close the block

    slack_run(scenario)


def test_a_3000_character_code_answer_is_graded_and_a_longer_one_refused(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.code-double")
        post = await h.post_today(channel)
        rid = _round_id(post)
        body = "def double(x):\n    return x * 2\n"
        code = body + "#" * (3000 - len(body) - 1) + "\n"
        assert len(code) == 3000
        view_id = await h.modal(await h.send.click(post, f"tq:form:{rid}:open"))
        assert h.fake.views[view_id]["blocks"][0]["element"]["max_length"] == 3000
        graded = await h.reply(await h.send.answer(view_id, code), timeout=60)
        assert "All 1 hidden tests passed" in graded.shown_text
        # Slack's box stops at 3000; a hand-made submission with more is refused, not run.
        other = await h.modal(await h.send.click(post, f"tq:form:{rid}:open", "bob"))
        values = {"answer": {"answer": {"type": "plain_text_input", "value": code + "#"}}}
        refused = await h.reply(await h.send.submit(other, values, "bob"))
        assert "3001 characters" in refused.shown_text and "3000" in refused.shown_text
        bob = h.quiz.rounds.member("slack", "U0BOB", "王小明")
        assert h.quiz.rounds.store.answers_for(rid, bob.id) == []

    slack_run(scenario)


def test_ten_members_within_a_second_are_all_acknowledged_in_time(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.code-double")
        post = await h.post_today(channel)
        rid = _round_id(post)
        members = [f"member{i}" for i in range(10)]
        views = [await h.modal(await h.send.click(post, f"tq:form:{rid}:open", m))
                 for m in members]
        code = "def double(x):\n    return x * 2\n"
        started = asyncio.get_running_loop().time()
        sent = await asyncio.gather(*(h.send.answer(v, code, m)
                                      for v, m in zip(views, members, strict=True)))
        acks = sorted(d.ack_s for d in sent)
        replies = [await h.reply(d, timeout=60) for d in sent]
        finished = asyncio.get_running_loop().time() - started
        assert all("All 1 hidden tests passed" in r.shown_text for r in replies)
        print(f"\n[slack] 10 code answers at once: ack median {acks[4] * 1000:.0f} ms, "
              f"max {acks[-1] * 1000:.0f} ms; all graded and answered in {finished:.1f} s")

    slack_run(scenario)


def test_a_rate_limited_post_is_waited_out_and_posted_once(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        h.fake.rate_limit("chat.postMessage", retry_after=1)
        await h.scheduler.post(channel.id)
        attempts = h.fake.calls_of("chat.postMessage")
        assert [c.status for c in attempts] == [429, 200]
        assert len(h.fake.posts(GENERAL)) == 1

    slack_run(scenario)


def test_a_crash_between_claim_and_post_is_posted_once_on_the_next_start(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        claimed = await h.runtime.call(h.quiz.rounds.post_round, channel.id)  # then "crash"
        assert claimed is not None and h.fake.posts(GENERAL) == []
        h.clock.advance(minutes=5)  # past the claim's lease
        await h.restart_bot()
        await h.restart_bot()  # a second start finds it posted and does nothing
        posts = h.fake.posts(GENERAL)
        assert len(posts) == 1 and _round_id(posts[0]) == claimed.round.id
        ref = h.quiz.rounds.store.get_round(claimed.round.id).message_ref
        assert ref == f"{GENERAL}:{posts[0].ts}"

    slack_run(scenario)


def test_a_post_slack_accepted_before_a_crash_is_found_not_posted_again(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        claimed = await h.runtime.call(h.quiz.rounds.post_round, channel.id)
        ref = await h.bot.publisher.publish_round(claimed)  # Slack took it; then "crash"
        h.clock.advance(minutes=5)  # past the claim's lease
        await h.restart_bot()
        await h.restart_bot()
        assert len(h.fake.posts(GENERAL)) == 1
        assert h.quiz.rounds.store.get_round(claimed.round.id).message_ref == ref
        assert h.fake.calls_of("conversations.history")  # it looked before posting

    slack_run(scenario)


def test_a_post_slack_took_without_answering_in_time_is_kept_not_posted_twice(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        h.fake.hold("chat.postMessage", accepted=True)  # Slack posts it, the answer never comes
        h.bot.publisher._round_client.timeout = 1  # a client timeout, shortened for the test
        await h.scheduler.post(channel.id)
        [post] = h.fake.posts(GENERAL)
        rnd = h.quiz.rounds.store.latest_round(channel.id)
        assert rnd.message_ref == f"{GENERAL}:{post.ts}"
        assert len(h.fake.calls_of("chat.postMessage")) == 1  # no blind retry either

    slack_run(scenario)


def test_without_the_history_scope_a_taken_over_post_goes_out_unchecked(slack_run):
    async def scenario(h):
        h.fake.tokens[BOT_TOKEN]["scopes"].discard("channels:history")  # installed before it
        channel = await h.enable_channel("t.choice-view")
        claimed = await h.runtime.call(h.quiz.rounds.post_round, channel.id)  # then "crash"
        h.clock.advance(minutes=5)
        await h.restart_bot()
        assert len(h.fake.posts(GENERAL)) == 1
        assert [c.answer.get("error") for c in h.fake.calls_of("conversations.history")] == [
            "missing_scope"]
        assert h.quiz.rounds.store.get_round(claimed.round.id).message_ref is not None

    slack_run(scenario)


def test_a_closed_or_unknown_round_gets_a_clear_private_line(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        rid = _round_id(post)
        h.clock.advance(hours=24)
        await h.scheduler.close_due()
        # A member clicks on a client that still shows the old post, with its buttons.
        late = await h.reply(await h.send.click(post, f"tq:answer:{rid}:B"))
        assert "This round is closed" in late.shown_text
        post.blocks[-2]["elements"][0]["action_id"] = "tq:answer:99999:A"
        unknown = await h.reply(await h.send.click(post, "tq:answer:99999:A"))
        assert "no open question" in unknown.shown_text

    slack_run(scenario)


def test_a_slack_retry_of_an_answer_records_nothing_twice(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.text-detach")
        post = await h.post_today(channel)
        rid = _round_id(post)
        view_id = await h.modal(await h.send.click(post, f"tq:form:{rid}:open"))
        first = await h.send.answer(view_id, "detach_")  # wrong: 2 tries left
        assert "2 tries left" in (await h.reply(first)).shown_text
        for reason in ("http_timeout", "http_error"):
            again = h.acked(await h.send.resend(first, reason=reason))
            assert again.body in ("", None)
        await asyncio.sleep(1.0)
        alice = h.quiz.rounds.member("slack", "U0ALICE", "Alice")
        assert len(h.quiz.rounds.store.answers_for(rid, alice.id)) == 1
        assert len(h.fake.private_to("alice")) == 1  # one reply, to the first delivery

    slack_run(scenario)


def test_the_weekly_post_has_a_table_and_an_uploaded_png_chart(slack_run, tmp_path):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view", lang="zh-CN")
        post = await h.post_today(channel)
        rid = _round_id(post)
        for who in ("alice", "bob"):
            await h.reply(await h.send.click(post, f"tq:answer:{rid}:B", who))
        await h.scheduler.post_board(channel.id)
        table = h.fake.posts(GENERAL)[-1]
        assert "每周排行榜" in table.shown_text
        assert "王小明" in table.shown_text and "Alice" in table.shown_text
        steps = [c.method for c in h.fake.calls if c.method.startswith("files.")]
        assert steps == ["files.getUploadURLExternal", "files.completeUploadExternal"]
        uploaded = next(iter(h.fake.files.values()))
        assert uploaded["name"] == "leaderboard-2026-03-02.png"
        assert uploaded["channel"] == GENERAL and uploaded["data"][:8] == b"\x89PNG\r\n\x1a\n"
        image = Image.open(io.BytesIO(uploaded["data"]))
        assert image.format == "PNG" and image.size[0] >= 600
        (tmp_path / "weekly.png").write_bytes(uploaded["data"])
        print(f"\n[slack] weekly chart saved to {tmp_path / 'weekly.png'}")

    slack_run(scenario)


def test_a_code_answer_sent_during_an_executor_outage_is_graded_later_and_shown_privately(
        slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.code-double")
        post = await h.post_today(channel)
        rid = _round_id(post)
        view = await h.modal(await h.send.click(post, f"tq:form:{rid}:open", "alice"))
        h.outage(True)
        waiting = await h.reply(await h.send.answer(view, "def double(x):\n    return x * 2\n",
                                                    "alice"))
        assert "delayed" in waiting.shown_text
        h.outage(False)
        before = len(h.fake.calls_of("chat.postEphemeral"))
        await h.scheduler.deliver_pending()
        late = h.fake.calls_of("chat.postEphemeral")[before:]
        assert len(late) == 1 and late[0].args["user"] == USERS["alice"]["id"]
        assert "All 1 hidden tests passed" in str(late[0].args["blocks"])
        await h.scheduler.deliver_pending()  # graded once, delivered once
        assert len(h.fake.calls_of("chat.postEphemeral")) == before + 1

    slack_run(scenario)
