"""Per-member rate limits and the bound on in-flight core calls of one chat process.

Token buckets live in this process's memory: with several replicas behind a balancer each
replica counts on its own, so a member's effective limit is the per-replica limit times the
replicas their requests reach. That is enough for what the limits are for (one member cannot
fill the grading queue or the worker pool for everyone); a shared limit would need a shared
store on every request. The buckets are bounded: the least recently seen members are forgotten
first, which at worst gives a forgotten member a full bucket again.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

DEFAULT_MEMBERS = 10_000


@dataclass(frozen=True)
class Limits:
    """How much one member may ask of one process, and how much the process takes at once."""

    code_per_minute: int = 6  # code submissions graded per member per minute (0: no limit)
    commands_per_10s: int = 10  # commands and settings per member per 10 s (0: no limit)
    max_in_flight: int = 64  # core calls running or queued for a worker; more are "busy"
    members: int = DEFAULT_MEMBERS  # buckets kept, least recently used forgotten first


class Busy(Exception):
    """The process already runs as many core calls as it takes: answer 'try again'."""


class TokenBuckets:
    """One token bucket per key: ``capacity`` tokens, refilled evenly over ``period_s``."""

    def __init__(self, capacity: int, period_s: float, *, size: int = DEFAULT_MEMBERS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = capacity
        self.rate = capacity / period_s if capacity > 0 else 0.0
        self.size = size
        self.clock = clock
        self._buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: Hashable) -> int:
        """Take a token for ``key``: 0 when granted, else the whole seconds until one is."""
        if self.capacity <= 0:
            return 0
        now = self.clock()
        tokens, then = self._buckets.pop(key, (float(self.capacity), now))
        tokens = min(float(self.capacity), tokens + (now - then) * self.rate)
        granted = tokens >= 1.0
        if granted:
            tokens -= 1.0
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.size:
            self._buckets.popitem(last=False)
        return 0 if granted else max(1, math.ceil((1.0 - tokens) / self.rate))
