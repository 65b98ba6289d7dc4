"""Describe the outcome of one graded submission as plain data."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from executors.grading.reasons import Reason, ReasonError

# What a chat user sees of their own prints: enough to debug, small enough for one message.
USER_STREAM_CHARS = 1500
USER_STREAM_LINES = 40
TRUNCATED_MARKER = "… (truncated)"


class Status(StrEnum):
    """Say how a submission ended; only ``passed`` earns the point."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    REJECTED = "rejected"


@dataclass(frozen=True)
class Verdict:
    """Report one submission's result: status, tests passed, the first failure explained.

    ``reason`` explains a failure as a code and plain parameters that each front end words in
    its channel's language; ``message`` is the same in English (made from the reason when not
    given), the field ``torchquiz exec --json`` has always printed.
    """

    status: Status
    passed_tests: int
    total_tests: int
    message: str = ""
    stdout: str = ""
    stderr: str = ""
    duration_ms: int = 0
    challenge_id: str = ""
    challenge_version: int = 0
    # The seed the hidden inputs were drawn with: the same seed reproduces the same tests.
    seed: int | None = None
    # True when the executor itself failed on this submission: the verdict then says nothing
    # about the code, and the member's try must not count.
    fault: bool = False
    reason: Reason | None = None
    # A speed challenge's timing (executors.speed.grader): faster, held, reason, score, shapes.
    speed: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.reason is not None and not self.message:
            object.__setattr__(self, "message", self.reason.english())

    @property
    def passed(self) -> bool:
        """Return whether every hidden test passed."""
        return self.status is Status.PASSED

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict (the shape ``torchquiz exec --json`` prints)."""
        return {
            "status": str(self.status),
            "passed_tests": self.passed_tests,
            "total_tests": self.total_tests,
            "message": self.message,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "duration_ms": self.duration_ms,
            "challenge_id": self.challenge_id,
            "challenge_version": self.challenge_version,
            "seed": self.seed,
            "fault": self.fault,
            "reason": self.reason.to_json() if self.reason is not None else None,
            **({"speed": self.speed} if self.speed is not None else {}),
        }

    @classmethod
    def from_json(cls, data: Any) -> Verdict:
        """Rebuild a verdict from its JSON form, refusing anything that is not exactly that.

        A verdict that arrives over the network is checked here once, field by field, like
        every other value that crossed from a sandbox; a ValueError names the first bad field.
        """
        if not isinstance(data, dict):
            raise ValueError("a verdict must be a JSON object")
        try:
            status = Status(_field(data, "status", str))
        except ValueError as exc:
            raise ValueError("verdict field 'status' is not a known status") from exc
        counts = {name: _field(data, name, int) for name in (
            "passed_tests", "total_tests", "duration_ms", "challenge_version")}
        if any(value < 0 or value > 10**9 for value in counts.values()):
            raise ValueError("verdict counts must be small non-negative integers")
        if counts["passed_tests"] > counts["total_tests"]:
            raise ValueError("verdict passes more tests than it has")
        seed = data.get("seed")
        if seed is not None and (type(seed) is not int or not 0 <= seed < 2**63):
            raise ValueError("verdict field 'seed' must be a non-negative 63-bit integer")
        fault = data.get("fault", False)
        if type(fault) is not bool:
            raise ValueError("verdict field 'fault' must be a bool")
        # Absent from a replica older than reasons: the core then shows the English message.
        reason = data.get("reason")
        if reason is not None:
            try:
                reason = Reason.from_json(reason)
            except ReasonError as exc:
                raise ValueError(f"verdict field 'reason': {exc}") from exc
        speed = data.get("speed")
        if speed is not None and not _speed_ok(speed):
            raise ValueError("verdict field 'speed' is not a speed report")
        return cls(
            status=status,
            message=_text(data, "message", USER_STREAM_CHARS),
            stdout=_text(data, "stdout", USER_STREAM_CHARS + len(TRUNCATED_MARKER) + 1),
            stderr=_text(data, "stderr", USER_STREAM_CHARS + len(TRUNCATED_MARKER) + 1),
            challenge_id=_text(data, "challenge_id", 64),
            seed=seed,
            fault=fault,
            reason=reason,
            speed=speed,
            **counts,
        )


def _speed_ok(speed: Any) -> bool:
    """Say whether a speed report that crossed the network has the documented shape."""
    if not isinstance(speed, dict) or len(json.dumps(speed)) > 8192:
        return False
    if type(speed.get("faster")) is not bool or type(speed.get("held")) is not bool:
        return False
    shapes = speed.get("shapes")
    if not isinstance(shapes, list) or not all(
        isinstance(s, dict) and isinstance(s.get("shape"), str)
        and all(type(s.get(k)) in (int, float) for k in ("speedup", "low", "high"))
        for s in shapes
    ):
        return False
    return type(speed.get("score")) in (int, float) and isinstance(speed.get("reason", ""), str)


def _field(data: dict[str, Any], name: str, kind: type) -> Any:
    value = data.get(name)
    if type(value) is not kind:
        raise ValueError(f"verdict field {name!r} must be {kind.__name__}")
    return value


def _text(data: dict[str, Any], name: str, limit: int) -> str:
    value = _field(data, name, str)
    if len(value) > limit:
        raise ValueError(f"verdict field {name!r} is longer than {limit} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"verdict field {name!r} is not valid Unicode") from exc
    return str(value)


def user_text(
    data: bytes,
    *,
    truncated: bool = False,
    max_chars: int = USER_STREAM_CHARS,
    max_lines: int = USER_STREAM_LINES,
) -> str:
    """Decode a captured stream for the user and cut it to what fits in a chat message.

    ``truncated`` says the sandbox already cut the stream; the marker is added either way so the
    user knows the text is incomplete.
    """
    text = data.decode("utf-8", errors="replace")
    cut = truncated
    lines = text.splitlines(keepends=True)
    if len(lines) > max_lines:
        text = "".join(lines[:max_lines])
        cut = True
    if len(text) > max_chars:
        text = text[:max_chars]
        cut = True
    if cut:
        if text and not text.endswith("\n"):
            text += "\n"
        text += TRUNCATED_MARKER
    return text


FAULT_MESSAGE = "the executor failed while grading this submission; it does not count, try again"


def fault_verdict(
    challenge_id: str, version: int, seed: int | None, duration_ms: float = 0,
    message: str = FAULT_MESSAGE,
) -> Verdict:
    """Return the verdict for a run the executor itself could not complete or grade."""
    return Verdict(
        status=Status.ERROR, passed_tests=0, total_tests=0, message=message,
        duration_ms=int(duration_ms), challenge_id=challenge_id, challenge_version=version,
        seed=seed, fault=True,
    )
