"""Run one benchmark on a reference commit and on the working tree, interleaved, side by side.

``bench/compare.sh REF [--rounds N] [-- BENCH ARGS...]`` (default bench: ``core --answers
100000``). REF is checked out into a temporary worktree; both trees run with this checkout's
virtual environment, each importing its own code (``PYTHONPATH``), in ABBA order (ref, work,
work, ref, ...) so that a machine that gets busier halfway hurts both sides alike. Every
numeric figure of the benchmark's ``--json`` output is printed with REF's and the working
tree's median over the rounds and their ratio (work / ref: below 1 is faster for times).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BENCH = ["core", "--answers", "100000"]


def flatten(value: object, prefix: str = "") -> Iterator[tuple[str, float]]:
    """Yield every numeric leaf of a JSON value as (dotted path, number); booleans excluded."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from flatten(inner, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from flatten(inner, f"{prefix}[{index}]")
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield prefix, float(value)


def run_bench(tree: Path, bench_args: list[str], log: Path) -> list[dict[str, object]]:
    """Run ``torchquiz bench ... --json`` with ``tree``'s code; return its JSON records."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-m", "bot.cli", "bench", *bench_args, "--json"]
    with log.open("a") as err:
        done = subprocess.run(  # noqa: S603 - our own interpreter and arguments
            cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=err, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench failed in {tree.name} (exit {done.returncode}); see {log}")
    records: list[dict[str, object]] = []
    for line in done.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            records.append(json.loads(line))
    if not records:
        raise SystemExit(f"bench printed no JSON in {tree.name}; see {log}")
    return records


def figures(records: list[dict[str, object]]) -> dict[str, float]:
    """Key every figure by its record's backend (when it names one) and its path."""
    out: dict[str, float] = {}
    for index, record in enumerate(records):
        label = str(record.get("backend", index))
        for path, number in flatten(record):
            out[f"{label}:{path}"] = number
    return out


def table(ref_runs: list[dict[str, float]], work_runs: list[dict[str, float]], ref: str) -> str:
    """Return the side-by-side table: figure, REF median, work median, ratio."""
    keys = [k for k in ref_runs[0] if all(k in run for run in (*ref_runs, *work_runs))]
    width = max((len(k) for k in keys), default=10)
    lines = [f"{'figure':<{width}}  {ref[:12]:>12}  {'work tree':>12}  {'ratio':>7}"]
    for key in keys:
        a = statistics.median(run[key] for run in ref_runs)
        b = statistics.median(run[key] for run in work_runs)
        ratio = f"{b / a:7.2f}" if a else "      -"
        lines.append(f"{key:<{width}}  {a:12.4g}  {b:12.4g}  {ratio}")
    return "\n".join(lines)


def split_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split the command line at ``--``: this tool's options, then the benchmark's."""
    if "--" not in argv:
        return argv, []
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1:]


def git(*args: str, check: bool = True) -> str:
    """Run git in this checkout; return its output."""
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True,  # noqa: S603, S607
                          text=True, check=check)
    return done.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    """Compare REF and the working tree on one benchmark; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ref", help="the commit to compare against (e.g. HEAD~1, a tag, a sha)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="runs per side, interleaved (median per figure)")
    own, bench_args = split_argv(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(own)
    bench_args = bench_args or DEFAULT_BENCH
    sha = git("rev-parse", "--verify", f"{args.ref}^{{commit}}")
    scratch = Path(tempfile.mkdtemp(prefix="tq-compare-"))
    ref_tree = scratch / "ref"
    log = ROOT / "var" / "bench-compare.log"
    log.parent.mkdir(exist_ok=True)
    log.write_text("")
    git("worktree", "add", "--detach", "-q", str(ref_tree), sha)
    try:
        ref_runs: list[dict[str, float]] = []
        work_runs: list[dict[str, float]] = []
        sides = [(args.ref, ref_tree, ref_runs), ("work tree", ROOT, work_runs)]
        for round_no in range(1, args.rounds + 1):
            # ABBA order: a machine that gets busier (or warmer) over the run favours neither.
            for name, tree, runs in sides if round_no % 2 else sides[::-1]:
                print(f"round {round_no}/{args.rounds}: {name} ...", file=sys.stderr)
                runs.append(figures(run_bench(tree, bench_args, log)))
        print(f"bench {' '.join(bench_args)}; {args.rounds} round(s) each, interleaved; "
              f"ref {args.ref} = {sha[:12]}")
        print(table(ref_runs, work_runs, args.ref))
    finally:
        git("worktree", "remove", "--force", str(ref_tree), check=False)
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
