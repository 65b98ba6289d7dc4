"""What a sandboxed run and a layer probe report, as plain data shared by the zygote modules."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RawRun:
    """Hold what one run did, before grading: every user failure ends up here as data."""

    exit_code: int | None
    signal: int | None
    timed_out: bool
    memory_exceeded: bool
    output_exceeded: bool
    result: bytes
    result_truncated: bool
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    duration_ms: float
    # Answered as soon as every record was in, before the process finished exiting: its exit
    # status was not waited for (the stream, complete, says all there is).
    early: bool = False


@dataclass(frozen=True)
class LayerStatus:
    """Say whether one isolation layer is active, and how."""

    active: bool
    detail: str
