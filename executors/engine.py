"""Run submissions through the local sandbox and turn each run into a Verdict."""

from __future__ import annotations

import collections
import dataclasses
import logging
import math
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from content.loader import Bank
from content.schema import CodeItem
from executors.grading import wire
from executors.grading.challenges import (
    PACK_ITEM_PREFIX,
    Challenge,
    ChallengeBuildError,
    ChallengeCache,
    UnknownChallenge,
)
from executors.grading.grader import Grade, grade_records
from executors.grading.reasons import Param, Reason
from executors.grading.verdict import Status, Verdict, fault_verdict, user_text
from executors.isolation.limits import MIB, Limits
from executors.zygote.reports import RawRun

log = logging.getLogger(__name__)

DEFAULT_MAX_CODE_BYTES = 16 * 1024

__all__ = ["DEFAULT_MAX_CODE_BYTES", "LocalExecutor", "SandboxRunner", "UnknownChallenge"]


class SandboxRunner(Protocol):
    """What the executor needs of a sandbox (the zygote supervisor's ``Zygote`` satisfies it)."""

    def run(self, request: bytes, limits: Limits) -> RawRun:
        """Run one harness request under ``limits`` and return what came back."""
        ...

    def close(self) -> None:
        """Stop the sandbox and release its processes."""
        ...


# Builds a team pack's challenge with every line of its code in the sandbox
# (executors.grading.pack_challenges.build_pack_challenge; wired by the composition root).
PackBuilder = Callable[[CodeItem, SandboxRunner, Limits, int], Challenge]


def detect_cuda() -> bool:
    """Return whether this machine can run CUDA challenges, without initialising CUDA here.

    Only sandbox children use the GPU; a CUDA context in the trusted process would cost GPU
    memory for nothing and break any later fork. NVML answers without cuInit.
    """
    import torch

    if torch.version.cuda is None:
        return False
    try:
        count = int(torch.cuda._device_count_nvml())
    except Exception:
        count = -1
    if count >= 0:
        return count > 0
    return os.path.exists("/dev/nvidia0")


def limits_for(base: Limits, challenge: Challenge) -> Limits:
    """Return ``base`` with the challenge's own time and memory budget."""
    return budget_limits(base, challenge.timeout_s, challenge.memory_mb)


def budget_limits(base: Limits, timeout_s: float, memory_mb: int) -> Limits:
    """Return ``base`` with a time and memory budget."""
    return dataclasses.replace(
        base, wall_s=timeout_s, cpu_s=max(1, math.ceil(timeout_s)), memory_bytes=memory_mb * MIB
    )


def precheck(code: str | bytes, max_code_bytes: int) -> tuple[Reason | None, str]:
    """Return (why the code is rejected or None, the code as text) before anything runs."""
    if isinstance(code, bytes):
        raw = code
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Reason("not_utf8", {"byte": raw[exc.start], "offset": exc.start}), ""
    else:
        text = code
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return Reason("unpaired_surrogate", {"offset": exc.start}), ""
    if len(raw) > max_code_bytes:
        return Reason("too_large", {"size": len(raw), "limit": max_code_bytes}), ""
    if "\x00" in text:
        return Reason("nul_byte", {"offset": text.index(chr(0))}), ""
    if not text.strip():
        return Reason("empty"), ""
    return None, text


def decode_stream(
    result: bytes, max_bytes: int, max_records: int
) -> tuple[list[Any], str | None]:
    """Decode the framed result stream; return the records and what broke it, if anything.

    The harness sends one record to say the code loaded and one per test: decoding stops
    there, so a flood of tiny frames cannot cost the trusted side seconds of CPU.
    """
    records: list[Any] = []
    try:
        for payload in wire.iter_frames(result):
            if len(records) >= max_records:
                return records, f"more than {max_records} records"
            records.append(wire.decode(payload, max_bytes=max_bytes))
    except wire.WireError as exc:
        return records, str(exc)
    return records, None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"


def judge(
    challenge: Challenge, raw: RawRun, limits: Limits
) -> tuple[Status, int, Reason | None]:
    """Map a sandbox run and its records to (status, tests passed, why it failed or None)."""
    records, broken = decode_stream(raw.result, limits.result_bytes, challenge.total + 1)
    grade: Grade | None = grade_records(challenge, records) if records else None
    passed = grade.passed_tests if grade is not None else 0
    total = challenge.total
    # Where a run stopped, for limit messages: the test after the last one that reported.
    reported = max(0, len(records) - 1)
    during: dict[str, Param] = {"at": min(reported + 1, total), "of": total} if records else {}
    if raw.timed_out or raw.signal == signal.SIGXCPU:
        return Status.TIMEOUT, passed, Reason("timeout", {"seconds": float(limits.wall_s),
                                                          **during})
    if raw.memory_exceeded:
        if grade is not None and grade.status is Status.MEMORY_LIMIT and grade.reason:
            return Status.MEMORY_LIMIT, passed, grade.reason  # the allocator's own words
        return Status.MEMORY_LIMIT, passed, Reason(
            "memory_limit", {"limit_mb": limits.memory_bytes // MIB, **during})
    if raw.output_exceeded:
        return Status.OUTPUT_LIMIT, passed, Reason("output_limit", {"limit": limits.output_bytes})
    if raw.result_truncated:
        return Status.OUTPUT_LIMIT, passed, Reason("result_limit", {"limit": limits.result_bytes})
    if grade is not None and grade.final:
        # Every test reported, or one failed before the run ended: the grade says it best.
        return grade.status, passed, grade.reason
    if raw.signal is not None:
        return Status.ERROR, passed, Reason("crashed", {"signal": _signal_name(raw.signal),
                                                        **during})
    if broken is not None:
        return Status.ERROR, passed, Reason("broken_stream", during, quote=broken[:200])
    if raw.exit_code not in (0, None):
        return Status.ERROR, passed, Reason("exit_status", {"status": raw.exit_code, **during})
    return Status.ERROR, passed, Reason("exited_early", during)


class LocalExecutor:
    """Grade submissions in the local sandbox; safe to call from many threads at once."""

    def __init__(
        self,
        bank: Bank,
        zygote: SandboxRunner,
        *,
        max_code_bytes: int = DEFAULT_MAX_CODE_BYTES,
        cuda_available: bool | None = None,
        base_limits: Limits | None = None,
        pack_builder: PackBuilder | None = None,
    ) -> None:
        self._pack_builder = pack_builder
        self._bank = bank
        self._challenges = ChallengeCache(bank, build_pack=self._build_pack)
        self._zygote = zygote
        self._max_code_bytes = max_code_bytes
        self._cuda = detect_cuda() if cuda_available is None else cuda_available
        self._base_limits = base_limits or Limits()
        self._closed = threading.Event()
        if self._cuda:
            self._warm_gpu_child()

    def _warm_gpu_child(self) -> None:
        """Ask the sandbox to keep a GPU child waiting under the most common GPU budget."""
        warm = getattr(self._zygote, "warm", None)
        budgets = collections.Counter(
            (item.code.timeout_s, item.code.memory_mb)
            for item in map(self._challenges.item, self._challenges.ids())
            if "cuda" in item.code.requires
        )
        if warm is None or not budgets:
            return
        (timeout_s, memory_mb), _ = budgets.most_common(1)[0]
        warm(budget_limits(self._base_limits, timeout_s, memory_mb), "cuda")

    def _build_pack(self, item: CodeItem, seed: int) -> Challenge:
        # A team pack's generator and reference run as sandbox runs, never here.
        if self._pack_builder is None:
            raise ChallengeBuildError(f"{item.id}: this executor builds no pack challenges")
        return self._pack_builder(item, self._zygote, self._base_limits, seed)

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the sandbox; later calls to ``run`` raise RuntimeError."""
        if not self._closed.is_set():
            self._closed.set()
            self._zygote.close()

    def available_challenges(self) -> list[str]:
        """Return the ids of the code challenges this machine can run, sorted."""
        return [cid for cid in self._challenges.ids() if self.supports(cid)[0]]

    def supports(self, challenge_id: str) -> tuple[bool, str]:
        """Return whether ``challenge_id`` can run here, and why not when it cannot."""
        return self._supports(self._challenges.item(challenge_id))

    def _supports(self, item: CodeItem) -> tuple[bool, str]:
        reason = self._refusal(item)
        return (False, reason.english()) if reason is not None else (True, "")

    def _refusal(self, item: CodeItem) -> Reason | None:
        if "cuda" in item.code.requires and not self._cuda:
            return Reason("needs_cuda", {"challenge": item.id})
        return None

    def _supplied(self, challenge_id: str, item: CodeItem) -> CodeItem:
        """Check a pack item sent with a run: its own id, a pack's, never the bank's."""
        if item.id != challenge_id or not item.id.startswith(PACK_ITEM_PREFIX):
            raise ValueError(f"a supplied item must be the team pack item {challenge_id!r}")
        if challenge_id in self._bank.questions:
            raise ValueError(f"{challenge_id!r} is in this executor's bank; supply no item")
        return item

    def challenge_item(self, challenge_id: str) -> CodeItem:
        """Return the bank item of ``challenge_id`` (UnknownChallenge when there is none)."""
        return self._challenges.item(challenge_id)

    def challenge(self, challenge_id: str, seed: int | None = None) -> Challenge:
        """Return the built challenge (hidden tests and references), building it if needed."""
        return self._challenges.get(challenge_id, seed)

    def run(self, challenge_id: str, code: str | bytes, *, seed: int | None = None,
            item: CodeItem | None = None) -> Verdict:
        """Run ``code`` against the hidden tests of ``challenge_id`` and return the verdict.

        ``seed`` draws the hidden inputs (None: the challenge's fixed seed). ``item`` is a
        team pack's code item this executor's bank does not hold (the service's replicas get
        it with the run); it is built like any pack challenge, in the sandbox. A fault of the
        trusted side while grading this one run is a verdict with ``fault=True``, never an
        exception that would cost the caller its other submissions.
        """
        if self._closed.is_set():
            raise RuntimeError("the executor is closed")
        started = time.monotonic()
        if item is None:
            item = self._challenges.item(challenge_id)  # UnknownChallenge: the caller's mistake
        else:
            item = self._supplied(challenge_id, item)
        refusal = self._refusal(item)
        problem, text = precheck(code, self._max_code_bytes)
        if refusal is not None or problem is not None:
            # A rejection does not build the challenge: its total is not needed to say no.
            verdict = Verdict(
                status=Status.REJECTED,
                passed_tests=0,
                total_tests=0,
                reason=refusal or problem,
                duration_ms=int((time.monotonic() - started) * 1000),
                challenge_id=item.id,
                challenge_version=item.version,
                seed=seed,
            )
            log.info("exec %s v%d: rejected (%s)", item.id, item.version,
                     "cuda" if refusal is not None else "precheck")
            return verdict
        challenge = self._challenges.get_item(item, seed)
        limits = limits_for(self._base_limits, challenge)
        raw = self._zygote.run(challenge.request(text), limits)
        try:
            status, passed, reason = judge(challenge, raw, limits)
        except Exception:
            # Whatever the run sent back broke our own grading code: a bug on the trusted side
            # that this submission found. Its verdict says so; the next submission is unaffected.
            log.exception("grading failed: challenge %s v%d seed %d", challenge.id,
                          challenge.version, challenge.seed)
            return self._fault(challenge, raw.duration_ms)
        verdict = Verdict(
            status=status,
            passed_tests=passed,
            total_tests=challenge.total,
            reason=reason,
            stdout=user_text(raw.stdout, truncated=raw.stdout_truncated),
            stderr=user_text(raw.stderr, truncated=raw.stderr_truncated),
            duration_ms=int(raw.duration_ms),
            challenge_id=challenge.id,
            challenge_version=challenge.version,
            seed=challenge.seed,
        )
        log.info(
            "exec %s v%d: %s %d/%d in %d ms (sandbox exit %s, signal %s)",
            challenge.id, challenge.version, status, passed, challenge.total,
            verdict.duration_ms, raw.exit_code, raw.signal,
        )  # fmt: skip
        return verdict

    @staticmethod
    def _fault(challenge: Challenge, duration_ms: float) -> Verdict:
        return fault_verdict(challenge.id, challenge.version, challenge.seed, duration_ms)
