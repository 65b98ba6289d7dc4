"""/quiz keeps an open practice question (its tries, its order); Skip ends it as a miss."""

from bot.core.kernel.models import PracticeSession


def _open(store, clock, member, item_id):
    store.start_practice(PracticeSession(member.id, item_id, 1, clock.now()))


def test_quiz_again_shows_the_open_question_with_its_tries_left(quiz, alice, store, clock):
    _open(store, clock, alice.member, "t.text-shape")
    wrong = quiz.practice.answer(alice.member, "(9, 9)", "en")
    assert "2 tries left" in wrong.body
    clock.advance(minutes=5)
    again = quiz.practice.start(alice.member, None, "en")
    assert "Still open · 2 tries left" in again.body and "Shape of torch.zeros" in again.body
    assert store.current_practice(alice.member.id).attempts == 1
    last = quiz.practice.answer(alice.member, "(8, 8)", "en")
    assert "1 try left" in last.body  # the tries go on; none came back


def test_quiz_again_keeps_the_option_order(quiz, alice, store, clock):
    _open(store, clock, alice.member, "t.choice-view")
    first = quiz.practice.start(alice.member, None, "en")
    for _ in range(4):
        clock.advance(hours=1)
        again = quiz.practice.start(alice.member, None, "en")
        assert again.buttons[:3] == first.buttons[:3]
        assert again.body.split("\n", 1)[1] == first.body.split("\n", 1)[1]


def test_quiz_with_the_open_questions_topic_shows_it_again(quiz, alice, store, clock):
    _open(store, clock, alice.member, "t.text-shape")
    again = quiz.practice.start(alice.member, "Tensors", "en")
    assert "Still open" in again.body
    assert store.current_practice(alice.member.id).item_id == "t.text-shape"


def test_another_topic_replaces_an_untried_question_and_says_so(quiz, alice, store, clock):
    _open(store, clock, alice.member, "t.text-shape")
    other = quiz.practice.start(alice.member, "autograd", "en")
    assert "replaces your open one on tensors" in other.body
    assert store.current_practice(alice.member.id).item_id in ("t.text-detach", "t.text-number")
    assert store.get_review(alice.member.id, "t.text-shape") is None  # set aside, not missed


def test_another_topic_after_a_wrong_try_counts_the_open_question_as_missed(
        quiz, alice, store, clock):
    _open(store, clock, alice.member, "t.text-shape")
    quiz.practice.answer(alice.member, "(9, 9)", "en")
    other = quiz.practice.start(alice.member, "autograd", "en")
    assert "you had tried it, so it counts as a miss" in other.body
    assert "Answer: `(2, 3)`" in other.body  # it can no longer be scored: its answer shows


def test_skip_counts_as_a_miss_shows_the_answer_and_serves_the_next(quiz, alice, store, clock):
    _open(store, clock, alice.member, "t.text-shape")
    reply = quiz.practice.skip(alice.member, "en")
    assert "Skipped: it counts as a miss" in reply.body and "Answer: `(2, 3)`" in reply.body
    review = store.get_review(alice.member.id, "t.text-shape")
    assert review.state == 1 and not review.last_correct  # FSRS: Again, back within minutes
    assert store.current_practice(alice.member.id).item_id != "t.text-shape"
    assert "Practice ·" in reply.title and any(b.label == "Skip" for b in reply.buttons)


def test_skip_of_a_code_question_shows_its_solution(quiz, alice, store, clock):
    _open(store, clock, alice.member, "t.code-double")
    reply = quiz.practice.skip(alice.member, "en")
    solution = quiz.practice.bank.question("t.code-double").code.solution.strip()
    assert solution.splitlines()[0] in reply.body


def test_skip_after_wrong_tries_moves_the_card_once(quiz, alice, store, clock):
    _open(store, clock, alice.member, "t.text-shape")
    quiz.practice.answer(alice.member, "(9, 9)", "en")
    after_miss = store.get_review(alice.member.id, "t.text-shape")
    quiz.practice.skip(alice.member, "en")
    assert store.get_review(alice.member.id, "t.text-shape") == after_miss


def test_a_stale_skip_button_skips_nothing(quiz, alice, store, clock):
    _open(store, clock, alice.member, "t.text-shape")
    reply = quiz.practice.skip(alice.member, "en", item_id="t.text-number")
    assert "no practice question open" in reply.body
    assert store.current_practice(alice.member.id).item_id == "t.text-shape"


def test_a_wrong_try_offers_skip(quiz, alice, store, clock):
    _open(store, clock, alice.member, "t.text-shape")
    wrong = quiz.practice.answer(alice.member, "(9, 9)", "en")
    assert wrong.buttons[0].action_id == "tq:pskip:t.text-shape:skip"


def test_skip_speaks_chinese(quiz, alice, store, clock):
    _open(store, clock, alice.member, "t.text-shape")
    reply = quiz.practice.skip(alice.member, "zh-CN")
    assert "已跳过" in reply.body and any(b.label == "跳过" for b in reply.buttons)
