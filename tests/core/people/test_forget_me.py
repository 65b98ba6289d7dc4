"""/forget-me: what would go, the confirmation bound to the clicking member, what went."""

import pytest

from bot.core.desk import Desk
from bot.core.kernel.messages import forget_action, parse_action
from bot.core.kernel.models import Identity
from bot.core.people.service import owner_tag
from tests.support.core import only


def member(user="alice", *, name="Alice", channel="general", locale="en"):
    return Identity(platform="console", workspace="ws", channel=channel, user=user,
                    display_name=name, locale=locale, channel_name=channel)


@pytest.fixture
def played(quiz, channel):
    """Alice (wrong) and Bob (right) answered today's round; Alice also practises."""
    rnd = quiz.rounds.post_round(only(quiz, channel, "t.choice-view").id).round
    desk = Desk(quiz)
    desk.click(member(), f"tq:answer:{rnd.id}:A")  # wrong: her one try, and a review card
    desk.click(member("bob", name="Bob"), f"tq:answer:{rnd.id}:B")
    desk.command(member(), "quiz", "")
    return rnd


def _confirm(reply):
    return next(b.action_id for b in reply.message.buttons if b.action_id.endswith(":yes"))


def test_asking_lists_what_would_be_deleted_and_deletes_nothing(quiz, store, played):
    reply = Desk(quiz).forget_me(member(), confirmed=False)
    assert "1 answer, your totals in 1 channel, 1 weekly total, your practice question in " \
           "progress, 1 review card." in reply.message.body
    assert [b.label for b in reply.message.buttons] == ["Delete my data", "Cancel"]
    assert store.member_data("console", "alice").counts()["answers"] == 1


def test_the_command_only_asks_even_with_a_yes(quiz, store, played):
    reply = Desk(quiz).command(member(), "forget-me", "yes")
    assert reply.message.buttons
    assert store.member_data("console", "alice").counts()["answers"] == 1


def test_confirming_deletes_and_says_what_was_deleted(quiz, store, played):
    desk = Desk(quiz)
    reply = desk.click(member(), _confirm(desk.forget_me(member(), confirmed=False)))
    # Her one try stays without her (the round is open): her totals and the rest go.
    assert reply.message.body.startswith("Deleted your totals in 1 channel, ")
    assert store.member_data("console", "alice") is None
    assert reply.redraw_round == played.id  # the round's post shows a tally without her
    assert quiz.rounds.tally_line(played.id, "en") == "1 solved · 1 answered"


def test_a_second_click_after_deletion_says_nothing_is_left(quiz, store, played):
    desk = Desk(quiz)
    confirm = _confirm(desk.forget_me(member(), confirmed=False))
    desk.click(member(), confirm)
    again = desk.click(member(), confirm)
    assert again.message.body == "Nothing is stored about you: there is nothing to delete."
    assert store.member_data("console", "alice") is None  # asking registered no one


def test_another_members_click_on_the_confirmation_deletes_nobody(quiz, store, played):
    desk = Desk(quiz)
    alices = _confirm(desk.forget_me(member(), confirmed=False))
    reply = desk.click(member("bob", name="Bob"), alices)
    assert reply.message.body == "This button was offered to someone else; nothing was deleted."
    assert store.member_data("console", "alice").counts()["answers"] == 1
    assert store.member_data("console", "bob").counts()["answers"] == 1


def test_cancel_deletes_nothing(quiz, store, played):
    reply = Desk(quiz).click(member(), forget_action(owner_tag("console", "alice"), "no"))
    assert reply.message.body == "Nothing was deleted."
    assert store.member_data("console", "alice").counts()["answers"] == 1


def test_the_same_user_id_on_another_platform_has_another_button():
    assert owner_tag("console", "alice") != owner_tag("slack", "alice")


def test_a_member_who_only_looked_can_delete_their_name(quiz, store, channel):
    desk = Desk(quiz)
    desk.command(member(), "leaderboard", "")
    preview = desk.forget_me(member(), confirmed=False)
    assert "only your name and id" in preview.message.body
    done = desk.forget_me(member(), confirmed=True)
    assert done.message.body == "Deleted your name and id; nothing else was stored about you."


def test_the_words_follow_the_channels_language(quiz, store, played, channel):
    quiz.setup.apply(channel, _admin(quiz), {"lang": "zh-CN"})
    reply = Desk(quiz).forget_me(member(), confirmed=False)
    assert "1 条答题记录" in reply.message.body
    assert [b.label for b in reply.message.buttons] == ["删除我的数据", "取消"]


def _admin(quiz):
    from bot.core.kernel.models import Actor

    return Actor(quiz.rounds.member("console", "root", "Root"), is_admin=True)


@pytest.mark.parametrize("action_id", [
    "tq:forget:me:yes", "tq:forget:0123456789abcdef:maybe", "tq:forget:0123456789ABCDEF:yes",
    "tq:forget:0123456789abcde:yes", "tq:forget:0123456789abcdef0:yes",
])
def test_the_parser_refuses_a_forget_id_that_is_not_ours(action_id):
    assert parse_action(action_id) is None


def test_the_parser_reads_a_forget_id_we_made():
    tag = owner_tag("slack", "U1")
    assert parse_action(forget_action(tag, "yes")) == ("forget", tag, "yes")


# A forgotten member's tries at an open round stay as anonymous facts: forgetting is no restart.

def _forget(desk, who):
    return desk.click(who, _confirm(desk.forget_me(who, confirmed=False)))


def test_forgetting_after_a_wrong_choice_does_not_give_the_try_back(quiz, store, played):
    desk = Desk(quiz)
    done = _forget(desk, member())
    assert "answer it again and you go on from your next try" in done.message.body
    again = desk.click(member(), f"tq:answer:{played.id}:B")
    assert "used all your tries" in again.message.body
    assert store.member_data("console", "alice").counts()["answers"] == 0
    assert quiz.rounds.tally_line(played.id, "en") == "1 solved · 1 answered"


def test_forgetting_after_a_wrong_text_try_goes_on_from_the_next_try(quiz, store, channel):
    rnd = quiz.rounds.post_round(only(quiz, channel, "t.text-detach").id).round
    alice = quiz.rounds.member("console", "alice", "Alice")
    from bot.core.kernel.models import Actor

    assert quiz.rounds.submit_answer(channel.id, Actor(alice), "clone").recorded
    _forget(Desk(quiz), member())
    back = Actor(quiz.rounds.member("console", "alice", "Alice"))
    right = quiz.rounds.submit_answer(channel.id, back, "detach")
    assert "+17" in right.reply.body  # a second try's points, not the first try's +25
    [stored] = store.answers_for(rnd.id, back.member.id)
    assert (stored.attempt, stored.points) == (2, 17)
    [board] = store.top_scores(channel.id, None, None)
    assert (board.display_name, board.points, board.first_try) == ("Alice", 17, 0)


def test_the_forgotten_wrong_try_still_counts_in_the_item_statistics(quiz, store, played):
    before = {(t.item_id, t.version): t.answered for t in store.item_tallies()}
    _forget(Desk(quiz), member())
    after = {(t.item_id, t.version): t.answered for t in store.item_tallies()}
    assert after == before


def test_the_kept_note_is_in_chinese_too(quiz, store, played, channel):
    quiz.setup.apply(channel, _admin(quiz), {"lang": "zh-CN"})
    done = _forget(Desk(quiz), member())
    assert "再次作答时将从你的下一次尝试继续" in done.message.body
