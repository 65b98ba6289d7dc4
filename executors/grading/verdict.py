"""Describe the outcome of one graded submission as plain data."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

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
    """Report one submission's result: status, tests passed, the first failure explained."""

    status: Status
    passed_tests: int
    total_tests: int
    message: str
    stdout: str = ""
    stderr: str = ""
    duration_ms: int = 0
    challenge_id: str = ""
    challenge_version: int = 0

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
        }


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
