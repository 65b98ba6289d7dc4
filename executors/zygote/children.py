"""Plain state of the zygote's children and control frames (used by executors.zygote.eventloop)."""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass, field

from executors.grading import wire
from executors.isolation.cgroups import RunCgroup
from executors.isolation.limits import Limits

CONTROL_MAX_BYTES = 512 * 1024 * 1024
_LEN = struct.Struct(">I")
Profile = tuple[Limits, str]


@dataclass
class Stream:
    """Buffer one output pipe of a child up to its cap."""

    fd: int
    cap: int
    data: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    open: bool = True


@dataclass
class Pending:
    """Hold a run waiting for a free child."""

    req_id: int
    profile: Profile
    request: bytes
    # The load record plus one per test case: a stream that holds this many complete frames
    # is finished, whatever the process still does.
    expected_records: int = 0
    # Times the run was handed to a child that turned out to be gone (it goes to another).
    handoffs_failed: int = 0


@dataclass
class Child:
    """Track one forked child: forking, idle (isolated, waiting) or running a request."""

    tag: str
    profile: Profile
    cgroup: RunCgroup | None
    streams: dict[str, Stream]
    status_fd: int
    req_sock: socket.socket | None
    fork_requested: float
    pid: int = 0
    pidfd: int = -1
    status_buf: bytearray = field(default_factory=bytearray)
    status_open: bool = True
    wait_status: int | None = None
    setup_error: str | None = None
    ready_at: float | None = None
    exited_at: float | None = None
    streams_done_at: float | None = None
    slot: int = 0
    discarded: bool = False
    killed: bool = False
    timed_out: bool = False
    # Set when a run is dispatched to this child:
    req_id: int | None = None
    started: float = 0.0
    deadline: float = float("inf")
    expected_records: int = 0
    answered: bool = False  # the verdict went out before the process had finished exiting

    @property
    def can_take_run(self) -> bool:
        """Idle and still alive as far as the loop knows.

        A pre-forked child can die while it waits (killed, or its setup failed) and stay in
        the table until its exit status and pipes are in: handing it a run then turns into a
        SIGKILL verdict for code that never ran.
        """
        return (self.req_id is None and not self.discarded and not self.killed
                and self.exited_at is None and self.setup_error is None
                and self.req_sock is not None)  # fmt: skip


def read_frame(buf: bytearray) -> bytes | None:
    """Pop one complete length-prefixed frame from buf, or return None if more is needed."""
    if len(buf) < _LEN.size:
        return None
    (length,) = _LEN.unpack_from(buf)
    if length > CONTROL_MAX_BYTES:
        raise wire.WireError("control frame too large")
    if len(buf) < _LEN.size + length:
        return None
    payload = bytes(buf[_LEN.size : _LEN.size + length])
    del buf[: _LEN.size + length]
    return payload


def request_shape(request: bytes) -> tuple[str, int]:
    """Read the device a request asks for and how many records a finished run sends back.

    The device picks a matching pre-forked child; the record count (one load record plus
    one per case) lets the loop answer as soon as the stream is complete.
    """
    try:
        value = wire.decode(request, max_bytes=len(request), max_depth=64, max_items=10**7)
    except wire.WireError:
        return "cpu", 0  # the child rejects it properly when it parses the request
    if not isinstance(value, dict):
        return "cpu", 0
    device = value.get("device")
    cases = value.get("cases")
    return (device if device in ("cpu", "cuda") else "cpu",
            1 + len(cases) if isinstance(cases, list) else 0)


def complete_frames(stream: bytes | bytearray) -> int:
    """Count the complete length-prefixed frames at the start of ``stream`` (no decoding)."""
    count, pos = 0, 0
    while pos + _LEN.size <= len(stream):
        (length,) = _LEN.unpack_from(stream, pos)
        pos += _LEN.size + length
        if pos > len(stream):
            break
        count += 1
    return count
