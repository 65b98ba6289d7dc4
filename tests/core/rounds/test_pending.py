"""No lost answers: a code answer no executor can grade waits, then is graded exactly once."""

import asyncio
import datetime as dt
import io
from dataclasses import dataclass, field

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.adapters.console.channel import ConsoleChannel
from bot.core.kernel.errors import GradingUnavailable
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Audience
from bot.core.kernel.models import AnswerMode, ChannelDefaults, ChannelUpdate, PracticeSession
from bot.core.questions.scoring import MAX_ATTEMPTS
from bot.core.quiz import build_quiz
from bot.scheduling import QuizScheduler
from tests.support.core import FakeVerdict, only

CODE = "def double(x):\n    return x * 2\n"
WRONG = "def double(x):\n    return x\n"
PASSED = FakeVerdict("passed", 3, 3)
FAILED = FakeVerdict("failed", 1, 3, message="test 2: values differ")


@dataclass
class Outage:
    """An executor that is away until ``back`` is set, then grades by the code it gets."""

    back: bool = False
    runs: list[str] = field(default_factory=list)

    def run(self, challenge_id, code, *, seed=None):
        self.runs.append(code)
        if not self.back:
            raise GradingUnavailable("no executor replica took the run")
        if "refused" in code:
            raise RuntimeError("the executor service refused the request (HTTP 409)")
        if "rejected" in code:
            return FakeVerdict("rejected", 0, 0, message="your code is empty")
        return PASSED if code == CODE else FAILED

    def supports(self, challenge_id):
        return True, ""


@pytest.fixture
def outage():
    return Outage()


@pytest.fixture
def quiz(store, bank, clock, outage):
    """The core with an executor that is away until a test brings it back."""
    return build_quiz(store, bank, clock, outage)


def setup(quiz, channel, outage=None):
    channel = only(quiz, channel, "t.code-double")
    post = quiz.rounds.post_round(channel.id)
    assert post is not None
    return channel, post.round


def test_a_code_answer_waits_when_grading_is_unavailable_and_the_member_is_told(
        quiz, channel, alice, outage):
    channel, rnd = setup(quiz, channel)
    outcome = quiz.rounds.submit_answer(channel.id, alice, CODE, AnswerMode.CODE)
    assert outcome.reply.body == t("en", "code.pending") and not outcome.recorded
    [kept] = quiz.rounds.store.pending_for(rnd.id, alice.member.id)
    assert kept.response == CODE
    assert quiz.rounds.store.answers_for(rnd.id, alice.member.id) == []


def test_the_waiting_answer_is_graded_once_with_the_time_it_was_sent(
        quiz, channel, alice, clock, outage):
    channel, rnd = setup(quiz, channel)
    sent = clock.now()
    quiz.rounds.submit_answer(channel.id, alice, CODE, AnswerMode.CODE)
    clock.advance(minutes=20)
    assert quiz.rounds.grade_pending("console") == []  # still away: nothing to deliver
    outage.back = True
    [delivery] = quiz.rounds.grade_pending("console")
    assert quiz.rounds.grade_pending("console") == []
    assert (delivery.platform, delivery.channel_external_id, delivery.member_external_id) == (
        "console", channel.external_id, alice.member.external_id)
    assert delivery.message.audience is Audience.PRIVATE
    assert delivery.message.body.startswith(t("en", "code.pending_result",
                                              date=rnd.local_date.isoformat()))
    assert "Correct!" in delivery.message.body and "first-try" in delivery.message.body
    [answer] = quiz.rounds.store.answers_for(rnd.id, alice.member.id)
    assert answer.submitted_at == sent and answer.correct and answer.attempt == 1
    assert quiz.rounds.store.pending_for(rnd.id, alice.member.id) == []
    assert quiz.rounds.store.tally(rnd.id).solved == 1


def test_an_answer_sent_in_time_counts_though_its_round_closed_meanwhile(
        quiz, channel, alice, clock, outage):
    channel, rnd = setup(quiz, channel)
    quiz.rounds.submit_answer(channel.id, alice, WRONG, AnswerMode.CODE)
    clock.advance(days=1)
    assert len(quiz.rounds.close_due_rounds()) == 1
    outage.back = True
    [delivery] = quiz.rounds.grade_pending()
    [answer] = quiz.rounds.store.answers_for(rnd.id, alice.member.id)
    assert not answer.correct and answer.attempt == 1
    assert delivery.message.body.splitlines()[1] == t("en", "answer.wrong_closed")
    assert delivery.message.detail == "test 2: values differ"


def test_a_late_result_carries_the_channels_workspace_and_language(
        quiz, channel, alice, outage):
    channel = quiz.rounds.store.update_channel(channel.id, ChannelUpdate(locale="zh-CN"))
    channel, rnd = setup(quiz, channel)
    quiz.rounds.submit_answer(channel.id, alice, CODE, AnswerMode.CODE)
    outage.back = True
    [delivery] = quiz.rounds.grade_pending()
    # Everything the publisher needs to deliver it, without asking the core again.
    assert (delivery.workspace_external_id, delivery.locale) == ("ws", "zh-CN")
    assert delivery.message.body.startswith(t("zh-CN", "code.pending_result",
                                              date=rnd.local_date.isoformat()))


def test_a_members_waiting_answers_are_graded_in_the_order_sent(quiz, channel, alice, outage):
    channel, rnd = setup(quiz, channel)
    quiz.rounds.submit_answer(channel.id, alice, WRONG, AnswerMode.CODE)
    outage.back = True  # back, but a new answer still queues behind the waiting one
    second = quiz.rounds.submit_answer(channel.id, alice, CODE, AnswerMode.CODE)
    assert second.reply.body == t("en", "code.pending") and outage.runs == [WRONG]
    deliveries = quiz.rounds.grade_pending("console")
    answers = quiz.rounds.store.answers_for(rnd.id, alice.member.id)
    assert [(a.attempt, a.correct) for a in answers] == [(1, False), (2, True)]
    assert "Not quite" in deliveries[0].message.body
    assert "Correct!" in deliveries[1].message.body


def test_waiting_answers_count_against_the_tries(quiz, channel, alice):
    channel, _ = setup(quiz, channel)
    for _ in range(MAX_ATTEMPTS["code"]):
        quiz.rounds.submit_answer(channel.id, alice, WRONG, AnswerMode.CODE)
    extra = quiz.rounds.submit_answer(channel.id, alice, WRONG, AnswerMode.CODE)
    assert extra.reply.body == t("en", "answer.no_tries")


def test_answers_after_a_solving_one_are_closed_without_a_record(quiz, channel, alice, outage):
    channel, rnd = setup(quiz, channel)
    quiz.rounds.submit_answer(channel.id, alice, CODE, AnswerMode.CODE)
    quiz.rounds.submit_answer(channel.id, alice, WRONG, AnswerMode.CODE)
    outage.back = True
    _, second = quiz.rounds.grade_pending()
    assert second.message.body.endswith(t("en", "answer.already_solved"))
    assert len(quiz.rounds.store.answers_for(rnd.id, alice.member.id)) == 1
    assert WRONG not in outage.runs  # it waited behind the solving answer, never ran


def test_a_refused_waiting_answer_uses_no_try_and_says_why(quiz, channel, alice, outage):
    channel, rnd = setup(quiz, channel)
    quiz.rounds.submit_answer(channel.id, alice, "# rejected\n", AnswerMode.CODE)
    outage.back = True
    [delivery] = quiz.rounds.grade_pending()
    assert t("en", "code.rejected") in delivery.message.body
    assert delivery.message.detail == "your code is empty"
    assert quiz.rounds.store.answers_for(rnd.id, alice.member.id) == []
    assert quiz.rounds.store.pending_for(rnd.id, alice.member.id) == []


def test_a_sweep_that_still_cannot_grade_gives_every_answer_back(quiz, channel, alice, bob):
    channel, rnd = setup(quiz, channel)
    for actor in (alice, bob):
        quiz.rounds.submit_answer(channel.id, actor, CODE, AnswerMode.CODE)
    assert quiz.rounds.grade_pending() == []
    waiting = [p for a in (alice, bob) for p in quiz.rounds.store.pending_for(rnd.id, a.member.id)]
    assert [p.claim for p in waiting] == [None, None]


def test_an_answer_that_fails_to_grade_does_not_hold_up_the_others(quiz, channel, alice, bob,
                                                                    outage, clock):
    channel, rnd = setup(quiz, channel)
    quiz.rounds.submit_answer(channel.id, alice, "# refused\n" + CODE, AnswerMode.CODE)
    quiz.rounds.submit_answer(channel.id, bob, CODE, AnswerMode.CODE)
    outage.back = True
    [delivery] = quiz.rounds.grade_pending()
    assert delivery.member_external_id == bob.member.external_id
    # Alice's stays claimed until the claim lapses, then it is tried again.
    assert quiz.rounds.grade_pending() == []
    clock.advance(minutes=11)
    assert quiz.rounds.grade_pending() == []
    assert outage.runs.count("# refused\n" + CODE) == 3
    assert len(quiz.rounds.store.pending_for(rnd.id, alice.member.id)) == 1


def test_a_sweep_grades_only_its_own_platforms_answers(quiz, channel, alice, outage):
    channel, _ = setup(quiz, channel)
    quiz.rounds.submit_answer(channel.id, alice, CODE, AnswerMode.CODE)
    outage.back = True
    assert quiz.rounds.grade_pending("slack") == []
    assert len(quiz.rounds.grade_pending("console")) == 1


def test_the_result_is_written_in_the_language_the_member_answered_in(quiz, alice, outage):
    zh = quiz.rounds.channel("console", "zh", "ws", ChannelDefaults(locale="zh-CN"))
    zh, rnd = setup(quiz, zh)
    reply = quiz.rounds.submit_answer(zh.id, alice, CODE, AnswerMode.CODE).reply
    assert reply.body == t("zh-CN", "code.pending")
    outage.back = True
    [delivery] = quiz.rounds.grade_pending()
    assert delivery.message.body.startswith(t("zh-CN", "code.pending_result",
                                              date=rnd.local_date.isoformat()))


def test_a_bot_without_an_executor_leaves_waiting_answers_waiting(quiz, channel, alice, store,
                                                                  bank, clock):
    channel, rnd = setup(quiz, channel)
    quiz.rounds.submit_answer(channel.id, alice, CODE, AnswerMode.CODE)
    restarted = build_quiz(store, bank, clock, None)  # started with TORCHQUIZ_EXECUTOR=none
    assert restarted.rounds.grade_pending() == []
    assert len(store.pending_for(rnd.id, alice.member.id)) == 1


def test_practice_code_while_grading_is_unavailable_uses_no_try(quiz, alice, clock):
    quiz.practice.store.start_practice(
        PracticeSession(alice.member.id, "t.code-double", 1, clock.now()))
    reply = quiz.practice.answer(alice.member, CODE, "en", AnswerMode.CODE)
    assert reply.body == t("en", "code.busy_practice")
    assert quiz.practice.store.current_practice(alice.member.id).attempts == 0


@dataclass
class RecordingPublisher:
    deliveries: list = field(default_factory=list)

    async def publish_round(self, post):
        return f"msg-{post.round.id}"

    async def publish_reveal(self, reveal):
        pass

    async def publish_board(self, channel, message):
        pass

    async def deliver_private(self, delivery):
        self.deliveries.append(delivery)


def test_the_scheduler_grades_waiting_answers_at_start_and_delivers_them(
        quiz, channel, alice, outage):
    channel, _ = setup(quiz, channel)
    quiz.rounds.submit_answer(channel.id, alice, CODE, AnswerMode.CODE)
    outage.back = True
    publisher = RecordingPublisher()

    async def scenario():
        sched = QuizScheduler(quiz, publisher, "console", AsyncIOScheduler(timezone=dt.UTC))
        await sched.start()
        job = sched.scheduler.get_job("pending")
        sched.scheduler.shutdown(wait=False)
        return job

    job = asyncio.run(scenario())
    assert job.trigger.interval == dt.timedelta(seconds=30)
    assert [d.member_external_id for d in publisher.deliveries] == [alice.member.external_id]


def test_the_console_prints_a_late_result_privately_to_its_member(quiz, channel, alice, outage):
    channel, _ = setup(quiz, channel)
    quiz.rounds.submit_answer(channel.id, alice, CODE, AnswerMode.CODE)
    outage.back = True
    out = io.StringIO()
    ConsoleChannel(quiz, out, channel_name=channel.external_id).deliver_pending()
    assert out.getvalue().startswith(f"[private to {alice.member.external_id}]")
    assert "Correct!" in out.getvalue()
