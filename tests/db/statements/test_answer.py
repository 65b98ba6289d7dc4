"""An answer's statements and transactions, over a small history and a large one."""

import pytest

from bot.core.desk import Desk
from bot.core.kernel.models import Identity
from tests.db.statements.counting import LARGE, SMALL, history, sent_by


def _click(desk, past, key):
    member = past.members[0]
    who = Identity(platform="console", workspace="ws", channel=past.channel.external_id,
                   user=member.external_id, display_name=member.display_name, locale="en",
                   is_admin=False, channel_name=past.channel.name)
    return lambda: desk.click(who, f"tq:answer:{past.today.id}:{key}")


# What one click sends, per database (PostgreSQL writes the answer, its totals and the card in
# one statement): a change that adds or removes a statement updates this. SQLite's seventh
# INSERT adds the answer to its item's topics (topic_totals, one statement for every topic).
PINNED = {
    "sqlite": ({"SELECT": 6, "INSERT": 7}, 3),
    "postgresql": ({"SELECT": 7, "INSERT": 1, "WITH": 1}, 3),
}


@pytest.mark.parametrize("key", ["B", "C"], ids=["right", "wrong"])
def test_an_answer_sends_the_same_statements_whatever_the_history(quiz, store, key):
    small, large = history(store, "small", *SMALL), history(store, "large", *LARGE)
    desk = Desk(quiz)
    sent = [sent_by(store.engine, _click(desk, past, key)) for past in (small, large)]
    assert sent[0].statements == sent[1].statements
    assert sent[0].transactions == sent[1].transactions
    pinned = PINNED[store.engine.dialect.name]
    assert (dict(sent[1].statements), sent[1].transactions) == pinned
