"""Validate team packs on a replica: one at a time, off the event loop, with a bounded report.

A pack's checks take seconds to minutes (several sandbox runs per code challenge, within the
180 s budget of ``validate_pack``), not the milliseconds of a run: they get a thread of their
own, so they never hold a run's pool thread, and a second validation is told when to retry
instead of queueing behind the first. The report a replica sends is bounded, so that a pack
of 500 broken items cannot answer megabytes.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from executors.service.protocol import PackCheck

MAX_REPORT_ERRORS = 200
MAX_ERROR_CHARS = 1000
MAX_RETRY_AFTER_S = 30


class Report(Protocol):
    """A pack validation's outcome (``pack_challenges.PackReport`` satisfies it)."""

    def to_json(self) -> dict[str, Any]:
        """Return ``{"ok", "errors", "items", "cards"}``."""
        ...


# Validates a pack file with the replica's bank and sandbox (pack_challenges.validate_pack,
# wired by `executor serve`); infrastructure faults raise ZygoteError.
PackChecker = Callable[[bytes], Report]


class PackValidations:
    """Run one pack validation at a time on a thread of its own; say when the next may come."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="pack")
        self._started: float | None = None  # when the validation in progress started
        self._typical_s = 30.0  # a moving average of recent validations, for Retry-After

    @property
    def busy(self) -> bool:
        """Return whether a validation is in progress."""
        return self._started is not None

    def retry_after(self) -> int:
        """Return the seconds to wait before the one in progress is likely done (1-30)."""
        elapsed = time.monotonic() - (self._started or time.monotonic())
        return max(1, min(MAX_RETRY_AFTER_S, math.ceil(self._typical_s - elapsed)))

    async def validate(self, check: PackChecker, data: bytes) -> PackCheck:
        """Validate ``data`` with ``check`` off the loop; the caller checked ``busy`` first."""
        if self._started is not None:
            raise RuntimeError("a pack validation is already in progress")
        self._started = started = time.monotonic()
        try:
            report = await asyncio.get_running_loop().run_in_executor(self._pool, check, data)
        finally:
            self._started = None
        self._typical_s = 0.7 * self._typical_s + 0.3 * (time.monotonic() - started)
        return bounded(PackCheck.from_json(report.to_json()))

    def shutdown(self) -> None:
        """Stop the thread; a validation in progress is abandoned."""
        self._pool.shutdown(wait=False, cancel_futures=True)


def bounded(report: PackCheck) -> PackCheck:
    """Return the report with at most MAX_REPORT_ERRORS errors, each at most so long."""
    errors = [e if len(e) <= MAX_ERROR_CHARS else e[: MAX_ERROR_CHARS - 1] + "…"
              for e in report.errors[:MAX_REPORT_ERRORS]]
    if len(report.errors) > MAX_REPORT_ERRORS:
        errors[-1] = (f"… and {len(report.errors) - MAX_REPORT_ERRORS + 1} more problem(s); "
                      "fix these and validate again")
    problems = tuple({**p, "message": _cut(str(p["message"]))}
                     for p in report.problems[:MAX_REPORT_ERRORS])
    return PackCheck(report.ok, tuple(errors), report.items, report.cards, problems)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"
