"""The core's front desk: one call per chat request, resolved from a neutral identity."""

import contextlib

import pytest
from sqlalchemy import event

from bot.core.desk import Desk
from bot.core.kernel.models import Identity
from tests.support.core import only


def member(user="U1", *, admin=False, locale="en", channel="general", name="Alice"):
    return Identity(platform="console", workspace="ws", channel=channel, user=user,
                    display_name=name, locale=locale, is_admin=admin, channel_name=channel)


@contextlib.contextmanager
def transactions(store):
    """Count the database transactions begun inside the block (reads and writes alike)."""
    begun = []
    # The store's read-only engine is an option view of this one: it shares these listeners.
    engines = [store.engine]

    def on_begin(connection):
        begun.append(connection)

    for engine in engines:
        event.listen(engine, "begin", on_begin)
    try:
        yield begun
    finally:
        for engine in engines:
            event.remove(engine, "begin", on_begin)


def posted(quiz, channel, item="t.choice-view"):
    channel = only(quiz, channel, item)
    return quiz.rounds.post_round(channel.id).round


def test_a_click_answers_the_round_it_names_in_one_desk_call(quiz, channel):
    rnd = posted(quiz, channel)
    reply = Desk(quiz).click(member(channel="elsewhere"), f"tq:answer:{rnd.id}:B")
    assert "+15" in reply.message.body
    assert reply.redraw_round == rnd.id
    assert quiz.rounds.tally_line(rnd.id, "en") == "1 solved · 1 answered"


@pytest.mark.parametrize("item, action", [
    ("t.choice-view", "tq:answer:{round}:B"),
    ("t.choice-view", "tq:answer:{round}:C"),
])
def test_an_answer_costs_at_most_three_storage_transactions(quiz, channel, store, item, action):
    # Who, the round and its channel (resolve); the member's tries and card; the answer with
    # its totals and the card's update.
    rnd = posted(quiz, channel, item)
    desk = Desk(quiz)
    with transactions(store) as begun:
        reply = desk.click(member(), action.format(round=rnd.id))
    assert reply.message is not None
    assert len(begun) <= 3


def test_a_repeated_answer_is_not_recorded_and_does_not_redraw(quiz, channel):
    rnd = posted(quiz, channel)
    desk = Desk(quiz)
    desk.click(member(), f"tq:answer:{rnd.id}:B")
    again = desk.click(member(), f"tq:answer:{rnd.id}:B")
    assert again.redraw_round is None
    assert "already" in again.message.body


@pytest.mark.parametrize("action_id", [
    "tq:answer:abc:A", "tq:answer:1e3:A", "tq:answer:99999999999999999999999:A",
    "tq:answer:0:A", "tq:answer:-1:A", "tq:answer:١٢:A", "tq:answer:12:A:extra", "",
    "tq:share:" + "x" * 300 + ":card", "tq:nope:1:A", "tq:answer:12:\x00",
])
def test_a_hostile_action_id_gets_a_clear_reply_and_touches_nothing(quiz, channel, store,
                                                                    action_id):
    rnd = posted(quiz, channel)
    reply = Desk(quiz).click(member(), action_id)
    assert reply.message is not None and reply.message.body
    assert quiz.rounds.tally_line(rnd.id, "en") == "0 solved · 0 answered"


def test_a_round_that_does_not_exist_is_told_not_raised(quiz, channel):
    reply = Desk(quiz).click(member(), "tq:answer:2147483647:A")
    assert "no open question" in reply.message.body


def test_a_reply_speaks_the_channels_language_and_outside_one_the_members(quiz, channel):
    desk = Desk(quiz)
    quiz.setup.apply(channel, desk.resolve(member(admin=True))[1], {"lang": "zh-CN"})
    inside = desk.command(member(locale="en"), "explain", "detach")
    outside = desk.command(member(locale="en", channel="nowhere"), "explain", "detach")
    assert inside.locale == "zh-CN" and outside.locale == "en"


def test_looking_at_settings_creates_no_channel_and_only_an_admin_creates_one(quiz, store):
    desk = Desk(quiz)
    looked = desk.settings(member(channel="new"), "", "", {})
    denied = desk.settings(member(channel="new"), "", "", {"time": "08:00"})
    assert store.find_channel("console", "new") is None
    assert "permission" in denied.message.body.lower() or "admin" in denied.message.body.lower()
    assert looked.message is not None
    saved = desk.settings(member(channel="new", admin=True), "", "", {"time": "08:00"})
    assert store.find_channel("console", "new").post_time.hour == 8
    assert saved.message.fields


def test_a_command_over_the_length_rule_is_refused_before_any_work(quiz, channel):
    reply = Desk(quiz).command(member(), "explain", "x" * 501)
    assert "500" in reply.message.body


def test_the_apology_needs_no_database(quiz):
    assert "wrong" in Desk.apology(member(locale="en")).body.lower()
    assert Desk.apology(member(locale="zh-CN")).body != Desk.apology(member(locale="en")).body


def test_a_practice_question_costs_three_storage_transactions(quiz, channel, store):
    # /quiz's hot path: the open question, the open rounds' items and the cards in one read,
    # the results (nothing due yet), and opening the question.
    alice = quiz.rounds.member("console", "alice", "Alice")
    with transactions(store) as begun:
        message = quiz.practice.start(alice, "tensors", "en", workspace="ws")
    assert message.buttons or message.code or message.body
    assert len(begun) == 3
