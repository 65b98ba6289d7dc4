import datetime as dt

import fsrs
import pytest

from bot.core.kernel.models import ItemResult, Review
from bot.core.learning.practice import PracticePick, daily_pick, pick, span, weakest_topic, why_this
from bot.core.questions.reviews import ReviewScheduler, rating_for

NOW = dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC)
TOPICS = {"a": ("autograd",), "b": ("autograd",), "c": ("tensors",), "d": ("tensors",)}


def _review(item, due_in_hours, last_correct=False, state=2):
    return Review(1, item, state, None, 3.0, 5.0, NOW + dt.timedelta(hours=due_in_hours),
                  NOW - dt.timedelta(days=3), last_correct)


def _oracle(ratings, start=NOW, gap=dt.timedelta(minutes=1)):
    """The fsrs package itself, configured as the product documents it."""
    scheduler = fsrs.Scheduler(learning_steps=(dt.timedelta(minutes=1),),
                               relearning_steps=(dt.timedelta(minutes=10),),
                               enable_fuzzing=False)
    card, at = fsrs.Card(card_id=0, due=start), start
    for rating in ratings:
        card, _ = scheduler.review_card(card, rating, at)
        at += gap
    return card


@pytest.mark.parametrize("correct, misses, rating", [
    (False, 0, fsrs.Rating.Again), (False, 2, fsrs.Rating.Again),
    (True, 0, fsrs.Rating.Good), (True, 1, fsrs.Rating.Hard), (True, 2, fsrs.Rating.Hard),
])
def test_an_answer_maps_to_the_fsrs_rating_the_issue_names(correct, misses, rating):
    assert rating_for(correct, misses) is rating


def test_a_wrong_answer_comes_back_within_minutes():
    review = ReviewScheduler().review(None, 1, "a", False, 0, NOW)
    assert review.due_at - NOW <= dt.timedelta(minutes=1)
    assert review.due_at == _oracle([fsrs.Rating.Again]).due


def test_a_right_first_answer_comes_back_in_days():
    review = ReviewScheduler().review(None, 1, "a", True, 0, NOW)
    assert review.due_at - NOW >= dt.timedelta(days=1)
    oracle = _oracle([fsrs.Rating.Good])
    assert (review.due_at, review.stability, review.difficulty) == (
        oracle.due, oracle.stability, oracle.difficulty)


def test_a_history_of_answers_matches_the_fsrs_package_step_by_step():
    scheduler, review, at = ReviewScheduler(), None, NOW
    history = [(False, 0), (True, 1), (True, 0), (False, 0), (True, 1)]
    for correct, misses in history:
        review = scheduler.review(review, 1, "a", correct, misses, at)
        at = review.due_at  # the member comes back exactly when it is due
    card_at = NOW
    oracle_scheduler = fsrs.Scheduler(learning_steps=(dt.timedelta(minutes=1),),
                                      relearning_steps=(dt.timedelta(minutes=10),),
                                      enable_fuzzing=False)
    expected_card = fsrs.Card(card_id=0, due=NOW)
    for correct, misses in history:
        expected_card, _ = oracle_scheduler.review_card(expected_card,
                                                        rating_for(correct, misses), card_at)
        card_at = expected_card.due
    assert review.due_at == expected_card.due
    assert review.state == int(expected_card.state)
    assert review.stability == pytest.approx(expected_card.stability)


def test_the_scheduler_takes_any_time_zone_and_stores_utc():
    shanghai = NOW.astimezone(dt.timezone(dt.timedelta(hours=8)))
    review = ReviewScheduler().review(None, 1, "a", True, 0, shanghai)
    assert review.reviewed_at == NOW and review.reviewed_at.tzinfo == dt.UTC


def test_the_most_overdue_review_comes_first():
    reviews = [_review("a", -5), _review("b", -50), _review("c", 10)]
    chosen = pick(["a", "b", "c"], reviews, [], TOPICS, NOW, "s")
    assert chosen == PracticePick("b", "review", due_at=NOW - dt.timedelta(hours=50))


def test_a_new_item_comes_from_the_weakest_topic_when_nothing_is_due():
    results = [ItemResult("a", True, NOW), ItemResult("a", True, NOW),
               ItemResult("c", False, NOW), ItemResult("c", False, NOW)]
    chosen = pick(["a", "b", "c", "d"], [_review("a", 10), _review("c", 10)], results, TOPICS,
                  NOW, "s")
    assert chosen == PracticePick("d", "new", topic="tensors", tried=True)


def test_an_untried_topic_counts_as_half_known():
    results = [ItemResult("a", True, NOW)] * 5
    assert weakest_topic(["autograd", "tensors"], results, TOPICS) == ("tensors", False)
    results = [ItemResult("a", False, NOW)] * 5
    assert weakest_topic(["autograd", "tensors"], results, TOPICS) == ("autograd", True)


def test_a_topic_limits_reviews_and_new_items_alike():
    reviews = [_review("a", -5), _review("c", -1)]
    assert pick(["c", "d"], reviews, [], TOPICS, NOW, "s").item_id == "c"


def test_practice_never_runs_dry():
    assert pick(["a"], [_review("a", 48, True)], [], TOPICS, NOW, "s") == PracticePick(
        "a", "ahead", due_at=NOW + dt.timedelta(hours=48))


def test_pick_is_empty_only_without_items():
    assert pick([], [], [], TOPICS, NOW, "s") is None


@pytest.mark.parametrize("chosen, en, zh", [
    (PracticePick("a", "review", due_at=NOW - dt.timedelta(days=2, hours=3)),
     "Review · due since 2 days", "复习 · 已到期 2 天"),
    (PracticePick("a", "review", due_at=NOW), "Review · due now", "复习 · 现在到期"),
    (PracticePick("a", "new", topic="autograd", tried=True),
     "New · your weakest topic: autograd", "新题 · 你最薄弱的主题：自动求导"),
])
def test_the_reply_says_why_this_question_came(chosen, en, zh):
    assert why_this(chosen, NOW, "en") == en
    assert why_this(chosen, NOW, "zh-CN") == zh


@pytest.mark.parametrize("delta, text", [
    (dt.timedelta(seconds=5), "1 minute"), (dt.timedelta(minutes=10), "10 minutes"),
    (dt.timedelta(hours=1, minutes=59), "1 hour"), (dt.timedelta(days=1), "1 day"),
    (dt.timedelta(days=26), "26 days"),
])
def test_durations_read_as_people_say_them(delta, text):
    assert span("en", delta) == text


def test_daily_pick_prefers_never_used_then_oldest():
    used = {"a": dt.date(2026, 3, 1), "b": dt.date(2026, 2, 1)}
    assert daily_pick(["a", "b", "c"], used, "s") == "c"
    assert daily_pick(["a", "b"], used, "s") == "b"


def test_daily_pick_is_the_same_on_every_replica():
    assert daily_pick(list("abcdef"), {}, "7|2026-03-02") == daily_pick(
        list("fedcba"), {}, "7|2026-03-02"
    )
