"""Test doubles for the edges of the system: the clock now, platform fakes later."""

from __future__ import annotations

import datetime as dt

CLOCK_START = dt.datetime(2026, 3, 2, 8, 0, tzinfo=dt.UTC)  # a Monday: where test clocks start


def _aware_utc(when: dt.datetime) -> dt.datetime:
    """Return ``when`` in UTC, refusing naive datetimes (the core never sees one)."""
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(f"FakeClock takes aware datetimes only, got {when!r}")
    return when.astimezone(dt.UTC)


class FakeClock:
    """A clock that stands still until a test moves it; always aware UTC (a core Clock)."""

    def __init__(self, start: dt.datetime) -> None:
        self._now = _aware_utc(start)

    def now(self) -> dt.datetime:
        """Return the current fake instant."""
        return self._now

    def advance(self, delta: dt.timedelta | None = None, **parts: float) -> dt.datetime:
        """Move forward by ``delta`` or by timedelta keywords (``hours=1``); return the new now."""
        step = (delta or dt.timedelta()) + dt.timedelta(**parts)
        if step < dt.timedelta():
            raise ValueError("a clock only moves forward; use set() to jump back")
        self._now += step
        return self._now

    def set(self, when: dt.datetime) -> None:
        """Jump to ``when``, forwards or backwards."""
        self._now = _aware_utc(when)
