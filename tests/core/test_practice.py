import datetime as dt

from bot.core.models import Review
from bot.core.practice import after_answer, daily_pick, pick

NOW = dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC)


def _review(item, box, due_in_hours, last_correct=False):
    return Review(1, item, box, NOW + dt.timedelta(hours=due_in_hours), last_correct, NOW)


def test_right_answer_moves_up_a_box_and_waits_longer():
    review = after_answer(_review("a", 2, 0), 1, "a", True, NOW)
    assert review.box == 3 and review.due_at == NOW + dt.timedelta(days=4)


def test_wrong_answer_goes_back_to_box_one_and_returns_within_the_hour():
    review = after_answer(_review("a", 4, 0, True), 1, "a", False, NOW)
    assert review.box == 1 and review.due_at == NOW + dt.timedelta(hours=1)


def test_box_never_passes_five():
    assert after_answer(_review("a", 5, 0, True), 1, "a", True, NOW).box == 5


def test_due_missed_item_comes_before_anything_new():
    chosen = pick(["a", "b", "c"], [_review("b", 1, -1)], NOW, "salt")
    assert chosen == ("b", True)


def test_lowest_box_first_among_due_reviews():
    reviews = [_review("a", 3, -5, True), _review("b", 1, -1)]
    assert pick(["a", "b"], reviews, NOW, "s") == ("b", True)


def test_unseen_item_when_nothing_is_due():
    chosen = pick(["a", "b"], [_review("a", 2, 10, True)], NOW, "s")
    assert chosen == ("b", False)


def test_practice_never_runs_dry():
    assert pick(["a"], [_review("a", 3, 48, True)], NOW, "s") == ("a", False)


def test_pick_is_empty_only_without_items():
    assert pick([], [], NOW, "s") is None


def test_daily_pick_prefers_never_used_then_oldest():
    used = {"a": dt.date(2026, 3, 1), "b": dt.date(2026, 2, 1)}
    assert daily_pick(["a", "b", "c"], used, "s") == "c"
    assert daily_pick(["a", "b"], used, "s") == "b"


def test_daily_pick_is_the_same_on_every_replica():
    assert daily_pick(list("abcdef"), {}, "7|2026-03-02") == daily_pick(
        list("fedcba"), {}, "7|2026-03-02"
    )
