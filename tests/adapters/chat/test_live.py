"""A live session on Discord and on Slack: the lobby and its Join button, the answer buttons,
the reveal and the final board, double clicks and late clicks."""

from __future__ import annotations

import asyncio
import itertools


def test_a_live_session_from_lobby_to_final_board(chat):
    async def scenario(d):
        await d.enable_channel("t.choice-view")  # the channel draws this one question
        said = await d.command("live", "admin", action="start", options="questions=1 lobby=20")
        assert said.private and "lobby is posted" in said.text, said.text
        await d.advance_live()
        lobby = d.live_posts()[-1]
        assert "opened a live quiz" in lobby.text
        join = lobby.button("tq:ljoin:")
        joined = [await d.click(lobby, join, who) for who in ("alice", "bob", "alice")]
        assert all(r.private for r in joined)
        assert "You're in" in joined[0].text and "joined already" in joined[2].text
        d.clock.advance(seconds=20)
        await d.advance_live()
        question = d.live_posts()[-1]
        assert "Live · question 1/1" in question.text and "Which call may copy?" in question.text
        right = next(b for b in question.buttons if b.startswith("tq:live:") and b.endswith(":B"))
        wrong = next(b for b in question.buttons if b.startswith("tq:live:") and b.endswith(":C"))
        replies = await asyncio.gather(d.click(question, right, "alice"),
                                       d.click(question, wrong, "bob"))
        assert all(r.private and "Locked in" in r.text for r in replies)
        double = await d.click(question, wrong, "alice")
        assert double.private and "already" in double.text
        # The admin who hosts has not answered: the question waits for the deadline.
        await d.advance_live()
        assert d.live_posts()[-1].text == question.text
        d.clock.advance(seconds=20)
        await d.advance_live()
        reveal, board = d.live_posts()[-2:]
        assert "answer to question 1/1" in reveal.text
        assert "1 (50 %) ✓" in reveal.text and "unsqueeze is always a view." in reveal.text
        assert "final board" in board.text and "Fastest right answer" in board.text
        # Each player gets their own rank privately: one button on the reveal, not a post each.
        rank = reveal.button("tq:lrank:")
        mine = {who: await d.click(reveal, rank, who) for who in ("alice", "bob", "admin")}
        assert all(r.private for r in mine.values())
        assert "Your rank: 1 of 3" in mine["alice"].text, mine["alice"].text
        assert "Your rank: 3 of 3, with 0 pts (0 right of 1 answered)" in mine["bob"].text
        assert "not answered" in mine["admin"].text
        assert "Your rank: 1 of 3" in (await d.click(board, board.button("tq:lrank:"),
                                                     "alice")).text
        late = await d.click(question, right, "bob")
        assert late.private and "over" in late.text
        session = d.quiz.live.store.get_live(int(join.split(":")[2]))
        assert len(d.quiz.live.store.live_answers(session.id)) == 2

    chat.run(scenario)


def test_a_second_start_is_told_and_the_host_ends_the_session(chat):
    async def scenario(d):
        await d.enable_channel("t.choice-view")
        await d.command("live", "admin", action="start", options="lobby=60")
        await d.advance_live()
        again = await d.command("live", "admin", action="start")
        assert again.private and "already running" in again.text
        member = await d.command("live", "alice", action="end")
        assert member.private and "Only the host or an admin" in member.text
        ended = await d.command("live", "admin", action="end")
        assert ended.private and "ends now" in ended.text
        await d.advance_live()
        assert "final board" in d.live_posts()[-1].text
        assert "No live session is running" in (await d.command("live", "alice")).text

    chat.run(scenario)


def test_a_live_text_question_is_answered_in_its_one_line_form(chat):
    async def scenario(d):
        await d.enable_channel("t.text-detach")
        await d.command("live", "admin", action="start", options="questions=1 lobby=0")
        await d.advance_live()
        question = d.live_posts()[-1]
        assert "Live · question 1/1" in question.text
        form = await d.open_form(question, "alice", button=question.button("tq:lform:"))
        assert form.mode == "text" and not form.multiline
        reply = await d.submit(form, "x.detach()")
        assert reply.private and "Locked in" in reply.text
        session_id = int(question.button("tq:lform:").split(":")[2].split("-")[0])
        answers = d.quiz.live.store.live_answers(session_id)
        assert [(a.correct, a.response) for a in answers] == [(True, "detach")]

    chat.run(scenario)


def test_anyone_may_host_where_the_channel_allows_it(chat):
    async def scenario(d):
        await d.enable_channel("t.choice-view")
        refused = await d.command("live", "alice", action="start", options="lobby=60")
        assert refused.private and "live_hosts=anyone" in refused.text, refused.text
        saved = await d.settings("admin", live_hosts="anyone")
        assert "Settings saved" in saved.text, saved.text
        assert d.stored_channel().live_anyone
        opened = await d.command("live", "alice", action="start", options="lobby=60")
        assert "lobby is posted" in opened.text, opened.text
        await d.advance_live()
        assert "Alice" in d.live_posts()[-1].text  # the lobby names its host
        # The member who hosts steers their session; another member does not.
        assert "Only the host" in (await d.command("live", "bob", action="end")).text
        assert "ends now" in (await d.command("live", "alice", action="end")).text
        back = await d.settings("admin", live_hosts="admins")
        assert "Settings saved" in back.text and not d.stored_channel().live_anyone

    chat.run(scenario)


def test_a_question_costs_one_post_and_one_reveal_and_slack_posts_a_second_apart(chat):
    async def scenario(d):
        await d.enable_channel("t.choice-view")
        before = len(d.live_posts())
        await d.command("live", "admin", action="start", options="questions=1 lobby=0")
        await d.advance_live()  # the lobby and the question: two posts of one sweep
        question = d.live_posts()[-1]
        right = next(b for b in question.buttons if b.endswith(":B"))
        for who in ("alice", "bob"):
            await d.click(question, right, who)
        d.clock.advance(seconds=20)
        await d.advance_live()  # the reveal and the final board: two more
        posts = d.live_posts()[before:]
        assert ["live quiz" in posts[0].text, "question 1/1" in posts[1].text,
                "answer to question 1/1" in posts[2].text, "final board" in posts[3].text] \
            == [True] * 4 and len(posts) == 4
        assert d.edits_of(question) == 0  # the budget allows two; none are needed
        if d.platform == "slack":
            # Slack takes one post per second per channel: each live post waits its turn.
            instants = [c.at for c in d.fake.calls_of("chat.postMessage")
                        if c.args.get("channel") == d.channel_id("general")][-4:]
            gaps = [b - a for a, b in itertools.pairwise(instants)]
            assert all(gap >= 0.99 for gap in gaps), gaps

    chat.run(scenario)


def test_live_points_reach_the_weekly_board_only_where_the_admin_turned_it_on(chat):
    async def scenario(d):
        await d.enable_channel("t.choice-view")
        assert not d.stored_channel().live_on_board  # off by default
        refused = await d.settings("alice", live_on_board=True)
        assert "Only admins" in refused.text and not d.stored_channel().live_on_board
        saved = await d.settings("admin", live_on_board=True)
        assert "Settings saved" in saved.text, saved.text
        assert d.stored_channel().live_on_board
        await d.command("live", "admin", action="start", options="questions=1 lobby=0")
        await d.advance_live()
        question = d.live_posts()[-1]
        right = next(b for b in question.buttons if b.startswith("tq:live:") and b.endswith(":B"))
        for who in ("alice", "bob", "admin"):
            assert "Locked in" in (await d.click(question, right, who)).text
        await d.advance_live()
        board = d.live_posts()[-1]
        assert "and on this week's board" in board.text, board.text
        week = d.quiz.board.rows(d.stored_channel(), "week")
        assert len(week) == 3 and all(row.points > 0 for row in week)

    chat.run(scenario)


DOUBLE = "def double(x):\n    return x * 2\n"


def test_a_live_code_question_is_locked_in_at_once_and_graded_by_the_real_sandbox(chat):
    async def scenario(d):
        await d.enable_channel("t.code-double")
        plain = await d.command("live", "admin", action="start", options="questions=1 lobby=0")
        assert "No choice or short-text question" in plain.text  # code only when asked
        said = await d.command("live", "admin", action="start",
                               options="questions=1 lobby=0 code=yes")
        assert "lobby is posted" in said.text, said.text
        await d.advance_live()
        question = d.live_posts()[-1]
        assert "within 90 s" in question.text and "sandbox grades it" in question.text
        button = question.button("tq:lform:")
        forms = {who: await d.open_form(question, who, button=button)
                 for who in ("alice", "bob", "admin")}
        assert forms["alice"].mode == "code" and forms["alice"].multiline
        refused = await d.submit(forms["admin"], "def double(x) return x\n")
        assert refused.private and "line 1" in refused.text, refused.text
        replies = [await d.submit(forms["alice"], DOUBLE),
                   await d.submit(forms["bob"], "def double(x):\n    return x + 2\n")]
        assert all(r.private and "Locked in" in r.text and "before the reveal" in r.text
                   for r in replies), [r.text for r in replies]
        session_id = int(button.split(":")[2].split("-")[0])
        d.clock.advance(seconds=90)
        mark = d.mark()
        await d.advance_live()
        reveal = next(p for p in d.live_posts() if "answer to question 1/1" in p.text)
        assert "1 of 2 passed the hidden tests" in reveal.text, reveal.text
        # The reveal shows only ✗; the player whose code failed is told why, privately, once.
        [told] = d.private_since(mark, "bob")
        assert "Your code for question 1 did not pass" in told.text, told.text
        assert "0/1 hidden tests passed" in told.text and "values differ" in told.text
        assert d.private_since(mark, "alice") == []  # passed: the reveal says enough
        assert "did not pass" not in reveal.text
        answers = d.quiz.live.store.live_answers(session_id)
        assert not any(a.pending for a in answers)  # each graded, once
        assert sorted((a.correct, a.points > 0) for a in answers) == [(False, False),
                                                                      (True, True)]

    chat.run(scenario)


def test_each_question_reveal_and_the_final_board_go_in_the_sessions_thread(chat):
    async def scenario(d):
        await d.enable_channel("t.choice-view")
        await d.command("live", "admin", action="start", options="questions=1 lobby=0")
        await d.advance_live()
        [lobby] = d.channel_posts()  # the channel gets the lobby only
        assert "opened a live quiz" in lobby.text
        [question] = d.thread_of(lobby)
        assert "Live · question 1/1" in question.text
        right = next(b for b in question.buttons if b.startswith("tq:live:") and b.endswith(":B"))
        assert "Locked in" in (await d.click(question, right, "admin")).text
        await d.advance_live()
        assert [p.text.split("\n")[0] for p in d.channel_posts()] == [lobby.text.split("\n")[0]]
        thread = [p.text for p in d.thread_of(lobby)]
        assert len(thread) == 3 and "answer to question 1/1" in thread[1]
        assert "final board" in thread[2]

    chat.run(scenario)


def test_a_thread_deleted_mid_session_moves_it_to_the_channel_losing_nothing(chat):
    async def scenario(d):
        await d.enable_channel("t.choice-view")
        await d.command("live", "admin", action="start",
                        options="questions=1 lobby=0 seconds=10")
        await d.advance_live()
        lobby = d.channel_posts()[-1]
        [question] = d.thread_of(lobby)
        right = next(b for b in question.buttons if b.startswith("tq:live:") and b.endswith(":B"))
        assert "Locked in" in (await d.click(question, right, "alice")).text
        assert "already" in (await d.click(question, right, "alice")).text  # counted once
        d.delete_thread(lobby)  # a moderator deletes the thread mid-question
        d.clock.advance(seconds=10)
        await d.advance_live()
        await d.advance_live()  # a second sweep posts nothing again
        posts = [p.text for p in d.channel_posts()]
        assert len(posts) == 4, posts
        assert "thread was deleted" in posts[1] and "goes on here" in posts[1]
        assert "answer to question 1/1" in posts[2] and "1 (100 %) ✓" in posts[2]
        assert "final board" in posts[3]
        session_id = int(lobby.button("tq:ljoin:").split(":")[2])
        session = d.quiz.live.store.get_live(session_id)
        assert session.thread_ref is None and session.ended_at is not None
        assert len(d.quiz.live.store.live_answers(session_id)) == 1

    chat.run(scenario)
