"""Turn timed calls into speedups: ratio of medians, a bootstrap interval, the capped score."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence

BOOTSTRAP_ROUNDS = 2000
# A net time is never taken below this: a call cannot cost less than nothing, and a ratio
# with a zero below it is not a measurement.
MIN_NET_NS = 1_000


def net_times(times: Sequence[int], baseline_ns: float) -> list[float]:
    """Return each call's time less the fixed cost (the no-op's median), never below a floor."""
    return [max(float(t) - baseline_ns, MIN_NET_NS) for t in times]


def charged(calls: Sequence[tuple[int, int]], reference_after_ns: float) -> list[int]:
    """Return each call's window plus what it spent after the call beyond the reference.

    ``calls`` are (window, after) pairs. Checking and encoding the output cost the same for
    any correct answer of one shape, so time spent there beyond the reference's median is
    work the call left for later (or a "called" said early), and it counts as the call's.
    """
    return [window + max(0, int(after - reference_after_ns)) for window, after in calls]


def speedup_interval(reference: Sequence[float], submission: Sequence[float], *, seed: int,
                     rounds: int = BOOTSTRAP_ROUNDS) -> tuple[float, float, float]:
    """Return (speedup, low, high): median(reference) / median(submission), 95 % bootstrap.

    Pairs are resampled together: calls i of both ran back to back on the same inputs, so a
    slow moment of the machine touches both sides of one pair.
    """
    if len(reference) != len(submission) or not reference:
        raise ValueError("reference and submission need the same, non-zero number of calls")
    point = statistics.median(reference) / statistics.median(submission)
    rng = random.Random(seed)  # noqa: S311 - resampling, not secrecy
    n = len(reference)
    ratios = []
    for _ in range(rounds):
        picks = [rng.randrange(n) for _ in range(n)]
        ratios.append(statistics.median(reference[i] for i in picks)
                      / statistics.median(submission[i] for i in picks))  # fmt: skip
    ratios.sort()
    low = ratios[int(0.025 * (rounds - 1))]
    high = ratios[math.ceil(0.975 * (rounds - 1))]
    return point, low, high


def score(speedups: Sequence[float], cap: float) -> float:
    """Return the geometric mean of the speedups, each capped at ``cap``."""
    capped = [min(max(s, 1e-9), cap) for s in speedups]
    return math.exp(sum(math.log(s) for s in capped) / len(capped))
