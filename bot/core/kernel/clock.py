"""The real clock: the only place the core reads the system time."""

from __future__ import annotations

import datetime as dt


class SystemClock:
    """Tell the time from the operating system, in UTC."""

    def now(self) -> dt.datetime:
        """Return the current instant in UTC."""
        return dt.datetime.now(dt.UTC)
