"""Fold answers into the totals a leaderboard shows: the one rule the stored totals follow.

record_answer adds the difference one answer makes, a change of time zone recounts a week from
the answers, and the tests compare the stored totals with a fold of every answer.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Answer:
    """What one stored answer contributes to totals."""

    round_id: int
    user_id: int
    attempt: int
    correct: bool
    points: int
    submitted_at: dt.datetime


@dataclass
class Totals:
    """A member's points, rounds solved and attempted, right first tries and last solve."""

    points: int = 0
    solved: int = 0
    first_try: int = 0
    attempted: int = 0
    last_solved_at: dt.datetime | None = None


def fold(answers: Iterable[Answer], key: Callable[[Answer], K]) -> dict[K, Totals]:
    """Sum answers into totals per ``key``, counting a round once for solved and attempted."""
    totals: dict[K, Totals] = {}
    answered: set[tuple[K, int]] = set()
    solved: set[tuple[K, int]] = set()
    for answer in answers:
        k = key(answer)
        total = totals.setdefault(k, Totals())
        total.points += answer.points
        if (k, answer.round_id) not in answered:
            answered.add((k, answer.round_id))
            total.attempted += 1
        if not answer.correct:
            continue
        total.first_try += answer.attempt == 1
        if (k, answer.round_id) not in solved:
            solved.add((k, answer.round_id))
            total.solved += 1
        if total.last_solved_at is None or answer.submitted_at > total.last_solved_at:
            total.last_solved_at = answer.submitted_at
    return totals


def added_by(new: Answer, earlier: Sequence[Answer]) -> Totals:
    """Return what ``new`` adds to totals that already hold ``earlier`` (answers of its round).

    ``last_solved_at`` is the new answer's time when it is right, to be kept if it is later.
    """
    before = fold(earlier, lambda _: 0).get(0, Totals())
    after = fold([*earlier, new], lambda _: 0)[0]
    return Totals(
        points=after.points - before.points,
        solved=after.solved - before.solved,
        first_try=after.first_try - before.first_try,
        attempted=after.attempted - before.attempted,
        last_solved_at=new.submitted_at if new.correct else None,
    )
