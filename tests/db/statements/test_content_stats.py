"""`torchquiz content stats`: its statements, over few answers and many."""

from tests.db.statements.counting import LARGE, SMALL, history, sent_by


def test_content_stats_sends_the_same_statements_whatever_the_answers(quiz, store):
    history(store, "small", *SMALL)
    few = sent_by(store.engine, quiz.insights.stats)
    history(store, "large", *LARGE)
    many = sent_by(store.engine, quiz.insights.stats)
    assert few.statements == many.statements
    assert few.transactions == many.transactions
    # The sums, the open reports, the paused set.
    assert (dict(many.statements), many.transactions) == ({"SELECT": 3}, 3)
