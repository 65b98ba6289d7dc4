"""The real clock: the only place the core reads the system time.

A compressed clock (``ScaledClock``) serves the soak run (tests/soak): the composition root
builds one from ``TORCHQUIZ_SOAK_CLOCK`` and nothing else reads that setting.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass


class SystemClock:
    """Tell the time from the operating system, in UTC."""

    def now(self) -> dt.datetime:
        """Return the current instant in UTC."""
        return dt.datetime.now(dt.UTC)


class BadClock(ValueError):
    """A compressed-clock setting that does not read as START xSPEED @ANCHOR."""


@dataclass(frozen=True)
class ScaledClock:
    """A clock that runs ``speed`` times faster than the wall clock from a shared anchor.

    Until the wall-clock instant ``anchor`` (seconds since the epoch) it reads ``start``, then
    it runs: processes started before the anchor all begin at the same instant. Every process
    given the same three values reads the same time, so replicas started (or restarted) at
    different moments agree, as they would on real time.
    """

    start: dt.datetime
    speed: float
    anchor: float
    wall: Callable[[], float] = time.time

    def now(self) -> dt.datetime:
        """Return the compressed instant in UTC."""
        elapsed = max(0.0, self.wall() - self.anchor)
        return self.start + dt.timedelta(seconds=elapsed * self.speed)

    def real_seconds(self, seconds: float) -> float:
        """Return the wall-clock seconds that ``seconds`` of this clock take."""
        return seconds / self.speed

    @classmethod
    def parse(cls, text: str) -> ScaledClock:
        """Read ``2026-03-05T00:00:00+00:00 x720 @1764700000.5`` (start, speed, anchor)."""
        parts = text.split()
        if len(parts) != 3 or not parts[1].startswith("x") or not parts[2].startswith("@"):
            raise BadClock(f"expected 'START xSPEED @ANCHOR', got {text!r}")
        try:
            start = dt.datetime.fromisoformat(parts[0])
            speed, anchor = float(parts[1][1:]), float(parts[2][1:])
        except ValueError as exc:
            raise BadClock(f"unreadable clock {text!r}: {exc}") from None
        if start.tzinfo is None or not 1 <= speed <= 100_000:
            raise BadClock(f"the start needs a UTC offset and the speed 1..100000: {text!r}")
        return cls(start.astimezone(dt.UTC), speed, anchor)
