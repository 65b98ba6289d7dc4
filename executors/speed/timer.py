"""The speed timer process: one sandboxed child per timed call, its CPU time read from its cgroup.

Started by ``python -m executors.speed --fd N`` with a scrubbed environment (like the zygote).
It imports torch, measures the machine's memory bandwidth in a throwaway child, forks the
pristine template (executors.zygote.child, running the speed harness) and then serves one call
at a time, never two at once, so a call never shares the CPUs with another of ours:

1. fork a child for the call into fresh cgroups (memory, pids, cpu, and ours: cpuacct, and a
   cpuset of one CPU); it enters its sandbox and says it is ready;
2. hand the request over; the child loads the code, makes one untimed call and says "warm";
   send it the timed call's seed; it makes those inputs and says "ready";
3. read the cgroup's CPU counter (t0), say "go"; when the child says "called", read it again
   (t1) and say "on"; when the record is in, read it a third time (t2); then kill everything
   in the cgroup.

``t1 - t0`` is the call: in every thread and process of the run, and nothing else but one
small send, whose cost (and the fork's, the wake-up's) the grader measures with a function
that does nothing and subtracts (executors.speed.grader). ``t2 - t1`` is the rest: checking
the output and encoding the record, the same work for the reference and the submission on
the same shape, so a submission that spends more there is charged the difference.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import select
import signal
import socket
import struct
import sys
import time
from typing import Any

from executors.grading import wire
from executors.isolation.cgroups import CgroupManager, RunCgroup
from executors.isolation.limits import Limits
from executors.speed import harness as speed_harness
from executors.speed.cgroups import SpeedCgroups
from executors.zygote import child
from executors.zygote.children import CONTROL_MAX_BYTES, complete_frames, read_frame

log = logging.getLogger("executors.speed")
READY_TIMEOUT_S = 30.0
SEED = struct.Struct("<q")
BANDWIDTH_SIZES = (256 * 1024, 1024 * 1024, 4 * 1024 * 1024, 64 * 1024 * 1024)


def measure_bandwidth() -> float:
    """Return the fastest copy rate, in bytes per nanosecond, measured in a forked child.

    The floor it sets says no honest call moves its bytes faster than this. A timed call's
    inputs were just made, so they may sit in the cache: the rate is the best over sizes from
    a cache's to main memory's, not main memory's alone (a cache-hot honest solution would
    otherwise be held). The timer itself runs no torch op (a later fork of a process that did
    can hang); a copy reads and writes every byte, so a pass moves twice the buffer.
    """
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            import torch

            torch.set_num_threads(1)
            best_rate = 0.0
            for size in BANDWIDTH_SIZES:
                src = torch.ones(size // 4)
                dst = torch.empty_like(src)
                best = float("inf")
                for _ in range(5):
                    started = time.perf_counter_ns()
                    dst.copy_(src)
                    best = min(best, time.perf_counter_ns() - started)
                best_rate = max(best_rate, 2 * size / max(best, 1))
            os.write(write_fd, struct.pack("<d", best_rate))
        finally:
            os._exit(0)
    os.close(write_fd)
    data = os.read(read_fd, 8)
    os.close(read_fd)
    os.waitpid(pid, 0)
    return struct.unpack("<d", data)[0] if len(data) == 8 else 10.0


class Timer:
    """Fork, time and clean up one call at a time."""

    def __init__(self, ctrl: socket.socket, cgroups: CgroupManager, speed: SpeedCgroups,
                 config: Any, seccomp: Any) -> None:
        self.ctrl = ctrl
        self.cgroups = cgroups
        self.speed = speed
        self.config = config
        self.counter = 0
        # The next call's cgroups, made ahead: the template moves into them after each fork
        # (a v1 attach waits for an RCU grace period, ~8 ms per folder), so the next child is
        # born there and the attach is off the path between two calls.
        self.prepared: tuple[str, RunCgroup] | None = None
        tpl_sock, self.template = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            self.template.close()
            ctrl.close()
            for fd in cgroups.lock_fds():
                os.close(fd)
            child.template_loop(tpl_sock, config, seccomp, runner=speed_harness.run_bytes)
        tpl_sock.close()
        self.template_pid = pid

    def send(self, message: dict[str, Any]) -> None:
        """Send one frame to the supervisor."""
        self.ctrl.sendall(wire.frame(wire.encode(message, max_depth=4)))

    def serve(self) -> None:
        """Answer calls until the supervisor closes the socket."""
        inbuf = bytearray()
        while True:
            data = self.ctrl.recv(1 << 20)
            if not data:
                return
            inbuf += data
            while (payload := read_frame(inbuf)) is not None:
                msg = wire.decode(payload, max_bytes=CONTROL_MAX_BYTES, max_depth=4,
                                  max_items=64)  # fmt: skip
                if msg.get("op") != "call":
                    return
                self.send({"id": msg["id"], **self.call(msg["request"],
                                                        Limits.from_dict(msg["limits"]),
                                                        int(msg["seed"]))})

    def _pid_from_template(self, tag: str) -> tuple[int, int]:
        while True:
            msg, fds, _, _ = socket.recv_fds(self.template, 4096, 1)
            if not msg:
                raise RuntimeError("template process is gone")
            data = json.loads(msg)
            if data.get("tag") == tag and fds:
                return int(data["pid"]), fds[0]
            for fd in fds:
                os.close(fd)

    def call(self, request: bytes, limits: Limits, seed: int) -> dict[str, Any]:
        """Run one timed call; return its record, streams and CPU nanoseconds (call, rest)."""
        if self.prepared is None:
            tag, run = self._make_cgroup(limits)
        else:
            (tag, run), self.prepared = self.prepared, None
            self.cgroups.set_limits(run, limits)
        self.prepared = self._make_cgroup(limits)
        pipes = {name: os.pipe2(os.O_CLOEXEC) for name in ("stdout", "stderr", "result", "st")}
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        spec = child.ForkSpec(tag, self.config.uid, self.config.gid, run.dirs, limits,
                              self.prepared[1].dirs)
        send = [theirs.fileno()] + [pipes[n][1] for n in ("stdout", "stderr", "result", "st")]
        socket.send_fds(self.template, [spec.dumps()], send)
        theirs.close()
        for fd in send[1:]:
            os.close(fd)
        _pid, pidfd = self._pid_from_template(tag)
        out: dict[str, Any] = {"cpu_ns": 0, "after_ns": 0, "result": b"", "stdout": b"",
                               "stderr": b"", "timed_out": False, "setup_error": None,
                               "exited": False, "memory_exceeded": False,
                               "out_of_step": False}  # fmt: skip
        try:
            status = self._wait_ready(pipes["st"][0], pidfd)
            if status is not None:
                out["setup_error"] = status
                return out
            memfd = os.memfd_create("request", os.MFD_CLOEXEC)
            try:
                os.write(memfd, request)
                socket.send_fds(mine, [b"run"], [memfd])
            finally:
                os.close(memfd)
            caps = {"stdout": limits.output_bytes, "stderr": limits.output_bytes,
                    "result": limits.result_bytes}  # fmt: skip
            data = {name: bytearray() for name in caps}
            open_fds = {pipes[name][0]: name for name in caps}
            deadline = time.monotonic() + limits.wall_s

            def step(word: bytes) -> bool:
                return self._await(mine, word, data, caps, open_fds, pidfd, deadline, out)

            # The steps of executors.speed.harness; a child that leaves them (an error, or
            # code that talks on the socket) is no longer timed, only waited for its record.
            if step(b"warm") and self._say(mine, b"seed" + SEED.pack(seed)) and step(b"ready"):
                t0 = self.speed.usage_ns(run)
                if self._say(mine, b"go") and step(b"called"):
                    t1 = self.speed.usage_ns(run)
                    if self._say(mine, b"on"):
                        self._collect(data, caps, open_fds, pidfd, deadline, out)
                        out["cpu_ns"] = t1 - t0
                        out["after_ns"] = self.speed.usage_ns(run) - t1
            if not out["out_of_step"]:  # else no record is coming: the child is stopped now
                self._collect(data, caps, open_fds, pidfd, deadline, out)  # at once when in
            self._drain(data, caps, open_fds)
            out.update({name: bytes(value) for name, value in data.items()})
        finally:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            run.kill_all(timeout_s=2.0, spare=self.template_pid)
            out["memory_exceeded"] = run.oom_killed()
            os.close(pidfd)
            mine.close()
            for read_end, _ in pipes.values():
                with contextlib.suppress(OSError):
                    os.close(read_end)
            self._drain_template()
            run.remove()
        return out

    def _make_cgroup(self, limits: Limits) -> tuple[str, RunCgroup]:
        self.counter += 1
        tag = f"s{self.counter}"
        return tag, self.speed.attach(self.cgroups.create(tag, limits), tag)

    def _wait_ready(self, status_fd: int, pidfd: int) -> str | None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        buf = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([status_fd, pidfd], [], [], 0.5)
            if status_fd in ready:
                data = os.read(status_fd, 4096)
                if not data:
                    return buf[3:].decode(errors="replace") or "the child exited during setup"
                buf += data
                if buf[:1] == b"R":
                    return None
            elif pidfd in ready:
                return "the child exited during setup"
        return "the child did not become ready"

    @staticmethod
    def _say(sock: socket.socket, word: bytes) -> bool:
        try:
            sock.send(word)
        except OSError:
            return False
        return True

    @classmethod
    def _await(cls, sock: socket.socket, word: bytes, data: dict[str, bytearray],
               caps: dict[str, int], open_fds: dict[int, str], pidfd: int, deadline: float,
               out: dict[str, Any]) -> bool:
        """Read the pipes until the child says ``word``; False if it says anything else first."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                out["timed_out"] = True
                return False
            ready, _, _ = select.select([sock.fileno(), *open_fds, pidfd], [], [], left)
            if sock.fileno() in ready:
                try:
                    said = sock.recv(64)
                except OSError:
                    said = b""
                if said == word:
                    return True
                out["out_of_step"] = bool(said)  # empty: the child closed it, or exited
                return False
            if not cls._read_pipes(ready, data, caps, open_fds, pidfd, out):
                return False
            if complete_frames(data["result"]) or "result" not in open_fds.values():
                return False  # the record came first: the child left the steps

    @classmethod
    def _collect(cls, data: dict[str, bytearray], caps: dict[str, int],
                 open_fds: dict[int, str], pidfd: int, deadline: float,
                 out: dict[str, Any]) -> None:
        """Read the pipes until the record is in, the child exits or the deadline passes."""
        while not complete_frames(data["result"]):
            left = deadline - time.monotonic()
            if left <= 0:
                out["timed_out"] = True
                return
            ready, _, _ = select.select([*open_fds, pidfd], [], [], left)
            if not cls._read_pipes(ready, data, caps, open_fds, pidfd, out):
                return
            if "result" not in open_fds.values() and not complete_frames(data["result"]):
                out["exited"] = True
                return

    @staticmethod
    def _read_pipes(ready: list[int], data: dict[str, bytearray], caps: dict[str, int],
                    open_fds: dict[int, str], pidfd: int, out: dict[str, Any]) -> bool:
        """Take what the ready pipes hold; False when the child exited with nothing left."""
        if pidfd in ready and not any(fd in ready for fd in open_fds):
            out["exited"] = True
            return False
        for fd in ready:
            if fd not in open_fds:
                continue
            name = open_fds[fd]
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                del open_fds[fd]
                continue
            room = caps[name] - len(data[name])
            data[name] += chunk[:room]
            if len(chunk) > room:
                del open_fds[fd]
                out[f"{name}_truncated"] = True
        return True

    @staticmethod
    def _drain(data: dict[str, bytearray], caps: dict[str, int], open_fds: dict[int, str]) -> None:
        """Take what was printed before the record without waiting (the call is over)."""
        for fd, name in list(open_fds.items()):
            if name != "result":
                with contextlib.suppress(BlockingIOError, OSError):
                    os.set_blocking(fd, False)
                    data[name] += os.read(fd, max(1, caps[name] - len(data[name])))

    def _drain_template(self) -> None:
        while select.select([self.template], [], [], 0)[0]:
            msg, fds, _, _ = socket.recv_fds(self.template, 4096, 1)
            for fd in fds:
                os.close(fd)
            if not msg:
                return

    def shutdown(self) -> None:
        """Stop the template and remove our cgroups."""
        self.template.close()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.template_pid, 0)
        if self.prepared is not None:  # empty now that the template has exited
            self.prepared[1].remove()
        self.speed.close()
        self.cgroups.close()


def main(argv: list[str] | None = None) -> int:
    """Start the timer on the socket given by --fd and serve until it closes."""
    parser = argparse.ArgumentParser(prog="python -m executors.speed")
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--cpu", type=int, default=(os.cpu_count() or 1) - 1)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s speed[%(process)d] %(levelname)s %(message)s")
    ctrl = socket.socket(fileno=args.fd)
    os.chdir("/")
    import faulthandler

    faulthandler.register(signal.SIGUSR1)  # a stuck timer prints where it waits
    from executors.zygote.process import build_config, warm_imports

    cgroups = CgroupManager()
    if not cgroups.available:
        ctrl.sendall(wire.frame(wire.encode({"hello": False, "problem": cgroups.problem})))
        return 1
    cgroups.reap_stale()
    try:
        import torch

        warm_imports()
        cuda: Any = torch.cuda  # untyped in torch's stubs
        if cuda.is_initialized():  # pragma: no cover - would poison every fork
            raise RuntimeError("CUDA initialised in the timer")
        speed = SpeedCgroups(cgroups.name, cgroups.version, args.cpu)
        others = set(range(os.cpu_count() or 1)) - {args.cpu}
        if others:  # the timer and the template keep off the CPU the calls are measured on
            os.sched_setaffinity(0, others)
        bandwidth = measure_bandwidth()
        config, seccomp = build_config(cgroups)
        timer = Timer(ctrl, cgroups, speed, config, seccomp)
    except BaseException:
        cgroups.close()
        raise
    try:
        timer.send({"hello": True, "pid": os.getpid(), "bandwidth": bandwidth, "cpu": args.cpu,
                    "use_uid": config.use_uid, "use_namespaces": config.use_namespaces,
                    "use_seccomp": config.use_seccomp, "cgroups": cgroups.version})
        timer.serve()
    finally:
        timer.shutdown()
    return 0
