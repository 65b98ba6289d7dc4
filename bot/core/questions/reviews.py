"""Spaced repetition with FSRS: every answer updates the member's card for that item.

The ``fsrs`` package schedules (FSRS-6, the scheduler Anki uses); this module only maps our
answers to its ratings and its cards to our frozen Review values. A wrong answer is Again, a
right one after an earlier wrong try Hard, a right one at the first try Good. A learning step
of one minute brings a new miss back while it still stings (ten minutes to relearn an item
once known); a first-try success on a new item graduates at once and comes back in days.
Fuzzing is off, so every replica computes the same due date from the same history.
"""

from __future__ import annotations

import datetime as dt

import fsrs

from bot.core.kernel.models import Review

# A new item missed comes back after one minute (ask /quiz a minute later: it is there); a
# known item forgotten relearns over ten, as Anki's defaults do.
LEARNING_STEP = dt.timedelta(minutes=1)
RELEARNING_STEP = dt.timedelta(minutes=10)
DESIRED_RETENTION = 0.9


def rating_for(correct: bool, earlier_misses: int) -> fsrs.Rating:
    """Return the FSRS rating of an answer: Again when wrong, Hard after a miss, else Good."""
    if not correct:
        return fsrs.Rating.Again
    return fsrs.Rating.Hard if earlier_misses else fsrs.Rating.Good


def to_card(review: Review | None, now: dt.datetime) -> fsrs.Card:
    """Return the FSRS card of a review (a new card, due now, when there is none)."""
    if review is None:
        return fsrs.Card(card_id=0, due=now)
    return fsrs.Card(
        card_id=0, state=fsrs.State(review.state), step=review.step,
        stability=review.stability, difficulty=review.difficulty, due=review.due_at,
        last_review=review.reviewed_at,
    )


class ReviewScheduler:
    """Turn an answer into the member's next review of the item."""

    def __init__(self, learning_step: dt.timedelta = LEARNING_STEP,
                 relearning_step: dt.timedelta = RELEARNING_STEP,
                 desired_retention: float = DESIRED_RETENTION) -> None:
        self.scheduler = fsrs.Scheduler(
            desired_retention=desired_retention, learning_steps=(learning_step,),
            relearning_steps=(relearning_step,), enable_fuzzing=False,
        )

    def review(self, previous: Review | None, user_id: int, item_id: str, correct: bool,
               earlier_misses: int, now: dt.datetime) -> Review:
        """Return the card after this answer (``now`` is an aware datetime; FSRS wants UTC)."""
        at = now.astimezone(dt.UTC)
        card, _ = self.scheduler.review_card(to_card(previous, at),
                                             rating_for(correct, earlier_misses), at)
        return Review(
            user_id=user_id, item_id=item_id, state=int(card.state), step=card.step,
            stability=card.stability, difficulty=card.difficulty, due_at=card.due,
            reviewed_at=at, last_correct=correct,
        )
