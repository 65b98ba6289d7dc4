"""Live sessions at the desk: the command, the Join and answer buttons, the text form."""

import pytest

from bot.core.desk import Desk
from bot.core.kernel.messages import (
    live_answer_action,
    live_form_action,
    live_join_action,
    live_rank_action,
    parse_action,
    parse_submit,
    submit_id,
)
from bot.core.kernel.models import Identity
from tests.support.core import only


def who(user="U1", *, admin=False, channel="general", name="Alice"):
    return Identity(platform="console", workspace="ws", channel=channel, user=user,
                    display_name=name, locale="en", is_admin=admin, channel_name=channel)


@pytest.fixture
def desk(quiz):
    return Desk(quiz)


def _running(desk, quiz, channel, item="t.choice-view", **extra):
    only(quiz, channel, item)
    opened = desk.command(who(admin=True), "live", "start lobby=0 " +
                          " ".join(f"{k}={v}" for k, v in extra.items()))
    assert "lobby is posted" in opened.message.body, opened.message.body
    session = quiz.live.store.active_live(channel.id)
    quiz.live.advance("console")
    return session


def test_start_is_said_privately_and_a_member_is_refused(desk, quiz, channel):
    refused = desk.command(who("U2", name="Bob"), "live", "start")
    assert not refused.public and "Only an admin" in refused.message.body
    opened = desk.command(who(admin=True), "live", "start")
    assert not opened.public and "lobby is posted in the channel" in opened.message.body
    lobby = quiz.live.advance("console")[0].message
    assert "opened a live quiz" in lobby.body


def test_the_join_button_joins_once_and_a_double_click_is_told(desk, quiz, channel):
    desk.command(who(admin=True), "live", "start")
    session = quiz.live.store.active_live(channel.id)
    first = desk.click(who("U2", name="Bob"), live_join_action(session.id))
    second = desk.click(who("U2", name="Bob"), live_join_action(session.id))
    assert "You're in" in first.message.body and "joined already" in second.message.body
    assert len(quiz.live.store.live_players(session.id)) == 2


def test_a_double_click_on_an_answer_counts_once(desk, quiz, channel):
    session = _running(desk, quiz, channel)
    bob = who("U2", name="Bob")
    replies = [desk.click(bob, live_answer_action(session.id, 0, key)) for key in ("B", "A")]
    assert "Locked in" in replies[0].message.body
    assert "already" in replies[1].message.body
    assert [a.response for a in quiz.live.store.live_answers(session.id)] == ["B"]


def test_a_button_of_a_closed_question_is_told_closed(desk, quiz, channel):
    session = _running(desk, quiz, channel, questions=2, topics="autograd,tensors")
    desk.command(who(admin=True), "live", "skip")
    quiz.live.advance("console")
    late = desk.click(who("U2", name="Bob"), live_answer_action(session.id, 0, "B"))
    assert "closed" in late.message.body
    assert quiz.live.store.live_answers(session.id) == []


def test_a_button_of_another_channels_session_changes_nothing(desk, quiz, channel):
    session = _running(desk, quiz, channel)
    elsewhere = who("U2", name="Bob", channel="random")
    quiz.rounds.channel("console", "random", "ws")
    reply = desk.click(elsewhere, live_answer_action(session.id, 0, "B"))
    assert "over" in reply.message.body
    assert desk.click(elsewhere, live_join_action(session.id)).message.body == \
        "That live session is over."
    assert quiz.live.store.live_answers(session.id) == []


@pytest.mark.parametrize("forged", [
    "tq:live:1-0:B:extra", "tq:live:0-0:B", "tq:live:1-100:B", "tq:live:99999999999-0:B",
    "tq:live:1--1:B", "tq:live:1-0:" + "B" * 300, "tq:ljoin:1:leave", "tq:ljoin:1-0:join",
    "tq:lform:x-0:open", "tq:live:１-0:B", "tq:live:1-00:B", "tq:lrank:1:join",
    "tq:lrank:1-0:rank", "tq:lrank:0:rank", "tq:lrank:99999999999:rank", "tq:ljoin:1:rank",
])
def test_a_forged_or_oversized_live_id_is_not_ours(desk, forged):
    assert parse_action(forged) is None
    reply = desk.click(who(), forged)
    assert "not one of this bot's" in reply.message.body


def test_a_live_id_of_a_session_that_never_was_is_told_over(desk, quiz, channel):
    reply = desk.click(who(), live_answer_action(424242, 0, "B"))
    assert "over" in reply.message.body
    assert "over" in desk.click(who(), live_rank_action(424242)).message.body


def test_a_text_question_opens_its_form_and_the_form_answers_it(desk, quiz, channel):
    session = _running(desk, quiz, channel, item="t.text-detach")
    opened = desk.click(who("U2", name="Bob"), live_form_action(session.id, 0))
    assert opened.form is not None and not opened.form.code
    submitted = submit_id(opened.form)
    assert parse_submit(submitted) == ("lsubmit", f"{session.id}-0", "text")
    reply = desk.submit(who("U2", name="Bob"), submitted, "x.detach()")
    assert "Locked in" in reply.message.body
    assert [a.correct for a in quiz.live.store.live_answers(session.id)] == [True]


def test_a_code_submission_to_a_live_text_question_is_refused_and_counts_nothing(desk, quiz,
                                                                                channel):
    session = _running(desk, quiz, channel, item="t.text-detach")
    reply = desk.submit(who(), f"tq:lsubmit:{session.id}-0:code", "print(1)")
    assert "not code" in reply.message.body
    assert quiz.live.store.live_answers(session.id) == []
