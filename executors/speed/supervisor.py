"""Start and talk to the speed timer process (executors.speed.timer); one call at a time."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from executors.grading import wire
from executors.isolation.limits import Limits
from executors.zygote.children import CONTROL_MAX_BYTES, read_frame
from executors.zygote.supervisor import SandboxUnavailable, ZygoteError, scrubbed_env

log = logging.getLogger(__name__)
START_TIMEOUT_S = 120.0
CALL_GRACE_S = 60.0


@dataclass(frozen=True)
class TimedCall:
    """What one timed call came to: the record, the prints, and the kernel's CPU time.

    ``cpu_ns`` is the call's window; ``after_ns`` is what the child spent after it (checking
    and encoding the record); both 0 when the child never reached the timed call.
    """

    cpu_ns: int
    after_ns: int
    result: bytes
    stdout: bytes
    stderr: bytes
    timed_out: bool
    memory_exceeded: bool
    setup_error: str | None
    exited: bool
    out_of_step: bool = False  # the child said on its socket what the timer did not wait for


class SpeedTimer:
    """Own one timer process; ``call`` runs one request in a fresh sandboxed child and times it."""

    def __init__(self, *, insecure: bool = False, cpu: int | None = None,
                 interpreter: str = sys.executable) -> None:
        self.insecure = insecure
        self.cpu = (os.cpu_count() or 1) - 1 if cpu is None else cpu
        self.interpreter = interpreter
        self.hello: dict[str, Any] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._buf = bytearray()

    @property
    def bandwidth(self) -> float:
        """Return the memory bandwidth the timer measured at start, in bytes per nanosecond."""
        return float(self.hello.get("bandwidth", 10.0))

    def __enter__(self) -> SpeedTimer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Spawn the timer and wait for its hello; refuse when a sandbox layer is missing."""
        with self._lock:
            if self._proc is not None:
                return
            parent, kid = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            root = str(Path(__file__).resolve().parents[2])
            cmd = [self.interpreter, "-E", "-s", "-m", "executors.speed", "--fd",
                   str(kid.fileno()), "--cpu", str(self.cpu)]  # fmt: skip
            try:
                self._proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
                    cmd, env=scrubbed_env(), cwd=root, stdin=subprocess.DEVNULL,
                    pass_fds=[kid.fileno()], close_fds=True, start_new_session=True,
                )  # fmt: skip
            except OSError as exc:
                parent.close()
                raise ZygoteError(f"cannot start the speed timer: {exc}") from exc
            finally:
                kid.close()
            parent.settimeout(START_TIMEOUT_S)
            self._sock = parent
            try:
                self.hello = self._read()
            except (OSError, wire.WireError, ZygoteError) as exc:
                self._stop()
                raise ZygoteError(f"the speed timer did not start: {exc}") from exc
            parent.settimeout(None)
        if not self.hello.get("hello"):
            problem = self.hello.get("problem", "")
            self.close()
            raise SandboxUnavailable(f"the speed timer needs cgroups: {problem}")
        missing = [name for name in ("use_uid", "use_namespaces", "use_seccomp")
                   if not self.hello.get(name)]  # fmt: skip
        if missing and not self.insecure:
            self.close()
            raise SandboxUnavailable(f"sandbox layers missing for speed runs: {missing}")

    def _read(self) -> dict[str, Any]:
        if self._sock is None:
            raise ZygoteError("the speed timer is not running")
        while (payload := read_frame(self._buf)) is None:
            data = self._sock.recv(1 << 20)
            if not data:
                raise ZygoteError("the speed timer exited")
            self._buf += data
        message = wire.decode(payload, max_bytes=CONTROL_MAX_BYTES, max_depth=4, max_items=64)
        if not isinstance(message, dict):
            raise ZygoteError("the speed timer sent a malformed message")
        return message

    def call(self, request: dict[str, Any], limits: Limits, *, seed: int) -> TimedCall:
        """Run one speed request in a fresh child on inputs of ``seed``; one call at a time.

        The seed travels apart from the request: the child learns it only after its untimed
        warm-up call (executors.speed.harness).
        """
        body = wire.encode(request, max_depth=8)
        with self._lock:
            if self._sock is None:
                raise ZygoteError("the speed timer is not running")
            call_id = next(self._ids)
            self._sock.settimeout(limits.wall_s + CALL_GRACE_S)
            try:
                self._sock.sendall(wire.frame(wire.encode(
                    {"op": "call", "id": call_id, "request": body, "limits": limits.to_dict(),
                     "seed": seed},
                    max_depth=4)))  # fmt: skip
                answer = self._read()
            except (OSError, wire.WireError) as exc:
                self._stop()
                raise ZygoteError(f"the speed timer failed: {exc}") from exc
        if answer.get("id") != call_id:
            raise ZygoteError("the speed timer answered another call")
        return TimedCall(
            cpu_ns=int(answer["cpu_ns"]), after_ns=int(answer["after_ns"]),
            result=bytes(answer["result"]),
            stdout=bytes(answer["stdout"]), stderr=bytes(answer["stderr"]),
            timed_out=bool(answer["timed_out"]), memory_exceeded=bool(answer["memory_exceeded"]),
            setup_error=answer["setup_error"], exited=bool(answer["exited"]),
            out_of_step=bool(answer.get("out_of_step")),
        )  # fmt: skip

    def _stop(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            self._sock.close()
            self._sock = None
        if self._proc is not None:
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None

    def close(self) -> None:
        """Stop the timer process."""
        with self._lock:
            self._stop()
