"""SqlStore practice sessions and reviews, on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt

from bot.core.kernel.models import (
    Member,
    PracticeSession,
    Review,
)
from tests.db.builders import HOUR, T0, make_member

# practice


def _practice(member: Member, item: str = "nn.module", at: dt.datetime = T0) -> PracticeSession:
    return PracticeSession(user_id=member.id, item_id=item, item_version=2, started_at=at)


def test_started_practice_is_current(store):
    ada = make_member(store)
    store.start_practice(_practice(ada))
    assert store.current_practice(ada.id) == _practice(ada)


def test_without_practice_there_is_no_current_one(store):
    assert store.current_practice(make_member(store).id) is None


def test_start_practice_replaces_the_current_one(store):
    ada = make_member(store)
    store.start_practice(_practice(ada, "a"))
    store.bump_practice_attempts(ada.id, "a")
    store.start_practice(_practice(ada, "b", T0 + HOUR))
    assert store.current_practice(ada.id) == _practice(ada, "b", T0 + HOUR)


def test_finish_practice_succeeds_once(store):
    ada = make_member(store)
    store.start_practice(_practice(ada))
    assert store.finish_practice(ada.id, "nn.module") is True
    assert store.finish_practice(ada.id, "nn.module") is False
    assert store.current_practice(ada.id) is None


def test_finish_practice_on_a_replaced_item_keeps_the_new_one(store):
    ada = make_member(store)
    store.start_practice(_practice(ada, "old"))
    store.start_practice(_practice(ada, "new"))
    assert store.finish_practice(ada.id, "old") is False
    assert store.current_practice(ada.id).item_id == "new"


def test_bump_practice_attempts_counts_wrong_tries(store):
    ada = make_member(store)
    store.start_practice(_practice(ada))
    counts = [store.bump_practice_attempts(ada.id, "nn.module") for _ in range(3)]
    assert counts == [1, 2, 3]
    assert store.current_practice(ada.id).attempts == 3


def test_bump_practice_attempts_on_another_item_counts_nothing(store):
    ada = make_member(store)
    store.start_practice(_practice(ada, "current"))
    assert store.bump_practice_attempts(ada.id, "stale") == 0
    assert store.current_practice(ada.id).attempts == 0


# reviews


def _review(member: Member, item: str = "a", state: int = 1, due: dt.datetime = T0) -> Review:
    return Review(
        user_id=member.id, item_id=item, state=state, step=0 if state == 1 else None,
        stability=None if state == 1 else 2.3065, difficulty=None if state == 1 else 2.118,
        due_at=due, reviewed_at=T0, last_correct=state != 1,
    )


def test_saved_review_can_be_read_back(store):
    ada = make_member(store)
    store.save_review(_review(ada))
    assert store.get_review(ada.id, "a") == _review(ada)


def test_save_review_replaces_the_previous_state(store):
    ada = make_member(store)
    store.save_review(_review(ada, state=1))
    store.save_review(_review(ada, state=2, due=T0 + 72 * HOUR))
    assert store.get_review(ada.id, "a") == _review(ada, state=2, due=T0 + 72 * HOUR)


def test_unknown_review_is_none(store):
    assert store.get_review(make_member(store).id, "a") is None


def test_reviews_come_soonest_due_first(store):
    ada, bob = make_member(store, "U1"), make_member(store, "U2")
    store.save_review(_review(ada, "late", due=T0 + 48 * HOUR))
    store.save_review(_review(ada, "soon", due=T0 + HOUR))
    store.save_review(_review(bob, "other", due=T0))
    assert [r.item_id for r in store.reviews(ada.id)] == ["soon", "late"]
