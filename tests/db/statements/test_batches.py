"""The minute's batches: the daily posts of many channels, the reminders of many members."""

import datetime as dt

import pytest

from bot.core.kernel.models import ChannelDefaults, Review
from tests.db.statements.counting import NOW, sent_by


def _channels(quiz, prefix, count):
    return [quiz.rounds.channel("console", f"{prefix}{n}", "ws",
                                ChannelDefaults(name=f"{prefix}{n}", timezone="Europe/Berlin")).id
            for n in range(count)]


def test_a_fan_out_batch_sends_the_same_statements_for_five_channels_and_forty(quiz, store):
    few, many = _channels(quiz, "few", 5), _channels(quiz, "many", 40)
    sent = [sent_by(store.engine, lambda ids=ids: quiz.rounds.post_rounds(ids))
            for ids in (few, many)]
    assert sent[0].statements == sent[1].statements
    assert sent[0].transactions == sent[1].transactions
    # The channels, the rounds taken, the items used, the paused items, one INSERT: none per
    # channel.
    assert (dict(sent[1].statements), sent[1].transactions) == ({"SELECT": 4, "INSERT": 1}, 5)


@pytest.mark.parametrize("count", [5, 40])
def test_a_reminder_batch_sends_two_statements_whatever_its_members(quiz, store, clock, count):
    [channel] = _channels(quiz, "c", 1)
    settings = quiz.rounds.get_channel(channel)
    for n in range(count):
        member = store.ensure_member("console", f"m{n}", f"M{n}")
        quiz.reminders.turn_on(member, settings, 18, "en")
        store.save_review(Review(user_id=member.id, item_id="t.text-detach", state=1, step=0,
                                 stability=None, difficulty=None, due_at=NOW,
                                 reviewed_at=NOW, last_correct=False))
    clock.set(dt.datetime(2026, 3, 8, 17, 0, tzinfo=dt.UTC))  # 18:00 in Berlin
    with_nudges = sent_by(store.engine, lambda: quiz.reminders.due("console", batch=count))
    # One batch: its read (reminders due with each member's due count) and its claim, then the
    # read that finds none left.
    assert with_nudges.statements == {"SELECT": 2, "UPDATE": 1}
