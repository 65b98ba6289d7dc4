"""/quiz holds back the question of an open daily round: practice never leaks a round's answer."""

import pytest

from bot.core.kernel.models import Actor, AnswerMode
from tests.support.core import only, shown


@pytest.fixture
def today(quiz, channel):
    """Today's round in the channel of workspace "ws", on the text question t.text-shape."""
    channel = only(quiz, channel, "t.text-shape")
    return quiz.rounds.post_round(channel.id)


def test_practice_never_serves_an_open_rounds_question_to_a_member_who_has_not_answered(
        quiz, today, alice):
    message = quiz.practice.start(alice.member, "tensors", "en", workspace="ws")
    assert quiz.rounds.store.current_practice(alice.member.id).item_id != "t.text-shape"
    assert "Shape of torch.zeros" not in message.body


def test_practice_never_serves_an_open_rounds_question_to_a_member_with_tries_left(
        quiz, channel, today, alice, clock):
    wrong = quiz.rounds.submit_answer(channel.id, alice, "(9, 9)")
    assert "tries left" in wrong.reply.body  # the member can still score
    clock.advance(minutes=10)  # the review the miss made is due
    quiz.practice.start(alice.member, None, "en", workspace="ws")
    assert quiz.rounds.store.current_practice(alice.member.id).item_id != "t.text-shape"


def test_a_round_in_another_workspace_does_not_hold_its_question_back(quiz, today):
    stranger = Actor(quiz.rounds.member("console", "carol", "Carol"))
    quiz.practice.start(stranger.member, "tensors", "en", workspace="elsewhere")
    quiz.practice.start(stranger.member, "tensors", "en", workspace="elsewhere")
    served = set()
    for _ in range(3):  # every tensors item, in turn, by skipping
        served.add(quiz.rounds.store.current_practice(stranger.member.id).item_id)
        quiz.practice.skip(stranger.member, "en", workspace="elsewhere")
    assert "t.text-shape" in served


def test_a_round_where_the_member_answered_holds_its_question_back_from_any_workspace(
        quiz, channel, today, alice, clock):
    quiz.rounds.submit_answer(channel.id, alice, "(9, 9)")
    for _ in range(4):
        quiz.practice.start(alice.member, "tensors", "en", workspace="elsewhere")
        assert quiz.rounds.store.current_practice(alice.member.id).item_id != "t.text-shape"
        quiz.practice.skip(alice.member, "en", workspace="elsewhere")


def test_a_topic_whose_only_question_is_in_an_open_round_says_to_answer_there(
        quiz, channel, bob):
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    # autograd has t.text-detach (today's) and t.text-number: hold one, the other comes.
    first = quiz.practice.start(bob.member, "autograd", "en", workspace="ws")
    assert quiz.rounds.store.current_practice(bob.member.id).item_id == "t.text-number"
    assert "Practice" in first.title
    again = quiz.practice.skip(bob.member, "en", workspace="ws")
    assert quiz.rounds.store.current_practice(bob.member.id).item_id != "t.text-detach"
    assert "x.detach()" not in again.body


def test_an_open_practice_question_that_becomes_todays_round_is_not_judged(
        quiz, channel, alice, store, clock):
    from bot.core.kernel.models import PracticeSession

    store.start_practice(PracticeSession(alice.member.id, "t.text-shape", 1, clock.now()))
    quiz.rounds.post_round(only(quiz, channel, "t.text-shape").id)
    reply = quiz.practice.answer(alice.member, "(9, 9)", "en", AnswerMode.TEXT,
                                 workspace="ws")
    assert "daily round" in reply.body and "(2, 3)" not in reply.body
    assert store.current_practice(alice.member.id) is None
    assert store.get_review(alice.member.id, "t.text-shape") is None  # nothing moved


def test_choice_round_missed_is_not_practised_until_it_closes(quiz, channel, alice, clock):
    channel = only(quiz, channel, "t.choice-view")
    posted = quiz.rounds.post_round(channel.id)
    quiz.rounds.submit_answer(channel.id, alice, shown(posted.message, "A"))  # no tries left
    clock.advance(minutes=5)
    message = quiz.practice.start(alice.member, "tensors", "en", workspace="ws")
    assert "Which call may copy?" not in message.body
