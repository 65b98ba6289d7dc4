"""``torchquiz exec --challenge speed.ID FILE...``: time each file against the reference."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TextIO

from content.schema import SpeedItem
from executors.grading.verdict import Verdict, fault_verdict
from executors.speed.grader import SpeedGrader
from executors.speed.supervisor import SpeedTimer
from executors.zygote.supervisor import INSECURE_FLAG, SandboxUnavailable, ZygoteError
from safetext.inert import inert

log = logging.getLogger(__name__)
EXIT_OK = 0
EXIT_NO_SANDBOX = 3
NO_TIMER_MESSAGE = ("the speed timer could not start, so this submission was not timed; it does "
                    "not count, try again")  # fmt: skip


def run_speed(item: SpeedItem, seed: int | None, sources: list[tuple[str, bytes]],
              emit: Callable[[str, Verdict], None], err: TextIO, *,
              insecure: bool = False) -> int:  # fmt: skip
    """Give every file its speed verdict; start the timer only when some file needs it."""
    if item.speed.requires:
        grader = SpeedGrader(None)
        for name, code in sources:
            emit(name, grader.run(item, code, seed=seed))
        return EXIT_OK
    timer = SpeedTimer(insecure=insecure)
    try:
        timer.start()
    except SandboxUnavailable as exc:
        err.write(f"torchquiz exec: the sandbox is unavailable: {exc}\nRun `torchquiz exec "
                  f"--doctor` for details, or pass {INSECURE_FLAG} (unsafe).\n")
        return EXIT_NO_SANDBOX
    except ZygoteError as exc:
        err.write(f"torchquiz exec: the speed timer could not start: "
                  f"{inert(str(exc), one_line=True)}\n")
        for name, _ in sources:
            emit(name, fault_verdict(item.id, item.version, seed, message=NO_TIMER_MESSAGE))
        return EXIT_OK
    try:
        grader = SpeedGrader(timer)
        for name, code in sources:
            try:
                verdict = grader.run(item, code, seed=seed)
            except ZygoteError as exc:
                err.write(f"torchquiz exec: {inert(name, one_line=True)}: the timer failed: "
                          f"{inert(str(exc), one_line=True)}\n")
                verdict = fault_verdict(item.id, item.version, seed)
                timer.close()
                timer = SpeedTimer(insecure=insecure)
                timer.start()
                grader = SpeedGrader(timer)
            emit(name, verdict)
    finally:
        timer.close()
    return EXIT_OK
