"""The warm zygote's I/O loop: queue runs, stream and cap output, enforce deadlines, clean up.

Started by ``python -m executors.zygote --fd N`` with a scrubbed environment. It imports
torch (never initialises CUDA, never runs an op), forks the pristine template, then serves
length-prefixed wire frames over the inherited socket on a single thread.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import socket
import sys
from typing import Any, NoReturn

from executors.isolation import layers
from executors.isolation.cgroups import CgroupManager
from executors.zygote.eventloop import Server
from executors.zygote.hugepages import collapse_anonymous_memory

log = logging.getLogger("executors.zygote")


# Modules that torch imports lazily on common paths (autograd.backward pulls in sympy through
# symbolic_shapes: ~650 ms per run if left to each child). Imports only: no torch op runs here.
WARM_IMPORTS = (
    "numpy",
    "torch.nested._internal.nested_tensor",
    "torch.fx.experimental.symbolic_shapes",
    "torch.autograd.functional",
    "torch.nn.functional",
    # torch.optim's first step imports torch._dynamo (1.5 s idle, over 8 s on a busy machine:
    # a correct answer that builds an optimizer timed out), and torch.func with it. Warming
    # them costs the zygote about 37 MB and starts no thread.
    "torch._dynamo",
    "torch.func",
    "torch.optim",
)


def warm_imports() -> None:
    """Import what children would otherwise import on every run, leaving the env as it was.

    Some imports write to os.environ (torch._dynamo sets TORCHINDUCTOR_CACHE_DIR to a host
    path); children must inherit the allow-listed environment and nothing else.
    """
    before = dict(os.environ)
    for name in WARM_IMPORTS:
        try:
            importlib.import_module(name)
        except Exception as exc:
            log.warning("warm import %s failed: %s", name, exc)
    # The sandbox's procfs has no /proc/cpuinfo (subset=pid), and torch reads it lazily the
    # first time a kernel asks which instructions the CPU has (a float16 -> float32 copy did:
    # "Failed to initialize cpuinfo!"). Asking once here fills that in for every child; it
    # runs no op and starts no thread.
    import torch

    torch.backends.cpu.get_cpu_capability()
    for key in set(os.environ) - set(before):
        log.debug("warm imports set %s; removed", key)
        del os.environ[key]
    for key, value in before.items():
        if os.environ.get(key) != value:
            os.environ[key] = value


def exit_without_teardown(code: int) -> NoReturn:
    """Exit once the server has shut down, skipping the interpreter's teardown.

    By then every child is killed and every cgroup removed; what is left is tearing down the
    warm heap (torch, torch._dynamo and their modules), which took 1.9 s of a 1.95-s close
    on an idle machine: every restart, replica stop and rolling deploy waited for it.
    """
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


def _probe_namespaces(uid: int, gid: int, use_uid: bool) -> bool:
    """Fork a throwaway child to see whether this machine lets us create the namespaces."""
    pid = os.fork()
    if pid == 0:
        try:
            if use_uid:
                layers.drop_to_sandbox_user(uid, gid)
            layers.unshare_namespaces()
            layers.write_id_maps(uid, gid)
        except BaseException:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def build_config(cgroups: CgroupManager) -> tuple[layers.SandboxConfig, Any]:
    """Detect what this machine supports and build the sandbox config and seccomp filter."""
    uid, gid = layers.sandbox_ids()
    use_uid = os.geteuid() == 0
    binds, symlinks = layers.default_binds()
    try:
        from executors.isolation.seccomp import build_seccomp_filter

        seccomp = build_seccomp_filter()
    except (ImportError, OSError, RuntimeError) as exc:
        log.warning("seccomp unavailable: %s", exc)
        seccomp = None
    config = layers.SandboxConfig(
        uid=uid, gid=gid, binds=binds, symlinks=symlinks, use_uid=use_uid,
        use_namespaces=_probe_namespaces(uid, gid, use_uid), use_seccomp=seccomp is not None,
        nproc_fallback=not cgroups.available, gpu_devices=layers.gpu_device_nodes(),
        masks=layers.project_masks(binds),
        last_cap=layers.last_capability(),
    )  # fmt: skip
    return config, seccomp


def _warm_up(
    ctrl: socket.socket, cgroups: CgroupManager, max_parallel: int, *, huge: bool
) -> tuple[Server, dict[str, Any]]:
    """Import torch, check the layers, fork the template; return the server and its hello."""
    import torch

    warm_imports()

    cuda: Any = torch.cuda  # untyped in torch's stubs
    if cuda.is_initialized():  # pragma: no cover - would poison every fork
        raise RuntimeError("CUDA initialised in the zygote")
    config, seccomp = build_config(cgroups)
    # Last, once the heap has its warm size: the template and its children share huge pages,
    # which cut each fork and each exit by ~8 ms (see executors.zygote.hugepages).
    huge_bytes = collapse_anonymous_memory() if huge else 0
    server = Server(ctrl, config, seccomp, cgroups, max(1, max_parallel))
    hello = {
        "hello": True, "pid": os.getpid(), "template_pid": server.template_pid,
        "uid": config.uid, "use_uid": config.use_uid, "use_namespaces": config.use_namespaces,
        "use_seccomp": config.use_seccomp, "cgroups": cgroups.version,
        "cgroup_name": cgroups.name, "cgroup_problem": cgroups.problem,
        "nproc_fallback": config.nproc_fallback, "cuda_initialized": bool(cuda.is_initialized()),
        "threads": len(os.listdir("/proc/self/task")), "huge_pages_mb": huge_bytes >> 20,
    }  # fmt: skip
    return server, hello


def main(argv: list[str] | None = None) -> int:
    """Start the zygote on the socket given by --fd and serve until it closes."""
    parser = argparse.ArgumentParser(prog="python -m executors.zygote")
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--max-parallel", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-huge-pages", action="store_true",
                        help="keep 4 KiB pages (to measure what huge pages save)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s zygote[%(process)d] %(levelname)s %(message)s")
    ctrl = socket.socket(fileno=args.fd)
    os.chdir("/")
    # Before the slow imports: a dead zygote's cgroups (the one this replaces, most often)
    # are gone within a moment, not after seconds of importing torch on a busy machine.
    cgroups = CgroupManager()
    if cgroups.available:
        cgroups.reap_stale()
    try:
        server, hello = _warm_up(ctrl, cgroups, args.max_parallel, huge=not args.no_huge_pages)
    except BaseException:
        cgroups.close()
        raise
    try:
        server.send(hello)
        server.serve()
    finally:
        server.shutdown()
    return 0
