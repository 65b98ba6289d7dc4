"""Migration 0006: the Leitner boxes become FSRS cards and nothing a member learned is lost."""

import datetime as dt

import pytest
import sqlalchemy as sa

from bot.core.questions.reviews import ReviewScheduler
from db import migrate
from db.engine import make_engine
from db.store import SqlStore

T0 = dt.datetime(2026, 11, 20, 9, tzinfo=dt.UTC)
# (item, box, due in days from T0, last correct)
LEITNER = [("a", 1, 0.04, False), ("b", 2, 2, True), ("c", 3, 4, True), ("d", 5, 16, True),
           ("e", 4, -3, True)]


def _leitner_database(url):
    migrate.upgrade(url, "0005")
    engine = make_engine(url)
    with engine.begin() as db:
        db.execute(sa.text("INSERT INTO users (id, platform, external_id, display_name) "
                           "VALUES (1, 'console', 'ada', 'Ada'), (2, 'console', 'bob', 'Bob')"))
        for user in (1, 2):
            for item, box, days, correct in LEITNER:
                db.execute(sa.text(
                    "INSERT INTO reviews (user_id, item_id, box, due_at, last_correct, "
                    "reviewed_at) VALUES (:u, :i, :b, :due, :ok, :at)"),
                    {"u": user, "i": item, "b": box, "due": T0 + dt.timedelta(days=days),
                     "ok": correct, "at": T0 - dt.timedelta(days=1)})
    return engine


def test_every_leitner_review_becomes_a_card_due_when_it_was_due(empty_database_url):
    engine = _leitner_database(empty_database_url)
    try:
        migrate.upgrade(empty_database_url)
        store = SqlStore(engine)
        for user in (1, 2):
            cards = {r.item_id: r for r in store.reviews(user)}
            assert sorted(cards) == ["a", "b", "c", "d", "e"]
            for item, _box, days, correct in LEITNER:
                card = cards[item]
                assert card.due_at == T0 + dt.timedelta(days=days)
                assert card.last_correct is correct
                assert card.reviewed_at == T0 - dt.timedelta(days=1)
            assert cards["a"].state == 1 and cards["a"].stability is None  # a miss: learning
            assert cards["b"].state == 2 and cards["b"].stability == 2.0
            assert cards["d"].state == 2 and cards["d"].stability == 16.0
    finally:
        engine.dispose()


def test_a_migrated_card_keeps_being_scheduled_by_fsrs(empty_database_url):
    engine = _leitner_database(empty_database_url)
    try:
        migrate.upgrade(empty_database_url)
        store = SqlStore(engine)
        card = store.get_review(1, "d")  # 16 days of stability, answered right when due
        after = ReviewScheduler().review(card, 1, "d", True, 0, card.due_at)
        assert after.due_at - card.due_at > dt.timedelta(days=16)
        missed = ReviewScheduler().review(card, 1, "d", False, 0, card.due_at)
        assert missed.due_at - card.due_at <= dt.timedelta(minutes=10)
    finally:
        engine.dispose()


@pytest.mark.parametrize("box", [1, 2, 3, 4, 5])
def test_the_downgrade_gives_back_the_box(empty_database_url, box):
    engine = _leitner_database(empty_database_url)
    try:
        migrate.upgrade(empty_database_url)
        migrate.downgrade(empty_database_url, "0005")
        with engine.connect() as db:
            boxes = dict(db.execute(sa.text(
                "SELECT item_id, box FROM reviews WHERE user_id = 1")).all())
        item = next(i for i, b, _, _ in LEITNER if b == box)
        assert boxes[item] == box
    finally:
        engine.dispose()
