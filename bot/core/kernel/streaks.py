"""The streak rule: a member's walk over the channel's rounds, earning and spending freezes.

It lives with the values because storage keeps each member's streak as of their latest solved
round (``StreakAnchor``) by the same rule, in the answer's transaction, as it keeps weekly totals
by ``week_start``: the boards then walk only the rounds after it, never the member's history.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

MAX_FREEZES = 2  # freezes a member can hold at once
FREEZE_EVERY = 7  # consecutive solved rounds that earn one freeze


@dataclass(frozen=True)
class StreakState:
    """Where a member's streak stands after the channel's rounds so far.

    ``current`` counts solved rounds (a frozen round does not count); ``freezes`` are held now;
    ``best`` is the longest streak the walk saw.
    """

    current: int = 0
    best: int = 0
    freezes: int = 0
    toward_freeze: int = 0  # solved rounds in a row since the last freeze was earned or used


def streak_step(state: StreakState, solved: bool) -> StreakState:
    """Return the state after one more round: solved, or missed (a freeze covers it if held)."""
    if solved:
        toward = state.toward_freeze + 1
        freezes = state.freezes
        if toward == FREEZE_EVERY:
            # A freeze earned at the cap is lost: the count starts over either way.
            freezes, toward = min(MAX_FREEZES, freezes + 1), 0
        current = state.current + 1
        return StreakState(current, max(state.best, current), freezes, toward)
    if state.freezes and state.current:
        return replace(state, freezes=state.freezes - 1, toward_freeze=0)
    return StreakState(best=state.best)


def streak_misses(state: StreakState, count: int) -> StreakState:
    """Return the state after ``count`` missed rounds in a row (a few steps at most)."""
    while count > 0 and state.current:
        state, count = streak_step(state, False), count - 1
    # With no streak left, more misses change nothing but an unfinished count toward a freeze.
    return state if count <= 0 else StreakState(best=state.best)


@dataclass(frozen=True)
class StreakAnchor:
    """A member's streak state right after their latest solved round of a channel, as stored.

    ``through`` is how many of the channel's rounds were dated up to ``solved_on`` when the
    state was counted, ``counted`` how many are now: when they differ (a round added before it,
    or a concurrent solve marked it stale with -1), the anchor no longer holds and the streak
    is walked from the member's solved rounds instead.
    """

    solved_on: dt.date
    through: int
    counted: int
    state: StreakState

    def now(self, rounds: int, open_date: dt.date | None) -> StreakState | None:
        """Return the streak now, the channel having ``rounds`` rounds; None when stale.

        Every round after ``solved_on`` was missed, but the one still open (``open_date``),
        which neither counts nor breaks anything yet.
        """
        if self.counted != self.through:
            return None
        later = rounds - self.through
        if open_date is not None and open_date > self.solved_on:
            later -= 1
        return streak_misses(self.state, later)
