"""Measure the warm executor against a fresh sandboxed process per submission."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from executors.cli.bench_http import http_rows, run_http_bench
from executors.grading import wire
from executors.isolation.limits import Limits
from executors.zygote.reports import RawRun
from executors.zygote.supervisor import Zygote

VERDICT_CHALLENGE = "code.one-hot"  # the simplest shipped challenge: no gradient check
CODE = "import torch\n\ndef f(x):\n    return torch.relu(x * 2 - 1).sum(dim=0)\n"
TARGETS = {"warm_p50_ms": 30.0, "speedup_p50": 50.0, "burst_s": 10.0, "zygote_rss_mb": 1536.0,
           "http_overhead_p50_ms": 3.0}
# The baseline: a fresh interpreter that imports torch and runs the same harness on stdin.
BASELINE_SCRIPT = (
    "import os, sys, torch\n"
    "from executors.zygote import harness\n"
    "r, w = os.pipe()\n"
    "harness.main(sys.stdin.buffer.read(), w)\n"
)


def bench_request() -> bytes:
    """Build the simple challenge every measurement runs."""
    import torch

    x = torch.linspace(-1.0, 1.0, 12).reshape(3, 4)
    case: dict[str, Any] = {"args": [x], "kwargs": {}, "grad": None, "check_inputs": False}
    return wire.encode({"code": CODE, "entrypoint": "f", "device": "cpu", "cases": [case]})


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": statistics.median(ordered), "p95": p95, "n": float(len(ordered))}


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000.0


def _check(raw: RawRun) -> None:
    if (raw.exit_code != 0 and not raw.early) or raw.timed_out:
        raise RuntimeError(f"benchmark run failed: {raw}")


def _rss_mb(pid: int | None) -> float:
    if pid is None:
        return 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return 0.0


def _baseline_command() -> tuple[list[str], str]:
    bwrap = shutil.which("bwrap")
    python = [sys.executable, "-c", BASELINE_SCRIPT]
    if bwrap:
        sandbox = ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev",
                   "--proc", "/proc", "--tmpfs", "/tmp"]  # noqa: S108  # fmt: skip
        return [bwrap, *sandbox, *python], "bwrap"
    unshare = shutil.which("unshare")
    if unshare and os.geteuid() == 0:
        flags = ["--net", "--ipc", "--uts", "--mount", "--pid", "--fork"]
        return [unshare, *flags, *python], "unshare(1) namespaces, no bwrap installed"
    return python, "plain process (no bwrap, no root)"


def run_baseline(request: bytes, n: int) -> tuple[list[float], str]:
    """Time n fresh sandboxed interpreters that import torch and run the same harness."""
    cmd, how = _baseline_command()
    root = str(Path(__file__).resolve().parents[2])
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OMP_NUM_THREADS": "1"}
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run(  # noqa: S603 - our interpreter, fixed arguments
            cmd, input=request, cwd=root, env=env, check=True, timeout=120,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples, how


def _verdict_samples(zygote: Zygote, n: int) -> dict[str, Any]:
    """Time whole verdicts (request, sandbox, decode, grade) on a shipped challenge."""
    from content.loader import load_bank
    from content.schema import CodeItem
    from executors.engine import LocalExecutor

    bank = load_bank()
    item = bank.questions.get(VERDICT_CHALLENGE)
    if not isinstance(item, CodeItem):
        item = bank.code_items()[0]
    solution = item.code.solution
    # Not closed here: closing the executor would stop the shared zygote the caller owns.
    executor = LocalExecutor(bank, zygote)
    first = executor.run(item.id, solution)  # builds and caches the references
    if first.status != "passed":
        raise RuntimeError(f"reference solution of {item.id} did not pass: {first.message}")
    samples = [_timed(lambda: executor.run(item.id, solution)) for _ in range(n)]
    return {"challenge": item.id, "tests": first.total_tests, **_percentiles(samples)}


def run_bench(n: int = 50, burst: int = 200, baseline_n: int = 5) -> dict[str, Any]:
    """Run every measurement once, side by side, and return the figures."""
    request = bench_request()
    limits = Limits()
    with Zygote(limits) as zygote:
        for _ in range(3):  # warm the page cache and the allocator
            _check(zygote.run(request))
        zygote.setup_ms_recent.clear()
        zygote.timelines_recent.clear()
        warm = [_timed(lambda: _check(zygote.run(request))) for _ in range(n)]
        setup = list(zygote.setup_ms_recent)
        timelines = list(zygote.timelines_recent)
        sandbox_ms = [zygote.run(request).duration_ms for _ in range(min(n, 20))]
        results: list[RawRun] = []
        lock = threading.Lock()

        def one() -> None:
            raw = zygote.run(request)
            with lock:
                results.append(raw)

        threads = [threading.Thread(target=one) for _ in range(burst)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        burst_s = time.perf_counter() - start
        ok = sum(1 for raw in results if (raw.exit_code == 0 or raw.early) and not raw.timed_out)
        zygote_rss = _rss_mb(zygote.pid)
        template_rss = _rss_mb(zygote.hello.get("template_pid"))
        layers_on = all(status.active for status in zygote.layers().values())
        verdicts = _verdict_samples(zygote, n)
    baseline, how = run_baseline(request, baseline_n)
    warm_p = _percentiles(warm)
    base_p = _percentiles(baseline)
    return {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "all_layers_active": layers_on,
        "warm_ms": warm_p,
        "verdict_ms": verdicts,
        "warm_in_sandbox_ms": _percentiles(sandbox_ms),
        "isolation_setup_ms": _percentiles(setup) if setup else None,
        "phases": ", ".join(
            f"{key} {statistics.median(t[key] for t in timelines):.1f} ms"
            for key in ("output_closed", "exited", "finished")
        ) if timelines else "",
        "baseline_ms": base_p,
        "baseline_kind": how,
        "speedup_p50": base_p["p50"] / warm_p["p50"],
        "burst": {"submissions": burst, "ok": ok, "seconds": burst_s},
        "zygote_rss_mb": zygote_rss,
        "template_rss_mb": template_rss,
    }


def report(figures: dict[str, Any]) -> str:
    """Format the figures as a readable table with the targets."""
    warm, base, burst = figures["warm_ms"], figures["baseline_ms"], figures["burst"]
    setup = figures["isolation_setup_ms"] or {"p50": float("nan"), "p95": float("nan")}
    rows = [
        ("warm executor, sequential", f"p50 {warm['p50']:.1f} ms  p95 {warm['p95']:.1f} ms",
         f"p50 < {TARGETS['warm_p50_ms']:.0f} ms"),
        (f"whole verdict, {figures['verdict_ms']['challenge']} "
         f"({figures['verdict_ms']['tests']} tests, graded)",
         f"p50 {figures['verdict_ms']['p50']:.1f} ms  p95 {figures['verdict_ms']['p95']:.1f} ms",
         f"p50 < {TARGETS['warm_p50_ms']:.0f} ms"),
        ("fork + isolation (before the request)",
         f"p50 {setup['p50']:.1f} ms  p95 {setup['p95']:.1f} ms", ""),
        ("run phases after dispatch (p50)", figures["phases"], ""),
        (f"baseline ({figures['baseline_kind']})",
         f"p50 {base['p50']:.0f} ms  p95 {base['p95']:.0f} ms", ""),
        ("speedup at p50", f"{figures['speedup_p50']:.0f}x",
         f">= {TARGETS['speedup_p50']:.0f}x"),
        (f"burst of {burst['submissions']}", f"{burst['seconds']:.2f} s ({burst['ok']} ok)",
         f"< {TARGETS['burst_s']:.0f} s"),
        ("zygote RSS", f"{figures['zygote_rss_mb']:.0f} MB (template "
         f"{figures['template_rss_mb']:.0f} MB)", f"< {TARGETS['zygote_rss_mb']:.0f} MB"),
        ("all layers active", str(figures["all_layers_active"]), "True"),
    ]  # fmt: skip
    if figures.get("service"):
        rows += http_rows(figures["service"], TARGETS["http_overhead_p50_ms"])
    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    lines = [f"{'measure':<{width}}  {'value':<{value_width}}  target"]
    lines += [f"{a:<{width}}  {b:<{value_width}}  {c}" for a, b, c in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table plus one JSON line (`torchquiz bench executor`)."""
    parser = argparse.ArgumentParser(prog="torchquiz bench executor")
    parser.add_argument("--n", type=int, default=50, help="sequential warm submissions")
    parser.add_argument("--burst", type=int, default=200, help="submissions sent at once")
    parser.add_argument("--baseline-n", type=int, default=5, help="fresh-process submissions")
    parser.add_argument("--replicas", type=int, default=3,
                        help="local service replicas for the HTTP figures (0: skip them)")
    args = parser.parse_args(argv)
    figures = run_bench(args.n, args.burst, args.baseline_n)
    if args.replicas > 0:
        # After the in-process figures, so the replicas' zygotes do not disturb them.
        figures["service"] = run_http_bench(args.n, args.burst, args.replicas)
    sys.stdout.write(report(figures) + "\n" + json.dumps(figures) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
