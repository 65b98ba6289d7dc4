"""The forking side of the zygote: a pristine template process and the per-run children.

The template is forked from the warm zygote right after ``import torch`` and before any
request arrives (it is root, in the host namespaces), so a child forked from it inherits
no other run's inputs or outputs (freed Python memory is not zeroed; a child forked from the
I/O process could scan it). The
template only receives "fork now" messages with the run's file descriptors; request bytes
reach the child through a memfd, never through the template's memory.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from executors.isolation import layers
from executors.isolation.limits import Limits
from executors.zygote import harness

# Fixed descriptor numbers in the child (stdout and stderr are 1 and 2).
REQUEST_FD = 3
RESULT_FD = 4
STATUS_FD = 5
SETUP_FAILED = 125
_PID = struct.Struct("<i")
# What a ready child runs on its request: the code harness, or the speed harness for a timed
# call (executors.speed.harness.run_bytes); same signature.
Runner = Callable[..., int]


@dataclass(frozen=True)
class ForkSpec:
    """Say how to set up one run; travels as JSON from the I/O loop to the template."""

    run_id: str
    uid: int
    gid: int
    cgroups: tuple[str, ...]
    limits: Limits
    next_cgroups: tuple[str, ...] = ()
    device: str = "cpu"

    def dumps(self) -> bytes:
        """Encode as JSON."""
        return json.dumps(
            {"run_id": self.run_id, "uid": self.uid, "gid": self.gid,
             "cgroups": list(self.cgroups), "limits": self.limits.to_dict(),
             "next_cgroups": list(self.next_cgroups), "device": self.device}
        ).encode()  # fmt: skip

    @classmethod
    def loads(cls, data: bytes) -> ForkSpec:
        """Decode from JSON."""
        raw = json.loads(data)
        return cls(raw["run_id"], raw["uid"], raw["gid"], tuple(raw["cgroups"]),
                   Limits.from_dict(raw["limits"]), tuple(raw["next_cgroups"]),
                   raw["device"])  # fmt: skip


def _status(kind: bytes, payload: bytes = b"") -> None:
    with contextlib.suppress(OSError):
        os.write(STATUS_FD, kind + payload)


def _fail(exc: BaseException) -> None:
    message = f"{type(exc).__name__}: {exc}".encode(errors="replace")[:400]
    _status(b"E", struct.pack("<H", len(message)) + message)
    os._exit(SETUP_FAILED)


def _arrange_fds(fds: list[int]) -> None:
    # Move to high numbers first so dup2 onto 1..5 never clobbers a descriptor still needed.
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100) for fd in fds]
    request, stdout, stderr, result, status = high
    for src, dst in ((request, REQUEST_FD), (stdout, 1), (stderr, 2), (result, RESULT_FD),
                     (status, STATUS_FD)):  # fmt: skip
        os.dup2(src, dst)
    devnull = os.open("/dev/null", os.O_RDONLY)
    os.dup2(devnull, 0)
    os.closerange(STATUS_FD + 1, 1 << 20)


def _read_all(fd: int) -> bytes:
    chunks = []
    os.lseek(fd, 0, os.SEEK_SET)
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _receive_request(*, keep_socket: bool = False) -> bytes | None:
    """Wait for the request: a memfd passed over the socket at REQUEST_FD (None: discarded).

    ``keep_socket``: leave REQUEST_FD open (a timed speed call waits on it for "go").
    """
    sock = socket.socket(fileno=REQUEST_FD)
    try:
        msg, fds, _, _ = socket.recv_fds(sock, 16, 1)
    finally:
        if keep_socket:
            sock.detach()
        else:
            sock.close()
    if not msg or not fds:
        return None
    try:
        return _read_all(fds[0])
    finally:
        os.close(fds[0])


def run_child(
    spec: ForkSpec,
    fds: list[int],
    config: layers.SandboxConfig,
    seccomp: Any,
    *,
    born_in_cgroup: bool,
    runner: Runner = harness.run_bytes,
) -> None:
    """Become the sandboxed process (pid 1 of a fresh pid namespace) and run the harness."""
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _arrange_fds(fds)
        enter_sandbox(spec, config, seccomp, born_in_cgroup=born_in_cgroup)
        import torch  # already imported by the zygote: a dictionary lookup

        torch.set_num_threads(spec.limits.threads)
        # Inside the sandbox and before "ready": a GPU child waits with its context made.
        harness.prepare_device(spec.device, spec.limits.gpu_memory_fraction)
        _status(b"R")
        os.close(STATUS_FD)
    except BaseException as exc:
        _fail(exc)
    code = 1
    try:
        # Isolated and ready: only now does the request arrive (or never, if discarded).
        data = _receive_request(keep_socket=runner is not harness.run_bytes)
        if data is None:
            os._exit(0)
        code = runner(data, RESULT_FD, device=spec.device,
                      gpu_memory_fraction=spec.limits.gpu_memory_fraction)  # fmt: skip
        # Close the pipes before the (slow, ~10 ms) teardown of a 1 GB address space: the
        # zygote sees the output complete as soon as the harness is done.
        for fd in (RESULT_FD, 1, 2):
            with contextlib.suppress(OSError):
                os.close(fd)
    finally:
        os._exit(code)


def enter_sandbox(
    spec: ForkSpec,
    config: layers.SandboxConfig,
    seccomp: Any,
    *,
    born_in_cgroup: bool = False,
) -> None:
    """Apply every layer, in order, to this freshly forked single-threaded process."""
    gpu = spec.device == "cuda"
    if not born_in_cgroup:
        layers.join_cgroups(spec.cgroups)
    if config.use_namespaces:
        # As host root: private mount namespace, new root, procfs of our pid namespace.
        layers.enter_mount_namespace()
        layers.build_root(config, spec.limits, gpu=gpu)
    else:
        os.setsid()  # without a pid namespace, a process group is all the zygote can kill
    if config.use_uid:
        layers.drop_to_sandbox_user(spec.uid, spec.gid)
    layers.set_parent_death_signal(None)
    if config.use_namespaces:
        layers.unshare_namespaces()
        layers.write_id_maps(spec.uid, spec.gid)
        layers.set_hostname()
    layers.apply_rlimits(spec.limits, gpu=gpu, nproc_fallback=config.nproc_fallback)
    layers.drop_capabilities(config.last_cap)
    layers.set_no_new_privs()
    if config.use_seccomp and seccomp is not None:
        layers.load_seccomp(seccomp)


class _Template:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        # Forked and not yet reaped: only the template may reap them, so none of these pids
        # can have been reused, and a signal to one reaches our own child.
        self.kids: set[int] = set()

    def reap(self, _signum: int, _frame: Any) -> None:
        # Runs between bytecodes of the main loop; the I/O loop learns each exit status here.
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.kids.discard(pid)
            with contextlib.suppress(OSError):
                self.sock.send(json.dumps({"exit": pid, "status": status}).encode())

    def exit_after_reaping(self, timeout_s: float = 2.0) -> NoReturn:
        """Kill every child still alive, exit once all are reaped, or after ``timeout_s``.

        The I/O loop is gone. It kills the children it knows of, but not one whose pid it
        had not read yet: a child forked just before a stop, which waits for its request
        until the zygote's end of the socket closes, and the zygote waited for us (every
        stop after a run took 2 s more). A child left unreaped is handed to the host's init,
        which may take seconds to reap it on a busy machine: meanwhile it is a sandbox
        process that nobody owns.
        """
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # reaped below, no report to send
        for pid in list(self.kids):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                time.sleep(0.005)
        os._exit(0)


def template_loop(sock: socket.socket, config: layers.SandboxConfig, seccomp: Any,
                  runner: Runner = harness.run_bytes) -> None:
    """Serve fork requests from the I/O loop until it goes away; never return."""
    layers.set_parent_death_signal(os.getppid())
    template = _Template(sock)
    signal.signal(signal.SIGCHLD, template.reap)
    host_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    # Attaching to a v1 cgroup costs ~8 ms (an RCU grace period). The template therefore
    # moves itself into the *next* run's cgroup while idle, and that run's child is born
    # there; the template leaves right after the fork (pids.max allows for it meanwhile).
    current: tuple[str, ...] = ()
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 65536, 8)
        except OSError:
            template.exit_after_reaping()
        if not msg:
            template.exit_after_reaping()
        spec = ForkSpec.loads(msg)
        # Block SIGCHLD so the child cannot be reaped before we hold a pidfd for it.
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
        if config.use_namespaces:
            # The next child is pid 1 of a new pid namespace; one fork, no middle process.
            layers.unshare_pid_namespace()
        pid = os.fork()
        if pid == 0:
            sock.close()
            os.close(host_pid_ns)
            run_child(spec, fds, config, seccomp, runner=runner,
                      born_in_cgroup=bool(spec.cgroups) and current == spec.cgroups)  # fmt: skip
        template.kids.add(pid)  # SIGCHLD is blocked: it cannot have been reaped yet
        if config.use_namespaces:
            layers.reset_pid_namespace(host_pid_ns)
        pidfd = os.pidfd_open(pid)
        for fd in fds:
            os.close(fd)
        try:
            socket.send_fds(sock, [json.dumps({"pid": pid, "tag": spec.run_id}).encode()],
                            [pidfd])  # fmt: skip
        except OSError:
            # The I/O loop is gone (the zygote is shutting down): so is the child's request
            # socket, and the child exits on its own when it reads the end of it.
            template.exit_after_reaping()
        os.close(pidfd)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
        current = ()
        if spec.next_cgroups:
            try:
                layers.join_cgroups(spec.next_cgroups)
                current = spec.next_cgroups
            except OSError:
                current = ()  # the child joins on its own instead (slower, same result)
