"""The warm zygote's I/O loop: queue runs, stream and cap output, enforce deadlines, clean up.

Started by ``python -m executors.zygote --fd N`` with a scrubbed environment. It imports
torch (never initialises CUDA, never runs an op), forks the pristine template, then serves
length-prefixed wire frames over the inherited socket on a single thread.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib
import json
import logging
import os
import selectors
import signal
import socket
import struct
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from executors import child, sandbox, wire
from executors.cgroups import CgroupManager, RunCgroup
from executors.limits import Limits

log = logging.getLogger("executors.zygote")
CONTROL_MAX_BYTES = 512 * 1024 * 1024
_LEN = struct.Struct(">I")
EXIT_GRACE_S = 1.0  # after the child exits, pipes and its exit status must follow by then


@dataclass
class _Stream:
    fd: int
    cap: int
    data: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    open: bool = True


@dataclass
class _Run:
    req_id: int
    limits: Limits
    cgroup: RunCgroup | None
    pidfd: int
    pid: int
    streams: dict[str, _Stream]
    status_fd: int
    started: float
    deadline: float
    status_buf: bytearray = field(default_factory=bytearray)
    status_open: bool = True
    wait_status: int | None = None
    setup_error: str | None = None
    ready_at: float | None = None
    exited_at: float | None = None
    killed: bool = False
    timed_out: bool = False
    forked_at: float = 0.0
    streams_done_at: float | None = None


def read_frame(sock: socket.socket, buf: bytearray) -> bytes | None:
    """Pop one complete frame from buf, or return None if more bytes are needed."""
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


class Server:
    """Run the event loop of one zygote."""

    def __init__(self, ctrl: socket.socket, config: sandbox.SandboxConfig, seccomp: Any,
                 cgroups: CgroupManager, max_parallel: int) -> None:  # fmt: skip
        self.ctrl = ctrl
        self.config = config
        self.cgroups = cgroups
        self.max_parallel = max_parallel
        self.sel = selectors.DefaultSelector()
        self.pending: collections.deque[tuple[int, Limits, bytes]] = collections.deque()
        self.active: dict[int, _Run] = {}
        self.inbuf = bytearray()
        self.counter = 0
        self.prepared: RunCgroup | None = None
        self.default_limits = Limits()
        self.by_pid: dict[int, _Run] = {}
        tpl_sock, self.template = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            self.template.close()
            ctrl.close()
            child.template_loop(tpl_sock, config, seccomp)
        tpl_sock.close()
        self.template_pid = pid

    # ------------------------------------------------------------ control channel

    def send(self, message: dict[str, Any]) -> None:
        """Send one frame to the supervisor (blocking: its reader thread always drains)."""
        self.ctrl.sendall(wire.frame(wire.encode(message, max_depth=4)))

    def serve(self) -> None:
        """Loop until the supervisor closes the control socket."""
        self.sel.register(self.ctrl, selectors.EVENT_READ, ("ctrl", None))
        self.sel.register(self.template, selectors.EVENT_READ, ("template", None))
        while True:
            timeout = None
            if self.active:
                timeout = max(0.0, min(self._next_deadline(r) for r in self.active.values()))
            for key, _ in self.sel.select(timeout):
                kind, run = key.data
                if kind == "ctrl":
                    if not self._on_ctrl():
                        return
                elif kind == "template":
                    self._on_template(self.template.recv(4096))
                else:
                    self._on_run_event(kind, run)
            now = time.monotonic()
            for run in list(self.active.values()):
                if not run.killed and now >= run.deadline:
                    run.timed_out = True
                    self._kill(run)
                self._maybe_finish(run, now)
            while self.pending and len(self.active) < self.max_parallel:
                self._start(*self.pending.popleft())

    def _on_template(self, msg: bytes) -> dict[str, Any] | None:
        """Record an exit notice from the template; return any other message."""
        if not msg:
            raise RuntimeError("template process is gone")
        data = json.loads(msg)
        if "exit" not in data:
            return dict(data)
        pid, status = int(data["exit"]), int(data["status"])
        run = self.by_pid.pop(pid, None)
        if run is not None:
            run.wait_status = status
        return None

    def _next_deadline(self, run: _Run) -> float:
        if run.exited_at is not None:
            return run.exited_at + EXIT_GRACE_S - time.monotonic()
        return (run.deadline if not run.killed else time.monotonic() + 0.05) - time.monotonic()

    def _on_ctrl(self) -> bool:
        data = self.ctrl.recv(1 << 20)
        if not data:
            return False
        self.inbuf += data
        while (payload := read_frame(self.ctrl, self.inbuf)) is not None:
            msg = wire.decode(payload, max_bytes=CONTROL_MAX_BYTES, max_depth=4, max_items=64)
            if msg.get("op") == "run":
                self.pending.append((msg["id"], Limits.from_dict(msg["limits"]), msg["request"]))
            elif msg.get("op") == "shutdown":
                return False
        return True

    # ------------------------------------------------------------ runs

    def _start(self, req_id: int, limits: Limits, request: bytes) -> None:
        self.counter += 1
        run_id = f"r{self.counter}"
        started = time.monotonic()
        cgroup, next_cgroup = self._take_cgroup(limits)
        memfd = os.memfd_create("request", os.MFD_CLOEXEC)
        os.write(memfd, request)
        pipes = {name: os.pipe2(os.O_CLOEXEC) for name in ("stdout", "stderr", "result", "st")}
        uid = self.config.uid
        if self.config.nproc_fallback:  # RLIMIT_NPROC counts per uid: one uid per slot
            uid += len(self.active)
        spec = child.ForkSpec(run_id, uid, uid if self.config.nproc_fallback else self.config.gid,
                              cgroup.dirs if cgroup else (), limits,
                              next_cgroup.dirs if next_cgroup else ())  # fmt: skip
        send_fds = [memfd] + [pipes[n][1] for n in ("stdout", "stderr", "result", "st")]
        socket.send_fds(self.template, [spec.dumps()], send_fds)
        while True:  # exit notices of earlier runs may arrive before our answer
            reply, fds, _, _ = socket.recv_fds(self.template, 4096, 1)
            answer = self._on_template(reply)
            if answer is not None:
                break
        for fd in send_fds:
            os.close(fd)
        if not fds:
            raise RuntimeError("template sent no pidfd")
        pid = int(answer["pid"])
        caps = {"stdout": limits.output_bytes, "stderr": limits.output_bytes,
                "result": limits.result_bytes}  # fmt: skip
        streams = {n: _Stream(pipes[n][0], caps[n]) for n in caps}
        run = _Run(req_id, limits, cgroup, fds[0], pid, streams, pipes["st"][0], started,
                   started + limits.wall_s)  # fmt: skip
        run.forked_at = time.monotonic()
        for name, stream in streams.items():
            os.set_blocking(stream.fd, False)
            self.sel.register(stream.fd, selectors.EVENT_READ, (name, run))
        os.set_blocking(run.status_fd, False)
        self.sel.register(run.status_fd, selectors.EVENT_READ, ("status", run))
        self.sel.register(run.pidfd, selectors.EVENT_READ, ("exit", run))
        self.active[req_id] = run
        self.by_pid[pid] = run

    def _take_cgroup(self, limits: Limits) -> tuple[RunCgroup | None, RunCgroup | None]:
        """Hand out the prepared cgroup (the template already waits in it) and prepare one more."""
        if not self.cgroups.available:
            return None, None
        cgroup = self.prepared
        if cgroup is None:
            self.counter += 1
            cgroup = self.cgroups.create(f"r{self.counter}", limits)
        else:
            self.cgroups.set_limits(cgroup, limits)
        self.counter += 1
        self.prepared = self.cgroups.create(f"r{self.counter}", self.default_limits)
        return cgroup, self.prepared

    def _on_run_event(self, kind: str, run: _Run) -> None:
        if kind == "exit":
            self.sel.unregister(run.pidfd)
            os.close(run.pidfd)
            run.pidfd = -1
            run.exited_at = time.monotonic()
        elif kind == "status":
            self._on_status(run)
        else:
            self._on_stream(run, run.streams[kind])

    def _on_stream(self, run: _Run, stream: _Stream) -> None:
        try:
            data = os.read(stream.fd, 1 << 16)
        except BlockingIOError:
            return
        if not data:
            self._close_stream(stream, run)
            return
        room = stream.cap - len(stream.data)
        stream.data += data[:room]
        if len(data) > room:
            # Over the cap: stop reading now and kill, rather than buffer a flood.
            stream.truncated = True
            self._close_stream(stream)
            self._kill(run)

    def _close_stream(self, stream: _Stream, run: _Run | None = None) -> None:
        if stream.open:
            self.sel.unregister(stream.fd)
            os.close(stream.fd)
            stream.open = False
        if run is not None and not any(s.open for s in run.streams.values()):
            run.streams_done_at = run.streams_done_at or time.monotonic()

    def _on_status(self, run: _Run) -> None:
        try:
            data = os.read(run.status_fd, 4096)
        except BlockingIOError:
            return
        if not data:
            self.sel.unregister(run.status_fd)
            os.close(run.status_fd)
            run.status_open = False
            return
        buf = run.status_buf
        buf += data
        while buf:
            kind = bytes(buf[:1])
            if kind == b"R":
                run.ready_at = time.monotonic()
                del buf[:1]
            elif kind == b"E" and len(buf) >= 3:
                (length,) = struct.unpack_from("<H", buf, 1)
                if len(buf) < 3 + length:
                    return
                run.setup_error = bytes(buf[3 : 3 + length]).decode(errors="replace")
                del buf[: 3 + length]
            else:
                return

    def _kill(self, run: _Run) -> None:
        """SIGKILL the whole tree: the pid-namespace init, then every pid in the run's cgroup.

        Killing the init of a pid namespace makes the kernel kill every other process in it.
        """
        run.killed = True
        if run.pidfd >= 0:
            # A pidfd cannot hit a recycled pid.
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(run.pidfd, signal.SIGKILL)
        if not self.config.use_namespaces and run.wait_status is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(run.pid, signal.SIGKILL)  # still unreaped: the pgid is ours
        if run.cgroup is not None:
            run.cgroup.kill_all(timeout_s=0.5, spare=self.template_pid)

    def _maybe_finish(self, run: _Run, now: float) -> None:
        if run.exited_at is None:
            return
        open_streams = [s for s in run.streams.values() if s.open]
        waiting = open_streams or run.status_open or run.wait_status is None
        if waiting and now < run.exited_at + EXIT_GRACE_S:
            return
        if open_streams:
            log.error("run %s: output pipes still open after exit; killing", run.req_id)
        if run.wait_status is None:
            log.error("run %s: no exit status from the template", run.req_id)
            self._kill(run)
        # Drain what is left without blocking, then close.
        if run.status_open:
            self._on_status(run)
        for stream in open_streams:
            self._on_stream(run, stream)
            self._close_stream(stream)
        if run.status_open:
            self.sel.unregister(run.status_fd)
            os.close(run.status_fd)
        self._finish(run)

    def _finish(self, run: _Run) -> None:
        del self.active[run.req_id]
        self.by_pid.pop(run.pid, None)
        leaked, oom, hit_limit = False, False, False
        if run.cgroup is not None:
            leaked = not run.cgroup.kill_all(timeout_s=2.0, spare=self.template_pid)
            oom, hit_limit = run.cgroup.oom_killed(), run.cgroup.hit_limit()
            leaked = not run.cgroup.remove() or leaked
        if leaked:
            log.error("run %s: processes survived the kill; cgroup kept", run.req_id)
        exit_code, sig = None, None
        if run.wait_status is not None:
            code = os.waitstatus_to_exitcode(run.wait_status)
            exit_code, sig = (code, None) if code >= 0 else (None, -code)
        elif run.killed:
            sig = signal.SIGKILL
        cpu_limit = sig == signal.SIGXCPU or (sig == signal.SIGKILL and not run.killed and not oom)
        if cpu_limit:
            run.timed_out = True
        memory = oom or (sig == signal.SIGKILL and hit_limit and not run.timed_out)
        streams = run.streams
        self.send({
            "id": run.req_id, "exit_code": exit_code, "signal": sig,
            "timed_out": run.timed_out, "memory_exceeded": memory,
            "output_exceeded": streams["stdout"].truncated or streams["stderr"].truncated,
            "result": bytes(streams["result"].data),
            "result_truncated": streams["result"].truncated,
            "stdout": bytes(streams["stdout"].data), "stderr": bytes(streams["stderr"].data),
            "stdout_truncated": streams["stdout"].truncated,
            "stderr_truncated": streams["stderr"].truncated,
            "duration_ms": ((run.exited_at or time.monotonic()) - run.started) * 1000.0,
            "setup_ms": ((run.ready_at - run.started) * 1000.0) if run.ready_at else None,
            "timeline_ms": {  # where the time went, for the benchmark
                "forked": (run.forked_at - run.started) * 1000.0,
                "ready": ((run.ready_at or run.started) - run.started) * 1000.0,
                "output_closed": ((run.streams_done_at or run.started) - run.started) * 1000.0,
                "exited": ((run.exited_at or run.started) - run.started) * 1000.0,
                "finished": (time.monotonic() - run.started) * 1000.0,
            },
            "setup_error": run.setup_error, "leaked": leaked,
        })  # fmt: skip

    def shutdown(self) -> None:
        """Kill every run in flight, remove cgroups, stop the template."""
        for run in list(self.active.values()):
            self._kill(run)
            if run.cgroup is not None:
                run.cgroup.remove()
        self.template.close()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.template_pid, 0)
        if self.prepared is not None:  # empty now that the template has exited
            self.prepared.remove()
        self.cgroups.close()


# Modules that torch imports lazily on common paths (autograd.backward pulls in sympy through
# symbolic_shapes: ~650 ms per run if left to each child). Imports only: no torch op runs here.
WARM_IMPORTS = (
    "numpy",
    "torch.nested._internal.nested_tensor",
    "torch.fx.experimental.symbolic_shapes",
    "torch.autograd.functional",
    "torch.nn.functional",
)


def warm_imports() -> None:
    """Import what children would otherwise import on every run."""
    for name in WARM_IMPORTS:
        try:
            importlib.import_module(name)
        except Exception as exc:
            log.warning("warm import %s failed: %s", name, exc)


def _probe_namespaces(uid: int, gid: int, use_uid: bool) -> bool:
    """Fork a throwaway child to see whether this machine lets us create the namespaces."""
    pid = os.fork()
    if pid == 0:
        try:
            if use_uid:
                sandbox.drop_to_sandbox_user(uid, gid)
            sandbox.unshare_namespaces()
            sandbox.write_id_maps(uid, gid)
        except BaseException:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def build_config(cgroups: CgroupManager) -> tuple[sandbox.SandboxConfig, Any]:
    """Detect what this machine supports and build the sandbox config and seccomp filter."""
    uid, gid = sandbox.sandbox_ids()
    use_uid = os.geteuid() == 0
    binds, symlinks = sandbox.default_binds()
    try:
        from executors.policy import build_seccomp_filter

        seccomp = build_seccomp_filter()
    except (ImportError, OSError, RuntimeError) as exc:
        log.warning("seccomp unavailable: %s", exc)
        seccomp = None
    config = sandbox.SandboxConfig(
        uid=uid, gid=gid, binds=binds, symlinks=symlinks, use_uid=use_uid,
        use_namespaces=_probe_namespaces(uid, gid, use_uid), use_seccomp=seccomp is not None,
        nproc_fallback=not cgroups.available, gpu_devices=sandbox.gpu_device_nodes(),
    )  # fmt: skip
    return config, seccomp


def main(argv: list[str] | None = None) -> int:
    """Start the zygote on the socket given by --fd and serve until it closes."""
    parser = argparse.ArgumentParser(prog="python -m executors.zygote")
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--max-parallel", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s zygote[%(process)d] %(levelname)s %(message)s")
    ctrl = socket.socket(fileno=args.fd)
    os.chdir("/")
    import torch

    warm_imports()

    cuda: Any = torch.cuda  # untyped in torch's stubs
    if cuda.is_initialized():  # pragma: no cover - would poison every fork
        raise RuntimeError("CUDA initialised in the zygote")
    cgroups = CgroupManager(f"z{os.getpid()}")
    if cgroups.available:
        cgroups.reap_stale()
    config, seccomp = build_config(cgroups)
    server = Server(ctrl, config, seccomp, cgroups, max(1, args.max_parallel))
    server.send({
        "hello": True, "pid": os.getpid(), "template_pid": server.template_pid,
        "uid": config.uid, "use_uid": config.use_uid, "use_namespaces": config.use_namespaces,
        "use_seccomp": config.use_seccomp, "cgroups": cgroups.version,
        "cgroup_problem": cgroups.problem, "nproc_fallback": config.nproc_fallback,
        "cuda_initialized": bool(cuda.is_initialized()),
        "threads": len(os.listdir("/proc/self/task")),
    })  # fmt: skip
    try:
        server.serve()
    finally:
        server.shutdown()
    return 0
