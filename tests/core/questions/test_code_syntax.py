"""Code that does not compile is refused before it counts: no try, no points, the line shown."""

import pytest

from bot.core.kernel.models import Actor, AnswerMode, PracticeSession
from bot.core.questions.answers import MAX_CODE_CHARS
from tests.support.core import only

BROKEN = "def double(x):\n    return x *\n"
RIGHT = "def double(x):\n    return x * 2\n"


@pytest.fixture
def code_round(quiz, channel):
    channel = only(quiz, channel, "t.code-double")
    return channel, quiz.rounds.post_round(channel.id).round


def test_code_that_does_not_compile_uses_no_try_and_names_the_line(
        quiz, code_round, alice, executor, store):
    channel, rnd = code_round
    outcome = quiz.rounds.submit_answer(channel.id, alice, BROKEN, AnswerMode.CODE)
    assert not outcome.recorded
    assert "does not compile (line 2, column" in outcome.reply.body
    assert "did not use a try" in outcome.reply.body
    assert "invalid syntax" in outcome.reply.detail  # the compiler's words: shown inert
    assert executor.runs == [] and store.answers_for(rnd.id, alice.member.id) == []


def test_after_a_syntax_error_the_first_right_answer_still_earns_the_first_try_bonus(
        quiz, code_round, alice):
    channel, _ = code_round
    quiz.rounds.submit_answer(channel.id, alice, BROKEN, AnswerMode.CODE)
    outcome = quiz.rounds.submit_answer(channel.id, alice, RIGHT, AnswerMode.CODE)
    assert outcome.recorded and "+25" in outcome.reply.body


def test_a_bad_indent_is_refused_with_its_line(quiz, code_round, alice, executor):
    channel, _ = code_round
    outcome = quiz.rounds.submit_answer(channel.id, alice, "def double(x):\nreturn x\n",
                                        AnswerMode.CODE)
    assert not outcome.recorded and "(line 2, column" in outcome.reply.body
    assert executor.runs == []


@pytest.mark.parametrize("code", [
    "-" * (MAX_CODE_CHARS - 1) + "1",  # the compiler runs out of recursion
    "(" * 1500 + ")" * 1500,  # the parser's nesting limit
])
def test_code_nested_too_deeply_to_compile_is_refused_not_crashed(
        quiz, code_round, alice, executor, code):
    channel, _ = code_round
    outcome = quiz.rounds.submit_answer(channel.id, alice, code, AnswerMode.CODE)
    assert not outcome.recorded and "did not use a try" in outcome.reply.body
    assert executor.runs == []


def test_the_refusal_speaks_chinese_too(quiz, code_round, alice):
    channel, _ = code_round
    actor = Actor(alice.member, locale="zh-CN")
    outcome = quiz.rounds.submit_answer(channel.id, actor, BROKEN, AnswerMode.CODE)
    assert "你的代码无法编译（第 2 行" in outcome.reply.body


def test_practice_code_that_does_not_compile_uses_no_try(quiz, alice, store, executor, clock):
    store.start_practice(PracticeSession(alice.member.id, "t.code-double", 1, clock.now()))
    reply = quiz.practice.answer(alice.member, BROKEN, "en", AnswerMode.CODE)
    assert "does not compile (line 2, column" in reply.body
    assert executor.runs == []
    assert store.current_practice(alice.member.id).attempts == 0
    assert store.get_review(alice.member.id, "t.code-double") is None
