"""The speed executor the bot holds: one warm timer, one verdict at a time, the bank's items.

``LocalSpeedExecutor.speed(challenge_id, code)`` satisfies the core's ``SpeedExecutor`` port
(bot/core/kernel/ports.py): it times ``code`` against the challenge's reference with
``SpeedGrader`` over a ``SpeedTimer`` started on the first call (its start measures the memory
bandwidth: a bot that never gets a speed answer never pays for it). The timer runs under the
scrubbed environment of the zygote (no secrets reach a sandbox); a timer that fails is
restarted once for the next call and the verdict is a fault (it does not count).
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

from content.schema import SpeedItem
from executors.grading.verdict import Status, Verdict, fault_verdict
from executors.speed.grader import SpeedGrader
from executors.speed.supervisor import SpeedTimer
from executors.zygote.supervisor import SandboxUnavailable, ZygoteError

log = logging.getLogger(__name__)


class SpeedItems(Protocol):
    """Where the challenges come from (the bank, or the bot's library)."""

    @property
    def speed(self) -> dict[str, SpeedItem]:
        """Return the speed challenges by id."""
        ...


class LocalSpeedExecutor:
    """Time speed answers in this machine's sandbox, one at a time (the timer is one CPU)."""

    def __init__(self, bank: SpeedItems, *, insecure: bool = False,
                 timer: SpeedTimer | None = None, owns_timer: bool | None = None) -> None:
        # A timer passed in is the caller's (tests share one) unless ``owns_timer`` says so.
        self.bank = bank
        self.insecure = insecure
        self._timer = timer
        self._owned = timer is None if owns_timer is None else owns_timer
        self._lock = threading.Lock()

    def _started(self) -> SpeedTimer:
        if self._timer is None:
            timer = SpeedTimer(insecure=self.insecure)
            timer.start()
            self._timer = timer
        return self._timer

    def knows(self, challenge_id: str) -> bool:
        """Say whether ``challenge_id`` is one of this executor's speed challenges."""
        return challenge_id in self.bank.speed

    def speed(self, challenge_id: str, code: str, *, seed: int | None = None) -> Verdict:
        """Return the speed verdict of ``code``; only a timer that cannot start gives a fault."""
        item = self.bank.speed.get(challenge_id)
        if item is None:
            return Verdict(status=Status.REJECTED, passed_tests=0, total_tests=0,
                           message=f"unknown speed challenge {challenge_id[:100]!r}",
                           challenge_id=challenge_id[:100], challenge_version=0, seed=seed)
        if item.speed.requires:
            return SpeedGrader(None).run(item, code, seed=seed)
        with self._lock:
            try:
                timer = self._started()
            except (SandboxUnavailable, ZygoteError) as exc:
                log.error("the speed timer could not start: %s", exc)
                self._timer = None
                return fault_verdict(item.id, item.version, seed)
            try:
                return SpeedGrader(timer).run(item, code, seed=seed)
            except ZygoteError as exc:
                log.error("the speed timer failed on %s: %s", item.id, exc)
                if self._owned:
                    timer.close()
                    self._timer = None
                return fault_verdict(item.id, item.version, seed)

    def close(self) -> None:
        """Stop the timer process (if this executor started it)."""
        with self._lock:
            if self._timer is not None and self._owned:
                self._timer.close()
            self._timer = None
