"""A daily round end to end, on Discord and on Slack: the post, buttons and forms, tallies,
the thread reveal, restarts, rate limits, an executor outage."""

from __future__ import annotations

import asyncio
import io
import re

from PIL import Image

from safetext.inert import ONE_LINE_CHARS
from tests.hostile import invisible_or_control, pings

DOUBLE = "def double(x):\n    return x * 2\n"


def test_a_choice_round_from_post_to_thread_reveal(chat):
    async def scenario(d):
        post = await d.todays_post("t.choice-view")
        # Options come in the round's own order; each button carries its option's stored key.
        assert sorted(b.rsplit(":", 1)[1] for b in post.buttons) == ["A", "B", "C"]
        assert sorted(post.labels) == ["A", "B", "C"]
        assert "Which call may copy?" in post.text
        assert f"{post.letter('B')}. reshape" in post.text
        assert not post.can_ping
        replies = await asyncio.gather(d.click(post, post.choice("B"), "alice"),
                                       d.click(post, post.choice("A"), "bob"),
                                       d.click(post, post.choice("B"), "admin"))
        assert all(r.private for r in replies)
        assert "Correct" in replies[0].text and "Correct" in replies[2].text
        assert "Not this time" in replies[1].text
        await d.settle()
        assert 1 <= d.edits_of(post) <= 2, f"{d.edits_of(post)} edits for 3 answers"
        assert "2 solved · 3 answered" in d.current(post).text
        # The next day the round closes: the buttons go, the answer goes into a thread.
        d.clock.advance(hours=24)
        await d.close_due()
        reveal = d.thread_of(post)
        assert len(reveal) == 1 and f"Answer: {post.letter('B')}. reshape" in reveal[0].text
        assert d.current(post).buttons == ()

    chat.run(scenario)


def test_a_text_round_is_answered_in_a_one_line_form(chat):
    async def scenario(d):
        post = await d.todays_post("t.text-detach")
        assert post.buttons == (post.form_button,)  # no choices: one button opens the form
        form = await d.open_form(post)
        assert form.mode == "text" and not form.multiline
        reply = await d.submit(form, "x.detach()")
        assert reply.private and "Correct" in reply.text

    chat.run(scenario)


def test_a_code_round_with_three_members_is_graded_by_the_real_sandbox(chat):
    async def scenario(d):
        post = await d.todays_post("t.code-double")
        answers = {"alice": "def double(x):\n    return 2 * x\n",
                   "bob": "def double(x):\n    return x + 2\n",
                   "admin": DOUBLE}
        forms = {who: await d.open_form(post, who) for who in answers}
        assert forms["alice"].mode == "code" and forms["alice"].multiline
        assert "def double" in forms["alice"].prefill  # the starter code
        replies = await asyncio.gather(*(d.submit(forms[who], code)
                                         for who, code in answers.items()))
        shown = dict(zip(answers, (r.text for r in replies), strict=True))
        assert "All 1 hidden tests passed" in shown["alice"]
        assert "failed: 0/1 hidden tests passed" in shown["bob"]
        assert "values differ" in shown["bob"]
        assert "All 1 hidden tests passed" in shown["admin"]
        await d.settle()
        assert 1 <= d.edits_of(post) <= 2
        assert "2 solved · 3 answered" in d.current(post).text
        d.clock.advance(hours=24)
        await d.close_due()
        reveal = d.thread_of(post)
        assert len(reveal) == 1 and "A reference solution" in reveal[0].text
        assert "def double" in reveal[0].text

    chat.run(scenario)


def test_what_a_submission_prints_reaches_the_member_inert(chat):
    # Each platform's pings and formatting, in what the code prints and in its error.
    hostile = ("def double(x):\n"
               "    print('@everyone <@&123456789012345678> <!channel> <@U0ALICE> "
               "**Correct!** *Correct!* ```fence``` \\x1b[2K\\u202e')\n"
               "    raise ValueError('@here <!here> ```fence``` \\n fake line')\n")

    async def scenario(d):
        post = await d.todays_post("t.code-double")
        reply = await d.submit(await d.open_form(post), hostile)
        assert "ValueError" in reply.text
        assert pings(reply.text) == [] and invisible_or_control(reply.text) == []
        assert not reply.can_ping
        detail = next(line for line in reply.text.splitlines() if "ValueError" in line)
        assert len(detail) < ONE_LINE_CHARS * 3  # one line, capped (escapes add characters)
        output = next(part for part in reply.text.split("Your output")[1:])
        assert output.count("```") == 2  # the submission could not close the block

    chat.run(scenario)


def test_a_burst_of_fifty_answers_gets_every_reply_in_time_and_few_edits(chat):
    async def scenario(d):
        post = await d.todays_post("t.choice-view")
        replies = await asyncio.gather(*(
            d.click(post, post.choice("B" if i % 2 else "C"), f"member{i}") for i in range(50)))
        assert all(r.private and r.text for r in replies)
        await d.settle(2.0)
        assert 1 <= d.edits_of(post) <= 6, f"{d.edits_of(post)} edits for 50 answers"
        assert "25 solved · 50 answered" in d.current(post).text

    chat.run(scenario)


def test_buttons_keep_working_after_a_restart(chat):
    async def scenario(d):
        post = await d.todays_post("t.choice-view")
        await d.restart()
        assert "Correct" in (await d.click(post, post.choice("B"))).text
        assert len(d.channel_posts()) == 1  # the restart did not post again

    chat.run(scenario)


def test_a_closed_or_unknown_round_gets_a_clear_private_line(chat):
    async def scenario(d):
        post = await d.todays_post("t.choice-view")
        d.clock.advance(hours=24)
        await d.close_due()
        # A member clicks on a client that still shows the old post, with its buttons.
        late = await d.click(post, post.choice("B"))
        assert late.private and "This round is closed" in late.text
        tampered = d.with_buttons(post, ["tq:answer:99999:A"])
        unknown = await d.click(tampered, "tq:answer:99999:A")
        assert unknown.private and "no open question" in unknown.text

    chat.run(scenario)


def test_an_answer_as_long_as_the_box_is_graded_and_a_longer_one_refused(chat):
    async def scenario(d):
        post = await d.todays_post("t.code-double")
        form = await d.open_form(post)
        limit = form.max_length
        code = DOUBLE + "#" * (limit - len(DOUBLE) - 1) + "\n"
        assert len(code) == limit
        assert "All 1 hidden tests passed" in (await d.submit(form, code)).text
        # The box stops at its limit; a hand-made submission with more is refused, not run.
        other = await d.open_form(post, "bob")
        refused = await d.submit(other, code + "#", forged=True)
        assert f"{limit + 1} characters" in refused.text and str(limit) in refused.text
        assert d.answers_recorded("bob", post.round_id) == 0

    chat.run(scenario)


def test_ten_members_within_a_second_are_all_answered_in_time(chat):
    async def scenario(d):
        post = await d.todays_post("t.code-double")
        forms = [await d.open_form(post, f"member{i}") for i in range(10)]
        replies = await asyncio.gather(*(d.submit(form, DOUBLE) for form in forms))
        assert all("All 1 hidden tests passed" in r.text for r in replies)

    chat.run(scenario)


def test_a_rate_limited_post_is_waited_out_and_posted_once(chat):
    async def scenario(d):
        channel = await d.enable_channel("t.choice-view")
        d.rate_limit_posts()
        await d.post_now(channel)
        assert d.post_attempts() == [429, 200]
        assert len(d.channel_posts()) == 1

    chat.run(scenario)


def test_a_crash_between_claim_and_post_is_posted_once_on_the_next_start(chat):
    async def scenario(d):
        channel = await d.enable_channel("t.choice-view")
        claimed = await d.claim_without_posting(channel)  # then "crash"
        assert d.channel_posts() == []
        d.clock.advance(minutes=5)  # past the claim's lease
        await d.restart()
        await d.restart()  # a second start finds it posted and does nothing
        [post] = d.channel_posts()
        assert post.round_id == claimed
        # The round knows its post: an answer's tally lands on it.
        assert "Correct" in (await d.click(post, post.choice("B"))).text
        await d.settle()
        assert "1 solved · 1 answered" in d.current(post).text

    chat.run(scenario)


def test_a_post_the_platform_accepted_before_a_crash_is_found_not_posted_again(chat):
    async def scenario(d):
        channel = await d.enable_channel("t.choice-view")
        round_id, ref = await d.post_then_crash(channel)  # the platform took it; then "crash"
        d.clock.advance(minutes=5)  # past the claim's lease
        await d.restart()
        await d.restart()
        assert len(d.channel_posts()) == 1
        assert d.message_ref(round_id) == ref
        assert d.history_reads() > 0  # it looked before posting

    chat.run(scenario)


def test_the_weekly_post_has_a_table_and_a_png_chart(chat):
    async def scenario(d):
        channel = await d.enable_channel("t.choice-view")
        post = await d.post_today(channel)
        for who in ("alice", "bob"):
            await d.click(post, post.choice("B"), who)
        board = await d.post_board(channel)
        assert "Weekly leaderboard" in board.text
        assert "王小明" in board.text and "Alice" in board.text
        assert board.image is not None, "no chart shown with the weekly post"
        name, data = board.image
        assert re.fullmatch(r"leaderboard-2026-03-02-\d+\.png", name)
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        image = Image.open(io.BytesIO(data))
        assert image.format == "PNG" and image.size[0] >= 600

    chat.run(scenario)


def test_a_code_answer_sent_during_an_executor_outage_is_graded_later_and_sent_privately(chat):
    async def scenario(d):
        post = await d.todays_post("t.code-double")
        form = await d.open_form(post)
        d.outage(True)
        assert "delayed" in (await d.submit(form, DOUBLE)).text
        d.outage(False)
        mark = d.mark()
        await d.deliver_pending()
        late = d.private_since(mark, "alice")
        assert len(late) == 1 and "All 1 hidden tests passed" in late[0].text
        assert not late[0].can_ping
        await d.deliver_pending()  # graded once, delivered once
        assert len(d.private_since(mark, "alice")) == 1

    chat.run(scenario)
