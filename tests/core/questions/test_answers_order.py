"""Options are shown in an order drawn per round and per practice session, never as stored.

A member who answers by a rule that never reads the question (always the first letter, always
the longest option) must score no better than chance plus a little; every replica shows a
round's options alike; the reveal names the letter the round showed; the store keeps the
option's key, not the letter.
"""

import datetime as dt

import pytest

from bot.core.kernel.models import AnswerMode, Round, RoundStatus
from bot.core.learning.practice import session_seed
from bot.core.questions.answers import judge, round_seed
from bot.core.quiz import build_quiz
from content.loader import BANK_ROOT, Bank, load_bank
from content.options import display_order
from content.schema import ChoiceItem
from db.engine import make_engine
from db.store import SqlStore
from tests.support.core import only, shown

ROUNDS_PER_ITEM = 12
OPENED = dt.datetime(2026, 3, 2, 7, 0, 0, 123456, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def shipped_choices():
    bank = load_bank(BANK_ROOT)
    return [q for _, q in sorted(bank.questions.items()) if isinstance(q, ChoiceItem)]


def _rounds(item):
    """Yield the rounds a channel might get ``item`` in: each its own id and opening time."""
    for n in range(ROUNDS_PER_ITEM):
        opened = OPENED + dt.timedelta(days=n, microseconds=n)
        yield Round(1000 + n, 1, opened.date(), item.id, item.version, RoundStatus.OPEN,
                    opened, opened + dt.timedelta(hours=23))


def _score(items, letter_for):
    """Return the share of rounds a member scores by typing ``letter_for(item, seed)``."""
    tries = right = 0
    for item in items:
        for rnd in _rounds(item):
            seed = round_seed(rnd)
            judgement = judge(item, letter_for(item, seed), AnswerMode.TEXT, "en", None, seed)
            assert judgement.counts
            tries += 1
            right += judgement.correct
    return right / tries


def _chance(items):
    return sum(1 / len(q.choices) for q in items) / len(items)


def test_always_the_first_shown_letter_scores_about_chance_over_the_shipped_bank(
    shipped_choices,
):
    score = _score(shipped_choices, lambda item, seed: "A")
    # Stored order gave 88 % (87 of 99 keys were A); chance is about 28 %.
    assert score <= 0.40
    assert abs(score - _chance(shipped_choices)) < 0.05


def test_every_stored_letter_scores_about_chance_when_typed_blind(shipped_choices):
    """A member who learnt "it is usually A" in stored terms gains nothing from any letter."""
    for letter in "ABC":
        assert _score(shipped_choices, lambda item, seed, letter=letter: letter) <= 0.40


def _longest_shown(item, seed):
    sizes = [(len(c.text.en.strip()), shown) for shown, c in display_order(item, seed).labelled()]
    return max(sizes)[1]


def test_always_the_longest_option_scores_no_better_than_chance_plus_a_little(shipped_choices):
    score = _score(shipped_choices, _longest_shown)
    assert score <= _chance(shipped_choices) + 0.15


def _options(message):
    """Return a practice question's option buttons (not its Skip)."""
    return [b for b in message.buttons if b.action_id.startswith("tq:practice:")]


def _practise_blind(store, clock, shipped_choices, pick_letter, members=4, questions=30):
    """Let members each practise ``questions`` shipped choice questions, picking blind."""
    quiz = build_quiz(store, Bank(questions={q.id: q for q in shipped_choices}), clock)
    right = 0
    for n in range(members):
        member = quiz.rounds.member("console", f"blind-{n}", f"Blind {n}")
        for _ in range(questions):
            message = quiz.practice.start(member, None, "en")
            item = quiz.practice.bank.question(store.current_practice(member.id).item_id)
            reply = quiz.practice.answer(member, pick_letter(item, message), "en")
            right += "Correct" in reply.body
    return right / (members * questions)


def test_practising_with_always_the_first_letter_scores_about_chance(
    store, clock, shipped_choices
):
    score = _practise_blind(store, clock, shipped_choices, lambda item, message: "A")
    assert score <= 0.40


def _longest_on_the_post(item, message):
    texts = {c.key: c.text.en.strip() for c in item.choices}
    return max((len(texts[b.action_id.rsplit(":", 1)[1]]), b.label)
               for b in _options(message))[1]


def test_practising_with_always_the_longest_option_scores_no_better_than_chance_plus_a_little(
    store, clock, shipped_choices
):
    score = _practise_blind(store, clock, shipped_choices, _longest_on_the_post)
    assert score <= _chance(shipped_choices) + 0.15


def test_the_shuffle_draws_orders_that_are_not_the_stored_one(shipped_choices):
    item = shipped_choices[0]
    orders = {tuple(c.key for c in display_order(item, round_seed(r)).choices)
              for r in _rounds(item)}
    assert len(orders) > 1


def _post(quiz, channel):
    posted = quiz.rounds.post_round(channel.id)
    assert posted is not None
    return posted


def _shuffled_round(quiz, channel, clock):
    """Post rounds day after day until one shows option B under another letter; return it."""
    for _ in range(30):
        posted = _post(quiz, channel)
        if shown(posted.message, "B") != "B":
            return posted
        clock.advance(days=1)
    raise AssertionError("thirty rounds in a row showed option B as B")


def test_typed_letter_is_read_in_the_rounds_order_and_the_key_is_stored(
    quiz, channel, alice, clock, store
):
    channel = only(quiz, channel, "t.choice-view")
    posted = _shuffled_round(quiz, channel, clock)
    letter = shown(posted.message, "B")  # reshape, the correct option
    assert f"{letter}. reshape" in posted.message.body
    outcome = quiz.rounds.submit_answer(channel.id, alice, letter)
    assert outcome.recorded and "+15" in outcome.reply.body
    [stored] = store.answers_for(posted.round.id, alice.member.id)
    assert stored.response == "B" and stored.correct


def test_typing_the_stored_letter_of_the_right_option_is_wrong_when_shown_elsewhere(
    quiz, channel, alice, clock, store
):
    channel = only(quiz, channel, "t.choice-view")
    posted = _shuffled_round(quiz, channel, clock)
    outcome = quiz.rounds.submit_answer(channel.id, alice, "B")
    assert outcome.recorded and "+15" not in outcome.reply.body
    wrong_key = next(b.action_id.rsplit(":", 1)[1] for b in posted.message.buttons
                     if b.label == "B")
    [stored] = store.answers_for(posted.round.id, alice.member.id)
    assert stored.response == wrong_key and not stored.correct
    assert "Why not B:" in outcome.reply.body


def test_button_carries_the_option_key_and_the_shown_letter(quiz, channel, alice, clock, store):
    channel = only(quiz, channel, "t.choice-view")
    posted = _shuffled_round(quiz, channel, clock)
    body_order = [line.split(". ", 1)[1] for line in posted.message.body.splitlines()
                  if line[:3] in ("A. ", "B. ", "C. ")]
    texts = {"A": "view", "B": "reshape", "C": "unsqueeze"}
    assert [texts[b.action_id.rsplit(":", 1)[1]] for b in posted.message.buttons] == body_order
    assert [b.label for b in posted.message.buttons] == ["A", "B", "C"]
    click = next(b for b in posted.message.buttons if b.label == shown(posted.message, "B"))
    key = click.action_id.rsplit(":", 1)[1]
    outcome = quiz.rounds.answer_round(posted.round.id, alice, key, AnswerMode.BUTTON)
    assert outcome.recorded and "+15" in outcome.reply.body
    [stored] = store.answers_for(posted.round.id, alice.member.id)
    assert stored.response == "B"


def test_two_independently_built_replicas_show_a_round_alike(
    quiz, channel, clock, bank, executor, database_url
):
    clock.set(dt.datetime(2026, 3, 2, 8, 0, 0, 654321, tzinfo=dt.UTC))  # a stored microsecond
    channel = only(quiz, channel, "t.choice-view")
    posted = _shuffled_round(quiz, channel, clock)
    quiz.rounds.round_posted(posted.round.id, "msg-1")
    engine = make_engine(database_url)
    try:
        replica = build_quiz(SqlStore(engine, clock=clock), bank, clock, executor)
        _, _, again = replica.rounds.post_for(posted.round.id)
    finally:
        engine.dispose()
    assert again.buttons == posted.message.buttons
    assert again.body == posted.message.body


def test_reveal_names_the_letters_the_round_showed(quiz, channel, clock):
    channel = only(quiz, channel, "t.choice-view")
    posted = _shuffled_round(quiz, channel, clock)
    clock.advance(hours=24)
    [reveal] = [r for r in quiz.rounds.close_due_rounds() if r.round.id == posted.round.id]
    assert f"Answer: {shown(posted.message, 'B')}. reshape" in reveal.message.body
    assert f"Why not {shown(posted.message, 'A')}: view never copies" in reveal.message.body
    assert f"Why not {shown(posted.message, 'C')}: unsqueeze" in reveal.message.body


def _practice_choice(quiz, member, store, clock):
    """Start practice sessions until one shows the choice question with B under another letter."""
    for _ in range(30):
        message = quiz.practice.start(member, "tensors", "en")
        session = store.current_practice(member.id)
        if session.item_id == "t.choice-view" and shown(message, "B") != "B":
            return message, session
        store.finish_practice(member.id, session.item_id)  # an open question would be re-shown
        clock.advance(days=1, minutes=1)  # practice picks anew each day
    raise AssertionError("no practice session showed the choice question shuffled")


def test_practice_reads_letters_in_the_sessions_order(quiz, alice, store, clock):
    clock.set(dt.datetime(2026, 3, 2, 8, 0, 0, 4321, tzinfo=dt.UTC))
    message, session = _practice_choice(quiz, alice.member, store, clock)
    item = quiz.practice.bank.question("t.choice-view")
    # The order is derived from the stored session alone, so any replica reads it the same.
    stored_order = display_order(item, session_seed(session))
    assert [b.label for b in _options(message)] == list(stored_order.letters)
    assert [b.action_id.rsplit(":", 1)[1] for b in _options(message)] == [
        c.key for c in stored_order.choices]
    letter = shown(message, "B")
    reply = quiz.practice.answer(alice.member, letter, "en")
    assert "Correct" in reply.body and f"{letter}. reshape" in reply.body


def test_practice_wrong_letter_ends_with_the_answer_as_the_session_showed_it(
    quiz, alice, store, clock
):
    message, _ = _practice_choice(quiz, alice.member, store, clock)
    reply = quiz.practice.answer(alice.member, shown(message, "A"), "en")
    assert f"Why not {shown(message, 'A')}: view never copies" in reply.body
    assert f"Answer: {shown(message, 'B')}. reshape" in reply.body
