"""Measure the executor service: HTTP overhead, replicas, and a team pack's challenge remotely.

A pack's challenge is graded from the definition its run carries: built on the replica the
first time, then cached. Replicas are real ``torchquiz executor serve`` processes on
127.0.0.1, each with its own zygote, reached through the same ExecutorClient the bot uses.
"""

from __future__ import annotations

import os
import secrets
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any

from content.loader import load_bank
from content.schema import CodeItem
from executors.grading.verdict import Status
from executors.service.client import ExecutorClient
from executors.service.protocol import PackDefinition
from executors.service.replicas import ReplicaProcess

BURST_THREADS = 64  # submissions in flight at once, like a team answering at 09:00


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": statistics.median(ordered), "p95": p95, "n": float(len(ordered))}


def _burst(client: ExecutorClient, challenge_id: str, code: str, n: int) -> dict[str, float]:
    start = time.perf_counter()
    with ThreadPoolExecutor(min(BURST_THREADS, n)) as pool:
        statuses = list(pool.map(lambda _: client.run(challenge_id, code).status, range(n)))
    seconds = time.perf_counter() - start
    ok = sum(1 for s in statuses if s is Status.PASSED)
    return {"submissions": n, "ok": ok, "seconds": seconds, "per_s": n / seconds}


def pack_build_figures(client: ExecutorClient, builds: int = 5, cached: int = 20
                       ) -> dict[str, Any]:
    """Time a pack challenge's first verdict on a replica (built there) against cached ones.

    Each "first" run sends a definition the replica has not seen (its generator differs by a
    comment), so it builds the challenge in the sandbox: the generator's run, the reference's
    run, then the submission's. The cached runs resend one definition.
    """
    from content.packs import SCAFFOLD, parse_pack

    pack = parse_pack(SCAFFOLD.encode()).pack
    if pack is None or not pack.code_items():
        raise RuntimeError("the scaffold pack has no code challenge")
    item = pack.code_items()[0]
    tag = secrets.token_hex(4)

    def definition(k: int) -> PackDefinition:
        data = item.model_dump(mode="json", by_alias=True)
        tests = data["code"]["tests"]
        tests["generator"] = f"{tests['generator']}\n# bench {tag} {k}\n"
        return PackDefinition.make(pack.id, pack.header.version, data)

    def timed(d: PackDefinition) -> float:
        started = time.perf_counter()
        verdict = client.run(item.id, item.code.solution, definition=d)
        if verdict.status is not Status.PASSED:
            raise RuntimeError(f"pack benchmark verdict failed: {verdict}")
        return (time.perf_counter() - started) * 1000.0

    first = [timed(definition(k)) for k in range(builds)]
    again = definition(0)
    warm = [timed(again) for _ in range(cached)]
    return {"challenge": item.id, "first_ms": _percentiles(first),
            "cached_ms": _percentiles(warm)}


def run_http_bench(n: int = 50, burst: int = 200, replicas: int = 3,
                   challenge: str = "code.one-hot") -> dict[str, Any]:
    """Start ``replicas`` local replicas; time sequential verdicts and a burst on 1 and on all."""
    item = load_bank().questions.get(challenge)
    if not isinstance(item, CodeItem):
        raise ValueError(f"no code challenge {challenge}")
    token = secrets.token_hex(16)
    cpus = os.cpu_count() or 1
    with ExitStack() as stack:
        procs = [stack.enter_context(ReplicaProcess(token, max_parallel=cpus, max_queue=burst))
                 for _ in range(replicas)]
        for proc in procs:
            proc.start()  # every replica warms up at once
        for proc in procs:
            proc.wait_ready()
        one = ExecutorClient([procs[0].url], token)
        for _ in range(3):  # warm the connection, the challenge cache and the page cache
            one.run(item.id, item.code.solution)
        round_trips, overheads = [], []
        for _ in range(n):
            started = time.perf_counter()
            verdict = one.run(item.id, item.code.solution)
            total_ms = (time.perf_counter() - started) * 1000.0
            engine_ms = one.last_engine_ms()
            if verdict.status is not Status.PASSED or engine_ms is None:
                raise RuntimeError(f"benchmark verdict failed: {verdict}")
            round_trips.append(total_ms)
            overheads.append(total_ms - engine_ms)
        packs = pack_build_figures(one, builds=max(1, min(5, n)), cached=n)
        single = _burst(one, item.id, item.code.solution, burst)
        spread = _burst(ExecutorClient([p.url for p in procs], token), item.id,
                        item.code.solution, burst)
    return {
        "challenge": item.id,
        "http_verdict_ms": _percentiles(round_trips),
        "http_overhead_ms": _percentiles(overheads),
        "replicas": replicas,
        "max_parallel_per_replica": cpus,
        "burst_one_replica": single,
        "burst_all_replicas": spread,
        "replica_speedup": spread["per_s"] / single["per_s"],
        "pack_challenge": packs,
    }


def http_rows(figures: dict[str, Any], target_overhead_ms: float) -> list[tuple[str, str, str]]:
    """Return the report rows for the service figures."""
    rt, over = figures["http_verdict_ms"], figures["http_overhead_ms"]
    one, spread = figures["burst_one_replica"], figures["burst_all_replicas"]
    n = figures["replicas"]
    rows = [
        (f"whole verdict over HTTP, {figures['challenge']} (loopback)",
         f"p50 {rt['p50']:.1f} ms  p95 {rt['p95']:.1f} ms", ""),
        ("HTTP overhead per verdict (round trip - engine)",
         f"p50 {over['p50']:.2f} ms  p95 {over['p95']:.2f} ms",
         f"p50 <= {target_overhead_ms:.0f} ms"),
        (f"burst of {one['submissions']}, 1 replica",
         f"{one['seconds']:.2f} s, {one['per_s']:.0f}/s ({one['ok']} ok)", ""),
        (f"burst of {spread['submissions']}, {n} replicas",
         f"{spread['seconds']:.2f} s, {spread['per_s']:.0f}/s ({spread['ok']} ok), "
         f"{figures['replica_speedup']:.2f}x one", ""),
    ]  # fmt: skip
    packs = figures.get("pack_challenge")
    if packs:
        rows += [
            (f"pack challenge {packs['challenge']}: first verdict (built on the replica)",
             f"p50 {packs['first_ms']['p50']:.0f} ms  p95 {packs['first_ms']['p95']:.0f} ms",
             ""),
            ("pack challenge: verdict with the challenge cached",
             f"p50 {packs['cached_ms']['p50']:.1f} ms  p95 {packs['cached_ms']['p95']:.1f} ms",
             ""),
        ]
    return rows
