"""Read a speed verdict once, where it enters the bot, and word it in the channel's language.

The timing report crossed from the executor as plain data; :func:`read_report` checks every
field it uses (types, bounds, finite numbers, a shape's name as the bank spells them) and
returns a typed value, or None: a report that does not read is an executor fault, never shown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.core.kernel.speed_records import SpeedShapeFigure

STATUSES = ("passed", "failed", "error", "timeout", "memory_limit", "output_limit", "rejected")
MAX_SHAPES = 8
MAX_RATIO = 1e6
_SHAPE = re.compile(r"[a-z0-9][a-z0-9-]{0,23}")


@dataclass(frozen=True)
class SpeedReading:
    """What a timed verdict says: faster, held (and why), score and the shapes' figures."""

    faster: bool
    held: bool
    reason: str
    score: float
    shapes: tuple[SpeedShapeFigure, ...]


def _ratio(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and 0 <= number <= MAX_RATIO else None


def read_report(report: Mapping[str, Any] | None) -> SpeedReading | None:
    """Return the typed reading of a timing report, or None when any field is off."""
    if not isinstance(report, Mapping):
        return None
    faster, held, reason = report.get("faster"), report.get("held"), report.get("reason", "")
    score = _ratio(report.get("score"))
    shapes = report.get("shapes")
    if (type(faster) is not bool or type(held) is not bool or not isinstance(reason, str)
            or score is None or not isinstance(shapes, list)
            or not 1 <= len(shapes) <= MAX_SHAPES):  # fmt: skip
        return None
    figures: list[SpeedShapeFigure] = []
    for shape in shapes:
        if not isinstance(shape, Mapping):
            return None
        name = shape.get("shape")
        values = [_ratio(shape.get(k)) for k in ("speedup", "low", "high")]
        if not isinstance(name, str) or _SHAPE.fullmatch(name) is None or None in values:
            return None
        speedup, low, high = (float(v) for v in values if v is not None)
        figures.append(SpeedShapeFigure(name, speedup, low, high))
    return SpeedReading(faster, held, reason[:1000], score, tuple(figures))


def times(value: float) -> str:
    """Return a speedup as shown: two decimals under 10, one above."""
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"
