"""`torchquiz bench speed`: is the speed verdict fair under noise, and fast enough.

Figures (printed as a table and one JSON line; never asserted: machines are shared):
* repeat: the same submission graded twice (different seeds), its score each time;
* with a CPU-heavy neighbour spinning on another core, N verdicts each of the reference
  submitted as a solution (must never be reported faster: lower bound >= 1.1) and of a
  solution known to be about 3x faster (must never be reported below 1.1x);
* the wall time of each verdict.
The challenge is the tests' row-norms fixture (its reference squares and sums in float64);
the "3x" solution does the same in float32, with one temporary instead of three.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CHECKOUT = Path(__file__).resolve().parents[1]
FIXTURE = CHECKOUT / "tests" / "fixtures" / "speed" / "questions.yaml"
KNOWN_3X = """import torch

def row_norms(x):
    return (x * x).sum(dim=1).sqrt()
"""
NEIGHBOUR = "import os\nos.sched_setaffinity(0, {%d})\nwhile True:\n    pass\n"


def _item() -> Any:
    from content.loader import read_yaml
    from content.schema import SpeedItem

    return SpeedItem.model_validate(read_yaml(FIXTURE.read_text(encoding="utf-8"))["items"][0])


def _grade(grader: Any, item: Any, code: str, seed: int) -> dict[str, Any]:
    started = time.monotonic()
    verdict = grader.run(item, code, seed=seed)
    speed = verdict.speed or {}
    return {"seconds": round(time.monotonic() - started, 2), "status": str(verdict.status),
            "faster": speed.get("faster"), "score": speed.get("score"),
            "min_speedup": min((s["speedup"] for s in speed.get("shapes", [])), default=None),
            "min_low": min((s["low"] for s in speed.get("shapes", [])), default=None)}


def main(argv: list[str]) -> int:
    """Run the speed benchmark; print a table and one JSON line."""
    parser = argparse.ArgumentParser(prog="torchquiz bench speed")
    parser.add_argument("--verdicts", type=int, default=20)
    parser.add_argument("--bank", action="store_true",
                        help="instead: time each shipped speed item's own solution against its "
                             "reference, as pack validation does (>= 2x at every shape)")
    args = parser.parse_args(argv)
    from executors.speed.grader import SpeedGrader
    from executors.speed.supervisor import SpeedTimer

    if args.bank:
        return _bank(SpeedGrader, SpeedTimer)

    item = _item()
    cpus = os.cpu_count() or 1
    timer = SpeedTimer(cpu=cpus - 1)
    timer.start()
    figures: dict[str, Any] = {"cpus": cpus, "load_before": os.getloadavg()[0]}
    try:
        grader = SpeedGrader(timer)
        repeat = [_grade(grader, item, KNOWN_3X, seed) for seed in (1, 2)]
        figures["repeat"] = {"scores": [r["score"] for r in repeat],
                             "ratio": repeat[0]["score"] / repeat[1]["score"]}
        neighbour = subprocess.Popen(  # noqa: S603 - our own interpreter, a spin loop
            [sys.executable, "-c", NEIGHBOUR % 0])
        try:
            reference = [_grade(grader, item, item.speed.reference, 100 + i)
                         for i in range(args.verdicts)]
            known = [_grade(grader, item, KNOWN_3X, 200 + i) for i in range(args.verdicts)]
        finally:
            neighbour.kill()
            neighbour.wait()
    finally:
        timer.close()
    seconds = [r["seconds"] for r in (*repeat, *reference, *known)]
    figures.update({
        "reference_as_solution": {"n": len(reference),
                                  "reported_faster": sum(bool(r["faster"]) for r in reference),
                                  "max_score": max(r["score"] or 0 for r in reference)},
        "known_3x": {"n": len(known),
                     "below_1_1": sum((r["min_speedup"] or 0) < 1.1 for r in known),
                     "not_faster": sum(not r["faster"] for r in known),
                     "min_speedup": min(r["min_speedup"] or 0 for r in known),
                     "median_score": statistics.median(r["score"] or 0 for r in known)},
        "verdict_seconds": {"p50": statistics.median(seconds), "max": max(seconds)},
        "load_after": os.getloadavg()[0],
    })  # fmt: skip
    print(f"repeat (same submission twice): scores {figures['repeat']['scores']}, "
          f"ratio {figures['repeat']['ratio']:.2f}")
    ref, k3 = figures["reference_as_solution"], figures["known_3x"]
    print(f"reference as solution, neighbour on cpu 0: {ref['reported_faster']}/{ref['n']} "
          f"reported faster (max score {ref['max_score']:.2f})")
    print(f"known ~3x solution, neighbour on cpu 0: {k3['below_1_1']}/{k3['n']} below 1.1x at "
          f"some shape, {k3['not_faster']} not faster; min speedup {k3['min_speedup']:.2f}, "
          f"median score {k3['median_score']:.2f}")
    print(f"verdict wall time: p50 {figures['verdict_seconds']['p50']:.1f} s, "
          f"max {figures['verdict_seconds']['max']:.1f} s")
    print(json.dumps(figures))
    return 0


def _bank(grader_class: Any, timer_class: Any) -> int:
    """Time every bank speed item's solution against its reference; print one line each.

    A timing, so a benchmark and not a test: the figures go to docs/benchmarks.md.
    """
    from content.loader import load_bank
    from executors.speed.validation import MIN_SOLUTION_SPEEDUP

    timer = timer_class(cpu=(os.cpu_count() or 1) - 1)
    timer.start()
    rows: list[dict[str, Any]] = []
    valid = 0
    try:
        grader = grader_class(timer)
        for item in load_bank().speed_items():
            verdict = grader.run(item, item.speed.solution, seed=1)
            shapes = (verdict.speed or {}).get("shapes", [])
            ok = bool(shapes) and all(s["speedup"] >= MIN_SOLUTION_SPEEDUP for s in shapes)
            valid += ok
            rows.append({"id": item.id, "status": str(verdict.status), "validates": ok,
                         "shapes": [{k: s[k] for k in ("shape", "speedup", "low", "high")}
                                    for s in shapes]})
            cells = "  ".join(f"{s['shape']} {s['speedup']:.1f}x [{s['low']:.1f}, {s['high']:.1f}]"
                              for s in shapes)
            print(f"{item.id:<28} {'ok ' if ok else 'LOW'} {cells}", flush=True)
    finally:
        timer.close()
    print(f"{valid}/{len(rows)} items >= "
          f"{MIN_SOLUTION_SPEEDUP:g}x at every shape (load {os.getloadavg()[0]:.1f})")
    print(json.dumps(rows))
    return 0
