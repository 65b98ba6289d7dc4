"""/quiz on a real database: private, unscored, and it brings back what a member missed."""

from bot.core.kernel.models import AnswerMode
from tests.support.core import only, shown


def test_practice_is_private_and_unscored(quiz, channel, alice, store):
    message = quiz.practice.start(alice.member, "autograd", "en")
    assert message.audience == "private"
    session = store.current_practice(alice.member.id)
    item = quiz.practice.bank.question(session.item_id)
    answer = item.accepted[0]
    reply = quiz.practice.answer(alice.member, answer, "en")
    assert "Correct" in reply.body
    assert store.scores(channel.id) == []


def test_missed_daily_question_comes_back_in_practice_once_its_round_closes(quiz, channel, alice,
                                                                           clock):
    channel = only(quiz, channel, "t.choice-view")
    posted = quiz.rounds.post_round(channel.id)
    missed = quiz.rounds.submit_answer(channel.id, alice, shown(posted.message, "A"))
    assert missed.recorded and "view never copies" in missed.reply.body
    clock.advance(minutes=1)  # a new item missed is due again after a one-minute step
    waiting = quiz.practice.start(alice.member, None, "en", workspace="ws")
    assert "Which call may copy?" not in waiting.body  # the round is open: not yet
    clock.advance(hours=24)
    quiz.rounds.close_due_rounds()
    # Skipping the question served meanwhile brings the most overdue review: the missed one.
    message = quiz.practice.skip(alice.member, "en", workspace="ws")
    assert "Review · due since" in message.body
    assert quiz.rounds.store.current_practice(alice.member.id).item_id == "t.choice-view"
    assert "Which call may copy?" in message.body


def test_practice_wrong_answers_end_with_the_answer_and_a_review(quiz, alice, store):
    message = quiz.practice.start(alice.member, "tensors", "en")
    session = store.current_practice(alice.member.id)
    item = quiz.practice.bank.question(session.item_id)
    if item.kind == "choice":
        wrong = next(c.key for c in item.choices if not c.correct)
        reply = quiz.practice.answer(alice.member, shown(message, wrong), "en")
    else:
        for _ in range(3):
            reply = quiz.practice.answer(alice.member, "(9, 9, 9)", "en")
    assert "Answer:" in reply.body
    review = store.get_review(alice.member.id, item.id)
    assert review.state == 1 and not review.last_correct  # FSRS learning: back within minutes
    assert store.current_practice(alice.member.id) is None


def test_answer_without_practice_says_how_to_start(quiz, alice):
    assert "/quiz" in quiz.practice.answer(alice.member, "B", "en").body


def test_unknown_practice_topic_lists_topics(quiz, alice):
    message = quiz.practice.start(alice.member, "astrology", "en")
    assert "autograd" in message.body and "tensors" in message.body


def test_stale_practice_button_is_ignored(quiz, alice):
    quiz.practice.start(alice.member, "autograd", "en")
    reply = quiz.practice.answer(alice.member, "A", "en", AnswerMode.BUTTON, item_id="t.other")
    assert "no practice question open" in reply.body



def _practise_code(quiz, alice, store, clock):
    """Open a practice session on the code question and answer it wrongly once."""
    from bot.core.kernel.models import PracticeSession

    store.start_practice(PracticeSession(alice.member.id, "t.code-double", 1, clock.now()))
    quiz.practice.answer(alice.member, "def double(x): return x", "en", AnswerMode.CODE)


def test_each_practice_session_draws_its_own_hidden_tests(quiz, alice, store, executor, clock):
    from tests.support.core import FakeVerdict

    executor.verdict = FakeVerdict("failed", 0, 3, "test 1 of 3: values differ")
    _practise_code(quiz, alice, store, clock)
    quiz.practice.answer(alice.member, "def double(x): return x", "en", AnswerMode.CODE)
    first_session = executor.seeds[-2:]
    clock.advance(minutes=5)
    _practise_code(quiz, alice, store, clock)
    assert first_session[0] == first_session[1]  # tries within a session: the same tests
    assert executor.seeds[-1] != first_session[0]  # a new session: new tests


def _practice_text(quiz, alice, store, *, misses: int):
    """Answer one autograd practice question (a text item) after ``misses`` wrong tries."""
    quiz.practice.start(alice.member, "autograd", "en")
    item = quiz.practice.bank.question(store.current_practice(alice.member.id).item_id)
    for _ in range(misses):
        assert "tries left" in quiz.practice.answer(alice.member, "astrology", "en").body
    assert "Correct" in quiz.practice.answer(alice.member, item.accepted[0], "en").body
    return item


def test_a_practice_solve_after_a_miss_is_not_mastery(quiz, channel, alice, store):
    _practice_text(quiz, alice, store, misses=1)
    [autograd] = quiz.board.stats(channel, alice.member).mastery
    assert (autograd.first_try, autograd.solved, autograd.attempted) == (0, 1, 1)


def test_a_practice_solve_on_the_first_try_is_mastery(quiz, channel, alice, store):
    _practice_text(quiz, alice, store, misses=0)
    [autograd] = quiz.board.stats(channel, alice.member).mastery
    assert (autograd.first_try, autograd.solved, autograd.attempted) == (1, 1, 1)


def test_a_chinese_channel_names_the_topic_in_chinese_and_takes_it_typed_so(quiz, alice):
    message = quiz.practice.start(alice.member, "自动求导", "zh-CN")
    assert message.title == "练习 · 自动求导"
    assert "autograd" not in message.title
