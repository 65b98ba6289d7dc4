"""A pack's speed item is valid only if its own solution beats its reference by 2x, measured.

Both codes are a team's, hostile until proven otherwise: they run only through the speed
timer's sandbox, exactly as a member's submission would.
"""

from __future__ import annotations

from collections.abc import Callable

from content.schema import SpeedItem
from executors.grading.verdict import Status
from executors.speed.grader import SpeedGrader

MIN_SOLUTION_SPEEDUP = 2.0
SpeedChecker = Callable[[SpeedItem], list[str]]


def check_speed_item(item: SpeedItem, grader: SpeedGrader) -> list[str]:
    """Return what is wrong with ``item`` when its solution is timed against its reference."""
    if item.speed.requires:
        return [f"{item.id}: not checked: GPU speed challenges need a GPU executor"]
    verdict = grader.run(item, item.speed.solution)
    if verdict.fault or verdict.speed is None:
        return [f"{item.id}: the reference or the solution failed in the sandbox: "
                f"{verdict.message}"]
    if verdict.status is not Status.PASSED and not verdict.speed["shapes"]:
        return [f"{item.id}: the solution failed: {verdict.message}"]
    slow = [f"{s['shape']} {s['speedup']:.2f}x" for s in verdict.speed["shapes"]
            if s["speedup"] < MIN_SOLUTION_SPEEDUP]  # fmt: skip
    if slow:
        return [f"{item.id}: the solution must beat the reference by at least "
                f"{MIN_SOLUTION_SPEEDUP:g}x at every shape, measured: {', '.join(slow)}"]
    return []


def speed_checker(grader: SpeedGrader) -> SpeedChecker:
    """Return a checker for validate_pack that times each speed item with ``grader``."""
    return lambda item: check_speed_item(item, grader)
