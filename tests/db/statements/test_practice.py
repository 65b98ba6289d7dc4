"""/quiz's statements, for a member with few cards and results and one with many."""

import datetime as dt

from bot.core.kernel.models import Review
from tests.db.statements.counting import NOW, SMALL, history, sent_by


def test_practice_sends_the_same_statements_whatever_the_members_cards(quiz, store):
    past = history(store, "small", *SMALL)
    few, many = past.members[0], past.members[1]
    for n in range(30):  # cards and results of items the bank no longer has, and of its own
        store.save_review(Review(user_id=many.id, item_id=f"gone.{n}", state=2, step=None,
                                 stability=3.0, difficulty=5.0,
                                 due_at=NOW + dt.timedelta(days=n + 1), reviewed_at=NOW,
                                 last_correct=True))
        store.record_practice_result(many.id, f"gone.{n}", 1, n % 2 == 0, NOW, first_try=True)
    sent = [sent_by(store.engine, lambda m=m: quiz.practice.start(m, None, "en", workspace="ws"))
            for m in (few, many)]
    assert sent[0].statements == sent[1].statements
    assert sent[0].transactions == sent[1].transactions
    # The open question, the open rounds' items and the cards in one read; the results;
    # opening the question.
    assert (dict(sent[1].statements), sent[1].transactions) == ({"SELECT": 5, "INSERT": 1}, 3)
