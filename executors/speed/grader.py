"""Grade a speed submission: A/B timed calls in fresh sandboxed children, checked outside.

For every shape (a drawn one gets its parameters now), ``pairs`` rounds of three calls (two
more at a time, up to ``max_pairs``, while the shape is undecided): the reference (A), the
submission (B) and a no-op (N), in alternating order (A B N, then N B A),
all three on the same freshly seeded inputs, each in a fresh child. Every call's output
crosses as plain data and is compared here with the reference's on the same inputs; the
first difference ends the verdict. Times are the kernel's (executors.speed.timer): the call's
window, plus, for the submission, whatever it spent after the call beyond what the reference
spent there on the same shape (work deferred past its return is its work). The no-op's
median is the fixed cost, taken off both sides. The speedup per shape is the ratio of
medians with a bootstrap 95 % interval; the submission is faster only when the lower bound
is at least ``faster_at`` at every shape. A speedup above ``cap``, or a median below what the
memory could move (bytes touched ÷ the bandwidth the timer measured), is held for an admin.
"""

from __future__ import annotations

import logging
import math
import random
import secrets
import statistics
import time
from dataclasses import dataclass
from typing import Any, Protocol

from content.schema import SpeedItem, SpeedShape, Tolerance
from executors.engine import DEFAULT_MAX_CODE_BYTES, precheck
from executors.grading import wire
from executors.grading.reasons import Reason
from executors.grading.verdict import Status, Verdict, fault_verdict, user_text
from executors.isolation.limits import MIB, Limits
from executors.speed import stats
from executors.speed.supervisor import TimedCall

log = logging.getLogger(__name__)

NEEDS_GPU = ("challenge {id} is timed on a CUDA GPU, and this executor has none; it needs a "
             "GPU executor")  # fmt: skip
GPU_TIMING = ("challenge {id} is timed on a GPU, and this executor times CPU challenges only; "
              "it needs a GPU executor")  # fmt: skip


class CallTimer(Protocol):
    """What the grader needs of the timer (executors.speed.supervisor.SpeedTimer)."""

    @property
    def bandwidth(self) -> float:
        """Return the memory bandwidth in bytes per nanosecond."""
        ...

    def call(self, request: dict[str, Any], limits: Limits, *, seed: int) -> TimedCall:
        """Run one request in a fresh child on inputs of ``seed`` and time it."""
        ...


@dataclass(frozen=True)
class SpeedRules:
    """How a verdict is measured and judged."""

    pairs: int = 5
    # An undecided shape (its point speedup reaches faster_at, its lower bound does not) gets
    # two more rounds at a time, up to this many: one slow moment among five rounds is enough
    # to sink a bootstrap bound, and a verdict that says "not faster" to a solution that is
    # faster, or the reverse, is what members would call unfair.
    max_pairs: int = 11
    faster_at: float = 1.1
    # A speedup above the cap is held for an admin and scores no more than the cap. The cap is
    # this floor or this many times the author's suggested target, whichever is higher: with
    # the window holding the call alone, honest solutions of the bank measure 15-155x, each
    # within ten times its item's target.
    cap: float = 50.0
    cap_over_target: float = 10.0
    call_timeout_s: float = 10.0

    def cap_for(self, item: SpeedItem) -> float:
        """Return the speedup above which a verdict on ``item`` is held."""
        return max(self.cap, self.cap_over_target * item.speed.target_speedup)


class _Stop(Exception):
    """End a verdict early: the submission failed, or the reference did (a fault)."""

    def __init__(self, status: Status, message: str, *, fault: bool = False,
                 call: TimedCall | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.fault, self.call = status, message, fault, call


def draw_params(shape: SpeedShape, rng: random.Random) -> dict[str, int]:
    """Return the shape's parameters with every [lo, hi] range drawn."""
    return {k: (rng.randint(v[0], v[1]) if isinstance(v, list) else v)
            for k, v in shape.params.items()}  # fmt: skip


def _x(value: float) -> str:
    return f"{value:.2f}×" if value < 10 else f"{value:.1f}×"


def compare(got: Any, want: Any, tol: Tolerance, where: str = "the result") -> str | None:
    """Return why ``got`` differs from the reference's ``want``, or None when they match."""
    import torch

    if isinstance(want, wire.TensorData):
        if not isinstance(got, wire.TensorData):
            return f"{where} should be a tensor"
        if got.dtype != want.dtype or got.shape != want.shape:
            return (f"{where} is {got.dtype} {list(got.shape)}, the reference gives "
                    f"{want.dtype} {list(want.shape)}")  # fmt: skip
        g, w = got.to_tensor(), want.to_tensor()
        if not (w.is_floating_point() or w.is_complex()):
            return None if torch.equal(g, w) else f"{where} has different values"
        finite = torch.isfinite(w)
        if not bool(torch.isfinite(g)[finite].all()):
            return f"{where} has NaN or inf where the reference has a number"
        if not torch.equal(torch.isnan(g), torch.isnan(w)):
            return f"{where} has NaN where the reference does not"
        if not torch.allclose(g, w, rtol=tol.rtol, atol=tol.atol, equal_nan=True):
            worst = float((g[finite] - w[finite]).abs().max()) if finite.any() else math.nan
            return f"{where} differs from the reference (largest difference {worst:.3g})"
        return None
    if isinstance(want, list | tuple):
        if not isinstance(got, list | tuple) or len(got) != len(want):
            return f"{where} should be a sequence of {len(want)} values"
        for i, (g_item, w_item) in enumerate(zip(got, want, strict=True)):
            problem = compare(g_item, w_item, tol, f"{where}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(want, bool) or not isinstance(want, int | float):
        return None if got == want else f"{where} differs from the reference"
    if isinstance(got, bool) or not isinstance(got, int | float):
        return f"{where} should be a number"
    if not math.isfinite(got) and math.isfinite(want):
        return f"{where} is NaN or inf where the reference has a number"
    if not math.isclose(got, want, rel_tol=tol.rtol, abs_tol=tol.atol):
        return f"{where} is {got!r}, the reference gives {want!r}"
    return None


def _bytes_of(value: Any) -> int:
    if isinstance(value, wire.TensorData):
        return len(value.data)
    if isinstance(value, list | tuple):
        return sum(_bytes_of(v) for v in value)
    return 0


class SpeedGrader:
    """Time submissions to speed challenges against their references."""

    def __init__(self, timer: CallTimer | None, *, rules: SpeedRules | None = None,
                 cuda_available: bool = False,
                 max_code_bytes: int = DEFAULT_MAX_CODE_BYTES) -> None:  # fmt: skip
        self.timer = timer
        self.rules = rules or SpeedRules()
        self.cuda = cuda_available
        self.max_code_bytes = max_code_bytes

    def _verdict(self, item: SpeedItem, status: Status, message: str | Reason, started: float,
                 *, seed: int | None, passed: int = 0, total: int = 0,
                 speed: dict[str, Any] | None = None, call: TimedCall | None = None) -> Verdict:
        # A reason (the shared pre-run checks give one) is worded by each front end.
        reason = message if isinstance(message, Reason) else None
        return Verdict(
            status=status, passed_tests=passed, total_tests=total, reason=reason,
            message="" if reason is not None else str(message)[:1500],
            stdout=user_text(call.stdout) if call else "",
            stderr=user_text(call.stderr) if call else "",
            duration_ms=int((time.monotonic() - started) * 1000), challenge_id=item.id,
            challenge_version=item.version, seed=seed, speed=speed,
        )  # fmt: skip

    def run(self, item: SpeedItem, code: str | bytes, *, seed: int | None = None) -> Verdict:
        """Return the verdict of ``code`` on ``item``; a user failure is a verdict, never raised."""
        started = time.monotonic()
        if item.speed.requires:
            text = NEEDS_GPU if not self.cuda else GPU_TIMING
            return self._verdict(item, Status.REJECTED, text.format(id=item.id), started,
                                 seed=seed)  # fmt: skip
        problem, source = precheck(code, self.max_code_bytes)
        if problem is not None:
            return self._verdict(item, Status.REJECTED, problem, started, seed=seed)
        if self.timer is None:
            raise RuntimeError("this grader has no timer")
        seed = secrets.randbits(62) if seed is None else seed
        try:
            return self._measure(item, source, seed, started)
        except _Stop as stop:
            if stop.fault:
                log.error("speed %s v%d: %s", item.id, item.version, stop.message)
                return fault_verdict(item.id, item.version, seed,
                                     (time.monotonic() - started) * 1000, stop.message)
            return self._verdict(item, stop.status, stop.message, started, seed=seed,
                                 total=len(item.speed.shapes) * self.rules.pairs,
                                 call=stop.call)  # fmt: skip

    def _limits(self, item: SpeedItem) -> Limits:
        wall = self.rules.call_timeout_s
        return Limits(wall_s=wall, cpu_s=max(1, math.ceil(wall)),
                      memory_bytes=item.speed.memory_mb * MIB, threads=1)  # fmt: skip

    def _call(self, item: SpeedItem, code: str, params: dict[str, int], seed: int, *,
              role: str, limits: Limits, warm_seed: int) -> tuple[TimedCall, Any, int]:
        """Run one call; return it, its output and the input bytes, or stop the verdict."""
        assert self.timer is not None  # noqa: S101 - checked by run()
        request = {"speed": 1, "code": code, "entrypoint": item.speed.entrypoint,
                   "inputs": item.speed.inputs, "params": params, "noop": role == "noop",
                   "device": "cpu", "warm_seed": warm_seed}  # fmt: skip
        call = self.timer.call(request, limits, seed=seed)
        ours = role != "submission"
        if call.setup_error:
            raise _Stop(Status.ERROR, f"the sandbox could not start: {call.setup_error}",
                        fault=True)  # fmt: skip
        record: Any = None
        try:
            for frame in wire.iter_frames(call.result):
                record = wire.decode(frame, max_bytes=limits.result_bytes)
                break
        except wire.WireError as exc:
            if ours:
                raise _Stop(Status.ERROR, f"the {role} broke its result: {exc}",
                            fault=True) from exc  # fmt: skip
            raise _Stop(Status.ERROR, f"your code broke the result stream ({exc})",
                        call=call) from exc  # fmt: skip
        where = f"at shape {params}"
        if not isinstance(record, dict):
            if ours:
                raise _Stop(Status.ERROR, f"the {role} gave no result {where}", fault=True)
            if call.out_of_step:
                raise _Stop(Status.ERROR, f"your code talked to the timer out of step (it wrote "
                            f"on the harness's socket) {where}", call=call)  # fmt: skip
            if call.timed_out:
                raise _Stop(Status.TIMEOUT, f"time limit exceeded {where}: your code ran longer "
                            f"than {limits.wall_s:g} s", call=call)  # fmt: skip
            if call.memory_exceeded:
                raise _Stop(Status.MEMORY_LIMIT, f"memory limit exceeded {where}: more than "
                            f"{limits.memory_bytes // MIB} MiB", call=call)  # fmt: skip
            raise _Stop(Status.ERROR, f"your code exited without a result {where}", call=call)
        if not record.get("ok"):
            error = record.get("error") or {}
            text = f"{error.get('type', 'Error')}: {error.get('message', '')}"
            if ours:
                raise _Stop(Status.ERROR, f"the {role} failed {where}: {text}", fault=True)
            line = f" (line {error['line']})" if error.get("line") else ""
            status = Status.FAILED if error.get("type") == "SpeedError" else Status.ERROR
            raise _Stop(status, f"{text}{line} {where}", call=call)
        in_bytes = record.get("in_bytes")
        return call, record.get("output"), in_bytes if type(in_bytes) is int else 0

    def _measure(self, item: SpeedItem, code: str, seed: int, started: float) -> Verdict:
        rules, spec = self.rules, item.speed
        cap = rules.cap_for(item)
        rng = random.Random(seed)  # noqa: S311 - the verdict seed draws shapes and inputs
        limits = self._limits(item)
        shapes: list[dict[str, Any]] = []
        held: list[str] = []
        checked = 0
        last: TimedCall | None = None
        for shape in spec.shapes:
            params = draw_params(shape, rng)
            calls: dict[str, list[TimedCall]] = {"reference": [], "submission": [], "noop": []}
            touched = 0
            rounds = 0
            while True:
                for i in range(rounds, rounds + (rules.pairs if rounds == 0 else 2)):
                    call_seed, warm_seed = rng.getrandbits(62), rng.getrandbits(62)
                    order = ("reference", "submission", "noop") if i % 2 == 0 else (
                        "noop", "submission", "reference")
                    outputs: dict[str, Any] = {}
                    for role in order:
                        source = spec.reference if role == "reference" else code
                        call, output, in_bytes = self._call(item, source, params, call_seed,
                                                            role=role, limits=limits,
                                                            warm_seed=warm_seed)  # fmt: skip
                        calls[role].append(call)
                        outputs[role] = output
                        if role == "submission":
                            last = call
                            touched = max(touched, in_bytes + _bytes_of(output))
                    problem = compare(outputs["submission"], outputs["reference"],
                                      spec.tolerance)  # fmt: skip
                    if problem:
                        raise _Stop(Status.FAILED, f"wrong result at shape {shape.name} "
                                    f"{params}: {problem}", call=last)  # fmt: skip
                    checked += 1
                rounds = len(calls["noop"])
                base = statistics.median(c.cpu_ns for c in calls["noop"])
                ref = stats.net_times([c.cpu_ns for c in calls["reference"]], base)
                sub = stats.net_times(stats.charged(
                    [(c.cpu_ns, c.after_ns) for c in calls["submission"]],
                    statistics.median(c.after_ns for c in calls["reference"])), base)
                speedup, low, high = stats.speedup_interval(ref, sub, seed=seed)
                undecided = low < rules.faster_at <= speedup
                if not undecided or rounds + 2 > max(rules.max_pairs, rules.pairs):
                    break
            floor_ns = touched / max(self.timer.bandwidth if self.timer else 1.0, 1e-6)
            if speedup > cap:
                held.append(f"{shape.name}: {_x(speedup)} is above the cap of {_x(cap)}")
            if statistics.median(sub) < floor_ns:
                held.append(f"{shape.name}: {statistics.median(sub) / 1e3:.0f} µs is less than "
                            f"moving its {touched:,} bytes takes ({floor_ns / 1e3:.0f} µs)")
            shapes.append({
                "shape": shape.name, "params": params, "speedup": round(speedup, 3),
                "low": round(low, 3), "high": round(high, 3),
                "reference_ms": round(statistics.median(ref) / 1e6, 3),
                "submission_ms": round(statistics.median(sub) / 1e6, 3),
                "baseline_ms": round(base / 1e6, 3), "pairs": rounds,
            })  # fmt: skip
        faster = all(s["low"] >= rules.faster_at for s in shapes)
        total_score = stats.score([s["speedup"] for s in shapes], cap)
        report = {
            "faster": faster, "held": bool(held), "reason": "; ".join(held),
            "score": round(total_score, 3), "cap": cap, "faster_at": rules.faster_at,
            "pairs": rules.pairs, "shapes": shapes,
            "checked": f"{checked} calls on fresh inputs, each compared with the reference "
                       f"(rtol {spec.tolerance.rtol:g}, atol {spec.tolerance.atol:g})",
        }  # fmt: skip
        per_shape = ", ".join(f"{s['shape']} {_x(s['speedup'])} [{s['low']:.2f}, "
                              f"{s['high']:.2f}]" for s in shapes)  # fmt: skip
        if faster:
            message = f"correct and faster: {per_shape}; score {_x(total_score)}"
            if held:
                message += f"; held for an admin to review ({report['reason']})"
        else:
            message = (f"correct but not faster (the interval's lower bound must reach "
                       f"{_x(rules.faster_at)} at every shape): {per_shape}")
        log.info("speed %s v%d: %s score %.2f held=%s", item.id, item.version,
                 "faster" if faster else "not faster", total_score, bool(held))
        return self._verdict(item, Status.PASSED if faster else Status.FAILED, message,
                             started, seed=seed, passed=checked, total=checked,
                             speed=report, call=last)  # fmt: skip
