"""The daily loop on a real database: claim, post, answer, tally, close, reveal."""

import datetime as dt

from sqlalchemy import event

from bot.core.kernel.messages import Audience
from bot.core.kernel.models import Actor, AnswerMode
from bot.core.learning.practice import daily_pick
from bot.core.quiz import build_quiz
from executors.grading.reasons import Reason
from tests.support.core import FakeVerdict, only, shown


def post(quiz, channel):
    posted = quiz.rounds.post_round(channel.id)
    assert posted is not None
    return posted


def test_round_is_posted_once_per_local_day(quiz, channel):
    first = post(quiz, channel)
    assert first.message.audience is Audience.CHANNEL
    assert quiz.rounds.post_round(channel.id) is None


def test_second_replica_on_the_same_database_cannot_post_the_same_day(
    quiz, channel, store, bank, clock, executor
):
    post(quiz, channel)
    replica = build_quiz(store, bank, clock, executor)
    assert replica.rounds.post_round(channel.id) is None


def test_next_local_day_gets_a_different_question(quiz, channel, clock):
    first = post(quiz, channel)
    clock.advance(days=1)
    second = post(quiz, channel)
    assert second.round.local_date == first.round.local_date + dt.timedelta(days=1)
    assert second.round.item_id != first.round.item_id


def test_local_date_follows_the_channel_time_zone(quiz, channel, clock):
    clock.set(dt.datetime(2026, 3, 2, 23, 30, tzinfo=dt.UTC))  # already Tuesday in Berlin
    assert post(quiz, channel).round.local_date == dt.date(2026, 3, 3)


def test_choice_post_has_one_button_per_option(quiz, channel):
    channel = only(quiz, channel, "t.choice-view")
    message = post(quiz, channel).message
    assert [b.label for b in message.buttons] == ["A", "B", "C"]
    assert "reshape" in message.body


def test_correct_first_try_earns_base_plus_bonus_and_updates_the_tally(quiz, channel, alice):
    channel = only(quiz, channel, "t.choice-view")
    message = post(quiz, channel).message
    outcome = quiz.rounds.submit_answer(channel.id, alice, shown(message, "B"))
    assert outcome.recorded
    assert "+15" in outcome.reply.body
    assert outcome.reply.audience is Audience.PRIVATE
    assert outcome.tally_changed
    assert quiz.rounds.tally_line(outcome.round_id, "en") == "1 solved · 1 answered"


def test_wrong_choice_is_final_and_explains_why_that_option_is_wrong(quiz, channel, alice):
    channel = only(quiz, channel, "t.choice-view")
    message = post(quiz, channel).message
    outcome = quiz.rounds.submit_answer(channel.id, alice, shown(message, "A"))
    assert outcome.recorded
    assert f"Why not {shown(message, 'A')}: view never copies" in outcome.reply.body
    again = quiz.rounds.submit_answer(channel.id, alice, shown(message, "B"))
    assert not again.recorded and "used all your tries" in again.reply.body


def test_button_answer_names_its_round(quiz, channel, alice):
    channel = only(quiz, channel, "t.choice-view")
    rnd = post(quiz, channel).round
    outcome = quiz.rounds.answer_round(rnd.id, alice, "B", AnswerMode.BUTTON)
    assert outcome.recorded and outcome.round_id == rnd.id


def test_second_answer_after_a_correct_one_is_not_recorded(quiz, channel, alice, store):
    channel = only(quiz, channel, "t.text-detach")
    rnd = post(quiz, channel).round
    assert quiz.rounds.submit_answer(channel.id, alice, "detach").recorded
    again = quiz.rounds.submit_answer(channel.id, alice, "detach")
    assert not again.recorded and "already solved" in again.reply.body
    assert len(store.answers_for(rnd.id, alice.member.id)) == 1


def test_text_allows_three_tries_with_decreasing_points(quiz, channel, alice):
    channel = only(quiz, channel, "t.text-detach")
    post(quiz, channel)
    first = quiz.rounds.submit_answer(channel.id, alice, "clone")
    assert "2 tries left" in first.reply.body
    second = quiz.rounds.submit_answer(channel.id, alice, "detatch")
    assert "+17" in second.reply.body and "typo" in second.reply.body


def test_unreadable_choice_uses_no_try(quiz, channel, alice, store):
    channel = only(quiz, channel, "t.choice-view")
    rnd = post(quiz, channel).round
    outcome = quiz.rounds.submit_answer(channel.id, alice, "Z")
    assert not outcome.recorded and "A, B, C" in outcome.reply.body
    assert store.answers_for(rnd.id, alice.member.id) == []


def test_bad_inputs_get_a_short_reply_and_record_nothing(quiz, channel, alice, store):
    channel = only(quiz, channel, "t.text-detach")
    rnd = post(quiz, channel).round
    for response, reason in [("", "empty"), ("   ", "empty"), ("x" * 100_000, "too long"),
                             ("det\x00ach", "control characters"), ("a\x1b[31mb", "control")]:
        outcome = quiz.rounds.submit_answer(channel.id, alice, response)
        assert not outcome.recorded
        assert reason in outcome.reply.body
        assert len(outcome.reply.body) < 120
    assert store.answers_for(rnd.id, alice.member.id) == []


def test_answer_without_a_round_says_so(quiz, channel, alice):
    assert "no open question" in quiz.rounds.submit_answer(channel.id, alice, "B").reply.body


def test_answer_after_the_round_closed_is_refused(quiz, channel, alice, clock):
    channel = only(quiz, channel, "t.text-detach")
    post(quiz, channel)
    clock.advance(hours=23, minutes=1)
    outcome = quiz.rounds.submit_answer(channel.id, alice, "detach")
    assert not outcome.recorded and "closed" in outcome.reply.body


def test_due_round_is_revealed_exactly_once_even_with_two_replicas(
    quiz, channel, clock, store, bank, executor
):
    channel = only(quiz, channel, "t.choice-view")
    posted = post(quiz, channel).message
    clock.advance(hours=24)
    replica = build_quiz(store, bank, clock, executor)
    reveals = quiz.rounds.close_due_rounds() + replica.rounds.close_due_rounds()
    assert len(reveals) == 1
    message = reveals[0].message
    assert message.audience is Audience.THREAD
    assert f"{shown(posted, 'B')}. reshape" in message.body
    assert f"Why not {shown(posted, 'A')}: view never copies" in message.body


def test_a_reveal_carries_the_closed_post_the_publisher_edits_in(quiz, channel, clock):
    channel = only(quiz, channel, "t.choice-view")
    assert post(quiz, channel).message.buttons
    clock.advance(hours=24)
    [reveal] = quiz.rounds.close_due_rounds()
    assert reveal.closed_post == quiz.rounds.round_message(reveal.round, channel)
    assert reveal.closed_post.buttons == ()  # closed: nobody can answer from the post


def test_admin_can_reveal_early_but_a_member_cannot(quiz, channel, alice):
    channel = only(quiz, channel, "t.choice-view")
    post(quiz, channel)
    refused = quiz.rounds.reveal_now(channel.id, alice)
    assert "Only admins" in refused.body
    admin = Actor(alice.member, is_admin=True)
    reveal = quiz.rounds.reveal_now(channel.id, admin)
    assert "reshape" in reveal.message.body
    assert "closed" in quiz.rounds.submit_answer(channel.id, alice, "B").reply.body


def test_reply_uses_the_members_language_when_known(quiz, channel, alice):
    channel = only(quiz, channel, "t.choice-view")
    message = post(quiz, channel).message
    actor = Actor(alice.member, locale="zh-CN")
    assert "答对了" in quiz.rounds.submit_answer(channel.id, actor, shown(message, "B")).reply.body


def test_code_answer_goes_through_the_executor_and_scores(quiz, channel, alice, executor):
    channel = only(quiz, channel, "t.code-double")
    post(quiz, channel)
    outcome = quiz.rounds.submit_answer(channel.id, alice, "def double(x):\n    return x * 2\n",
                                        AnswerMode.CODE)
    assert executor.runs == [("t.code-double", "def double(x):\n    return x * 2\n")]
    assert outcome.recorded and "+25" in outcome.reply.body


def test_failed_code_answer_shows_the_first_failing_test(quiz, channel, alice, executor):
    channel = only(quiz, channel, "t.code-double")
    post(quiz, channel)
    executor.verdict = FakeVerdict("failed", 0, 3, "test 1 of 3: shape mismatch", "hi\n")
    outcome = quiz.rounds.submit_answer(channel.id, alice, "def double(x): return x",
                                        AnswerMode.CODE)
    assert outcome.recorded
    assert "0/3" in outcome.reply.body and outcome.reply.detail == "test 1 of 3: shape mismatch"
    # What the code printed and its explanation travel apart from the bot's own text.
    assert "shape mismatch" not in outcome.reply.body and outcome.reply.output == "hi\n"


def test_failed_code_is_explained_in_the_members_language(quiz, channel, alice, executor):
    channel = only(quiz, channel, "t.code-double")
    post(quiz, channel)
    reason = Reason("exception", {"line": 2, "test": 1, "tests": 3}, quote="ValueError: nope")
    executor.verdict = FakeVerdict("error", 0, 3, reason.english(), reason=reason)
    actor = Actor(alice.member, locale="zh-CN")
    outcome = quiz.rounds.submit_answer(channel.id, actor, "def double(x): raise ValueError",
                                        AnswerMode.CODE)
    assert "第 1 个测试（共 3 个）：你的代码抛出了异常（第 2 行）：" in outcome.reply.body
    # The sandbox's own words travel apart, to be shown through the one sanitiser.
    assert outcome.reply.detail == "ValueError: nope"
    assert "test 1 of 3" not in outcome.reply.body


def test_code_the_executor_cannot_run_is_refused_in_the_members_language(
        quiz, channel, alice, executor):
    channel = only(quiz, channel, "t.code-double")
    post(quiz, channel)
    executor.unsupported["t.code-double"] = "challenge t.code-double needs a CUDA GPU"
    actor = Actor(alice.member, locale="zh-CN")
    outcome = quiz.rounds.submit_answer(channel.id, actor, "def double(x): return x * 2",
                                        AnswerMode.CODE)
    assert not outcome.recorded
    assert outcome.reply.body == "当前无法评测代码：当前评测器无法运行这道题。本次作答未被记录。"
    assert outcome.reply.detail == "challenge t.code-double needs a CUDA GPU"


def test_rejected_code_uses_no_try(quiz, channel, alice, executor, store):
    channel = only(quiz, channel, "t.code-double")
    rnd = post(quiz, channel).round
    executor.verdict = FakeVerdict("rejected", 0, 0, "the code contains a NUL byte.")
    outcome = quiz.rounds.submit_answer(channel.id, alice, "x = 1", AnswerMode.CODE)
    assert not outcome.recorded and "NUL" in outcome.reply.detail
    assert store.answers_for(rnd.id, alice.member.id) == []


def test_executor_fault_uses_no_try_and_records_nothing(quiz, channel, alice, executor, store):
    channel = only(quiz, channel, "t.code-double")
    rnd = post(quiz, channel).round
    executor.verdict = FakeVerdict("error", 0, 0, "the executor failed", fault=True)
    outcome = quiz.rounds.submit_answer(channel.id, alice, "def double(x): return x",
                                        AnswerMode.CODE)
    assert not outcome.recorded and "did not use a try" in outcome.reply.body
    assert store.answers_for(rnd.id, alice.member.id) == []


def test_every_try_in_a_round_meets_the_same_hidden_tests(quiz, channel, alice, bob, executor):
    channel = only(quiz, channel, "t.code-double")
    post(quiz, channel)
    executor.verdict = FakeVerdict("failed", 0, 3, "test 1 of 3: shape mismatch")
    for actor in (alice, alice, bob):
        quiz.rounds.submit_answer(channel.id, actor, "def double(x): return x", AnswerMode.CODE)
    assert len(set(executor.seeds)) == 1 and executor.seeds[0] is not None


def test_each_round_draws_new_hidden_tests(quiz, channel, alice, executor, clock):
    channel = only(quiz, channel, "t.code-double")
    seeds = []
    for _ in range(3):
        post(quiz, channel)
        quiz.rounds.submit_answer(channel.id, alice, "def double(x): return x", AnswerMode.CODE)
        seeds.append(executor.seeds[-1])
        clock.advance(days=1)
        quiz.rounds.close_due_rounds()
    assert len(set(seeds)) == 3


def test_executor_crash_is_an_apology_and_records_nothing(quiz, channel, alice, executor, store):
    channel = only(quiz, channel, "t.code-double")
    rnd = post(quiz, channel).round
    executor.fail_with = RuntimeError("zygote died")
    outcome = quiz.rounds.submit_answer(channel.id, alice, "x = 1", AnswerMode.CODE)
    assert not outcome.recorded and "Sorry" in outcome.reply.body
    assert store.answers_for(rnd.id, alice.member.id) == []


def test_without_an_executor_code_questions_are_not_posted(store, bank, clock, channel):
    quiz = build_quiz(store, bank, clock, executor=None)
    assert "t.code-double" not in quiz.rounds.eligible_items(channel)


def test_without_an_executor_a_code_round_says_grading_is_unavailable(
    quiz, channel, alice, store, bank, clock
):
    channel = only(quiz, channel, "t.code-double")
    post(quiz, channel)
    no_exec = build_quiz(store, bank, clock, executor=None)
    outcome = no_exec.rounds.submit_answer(channel.id, alice, "x = 1", AnswerMode.CODE)
    assert not outcome.recorded and "not available" in outcome.reply.body


def test_text_answer_to_a_choice_button_round_must_not_be_code(quiz, channel, alice):
    channel = only(quiz, channel, "t.choice-view")
    post(quiz, channel)
    outcome = quiz.rounds.submit_answer(channel.id, alice, "def f(): pass", AnswerMode.CODE)
    assert not outcome.recorded and "not code" in outcome.reply.body


def test_a_letter_sent_to_a_code_round_costs_no_try_and_says_what_is_needed(
    quiz, channel, alice, store
):
    channel = only(quiz, channel, "t.code-double")
    rnd = post(quiz, channel).round
    entrypoint = quiz.rounds.bank.question("t.code-double").code.entrypoint
    outcome = quiz.rounds.submit_answer(channel.id, alice, "B", AnswerMode.TEXT)
    assert not outcome.recorded and f"`{entrypoint}`" in outcome.reply.body
    assert store.answers_for(rnd.id, alice.member.id) == []


def test_the_same_try_arriving_twice_at_once_is_recorded_once(quiz, channel, alice, store):
    """Two replicas (or a double click) judge the same first try concurrently."""
    import threading

    channel = only(quiz, channel, "t.text-detach")
    rnd = post(quiz, channel).round
    barrier = threading.Barrier(2)
    real_state = store.answer_state
    calls = iter(range(1000))

    def state_then_wait(round_id, user_id, item_id):
        seen = real_state(round_id, user_id, item_id)
        if next(calls) < 2:
            barrier.wait(timeout=10)  # both read "no answers yet" before either writes
        return seen

    store.answer_state = state_then_wait
    outcomes = []
    threads = [threading.Thread(
        target=lambda: outcomes.append(quiz.rounds.submit_answer(channel.id, alice, "detach")))
        for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.answer_state = real_state
    assert sorted(o.recorded for o in outcomes) == [False, True]
    assert any("recorded once" in o.reply.body for o in outcomes)
    assert len(store.answers_for(rnd.id, alice.member.id)) == 1


def test_a_minute_of_channels_is_claimed_together_in_a_few_queries(quiz, store, clock):
    channels = [quiz.rounds.channel("slack", f"C{n}", "T1") for n in range(40)]
    ids = [c.id for c in channels]
    quiz.rounds.post_round(ids[3])  # already posted: not posted again
    statements = []
    # The read-only engine is an option view of this one: its statements are seen here too.
    event.listen(store._engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    posts = quiz.rounds.post_rounds([*ids, ids[5], 10_000])  # a repeat, a channel that is gone
    assert sorted(p.channel.id for p in posts) == sorted(set(ids) - {ids[3]})
    queries = [s for s in statements if s.lstrip().upper().startswith(("SELECT", "INSERT"))]
    # channels, rounds taken, used items, paused items, one INSERT: none per channel
    assert len(queries) == 5
    for p in posts:
        assert (p.round.message_ref, p.round.post_claimed_at) == (None, clock.now())  # claimed
        assert store.round_for_date(p.channel.id, p.round.local_date) == p.round


def test_channels_that_choose_alike_filter_the_bank_once_a_minute(quiz, monkeypatch):
    channels = [quiz.rounds.channel("slack", f"C{n}", "T1") for n in range(30)]
    filtered = []
    real = quiz.rounds.eligible_items

    def eligible_items(channel, paused=None):
        filtered.append(channel.id)
        return real(channel, paused)

    monkeypatch.setattr(quiz.rounds, "eligible_items", eligible_items)
    assert len(quiz.rounds.post_rounds([c.id for c in channels])) == 30
    assert len(filtered) == 1  # one workspace, the default packs, topics and difficulties


def test_bulk_posts_pick_what_the_per_channel_rule_picks(quiz, store, clock):
    channels = [quiz.rounds.channel("slack", f"C{n}", "T1") for n in range(5)]
    quiz.rounds.post_rounds([c.id for c in channels])
    clock.advance(days=1)  # a history to pick around
    expected = {
        c.id: daily_pick(quiz.rounds.eligible_items(c), store.used_items(c.id),
                         salt=f"{c.id}|{quiz.rounds.local_date(c).isoformat()}")
        for c in channels
    }
    posts = quiz.rounds.post_rounds([c.id for c in channels])
    assert {p.channel.id: p.round.item_id for p in posts} == expected


def test_a_claimed_post_is_taken_over_only_after_its_lease_and_marked_as_a_repost(
        quiz, store, clock):
    channel = quiz.rounds.channel("slack", "C1", "T1")
    claimed = quiz.rounds.post_round(channel.id)  # then the replica dies before posting
    assert not claimed.repost
    clock.advance(seconds=quiz.rounds.post_lease.total_seconds() - 1)
    assert quiz.rounds.unposted_rounds("slack") == []  # its replica may still be posting
    clock.advance(seconds=2)
    assert quiz.rounds.unposted_rounds("discord") == []  # that platform's bot posts it
    [again] = quiz.rounds.unposted_rounds("slack")
    assert (again.round.id, again.repost, again.round.post_claimed_at) == (
        claimed.round.id, True, clock.now())
    assert quiz.rounds.unposted_rounds("slack") == []  # taken over once
    quiz.rounds.round_posted(claimed.round.id, "C1:1.2")
    clock.advance(minutes=10)
    assert quiz.rounds.unposted_rounds("slack") == []
