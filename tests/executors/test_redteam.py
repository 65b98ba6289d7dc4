"""Hostile submissions: each must end safely, leave no process or cgroup, and touch no host file."""
# ruff: noqa: E501 - submissions are source strings; wrapping them hurts more than it helps

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import sysconfig
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from content.loader import Bank
from executors.engine import LocalExecutor
from executors.grading.verdict import Status
from executors.grading.wire import TensorData, Unsupported
from executors.isolation.limits import MIB
from executors.service.client import ExecutorClient
from tests.executors.builders import code_item
from tests.executors.http_service import InProcessService
from tests.support.executors import (
    FAKE_SECRETS,
    REPO,
    SMALL_LIMITS,
    Outcome,
    assert_nothing_left,
)

pytestmark = pytest.mark.sandbox

# Short deadlines keep the endless submissions cheap; the suite stays well under 90 s.
FAST = dataclasses.replace(SMALL_LIMITS, wall_s=1.5, cpu_s=2)
HOST_TMP_MARKER = Path(f"/tmp/torchquiz-redteam-{os.getpid()}")
SITE_MARKER = Path(sysconfig.get_paths()["purelib"]) / "torchquiz_redteam_marker"
REPO_MARKER = REPO / "torchquiz_redteam_marker"
MARKERS = (HOST_TMP_MARKER, SITE_MARKER, REPO_MARKER)
LIBC = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"


def syscall_code(number: int, *args: int) -> str:
    joined = ", ".join(str(a) for a in (number, *args))
    return LIBC + (f"def f():\n    r = libc.syscall({joined})\n"
                   "    return (r, ctypes.get_errno())\n")


def failed_safely(out: Outcome) -> bool:
    """Say whether the run ended in a way the grader reports as a failure, never a pass."""
    raw = out.raw
    return bool(raw.timed_out or raw.memory_exceeded or raw.output_exceeded
                or raw.result_truncated or raw.exit_code not in (0, None) or raw.signal
                or out.records is None or len(out.records) < 2 or out.errors)


def timed_out(out: Outcome) -> bool:
    return out.raw.timed_out and out.raw.signal == signal.SIGKILL


def memory(out: Outcome) -> bool:
    return out.raw.memory_exceeded


def error_named(*names: str) -> Callable[[Outcome], bool]:
    return lambda out: any(e.get("type") in names for e in out.errors)


def output_is(value: Any) -> Callable[[Outcome], bool]:
    return lambda out: out.outputs == [value]


def eperm(out: Outcome) -> bool:
    return out.outputs == [(-1, 1)]


def no_secret(out: Outcome) -> bool:
    text = repr(out.records) + repr(out.raw.stdout)
    return not any(k in text or v in text for k, v in FAKE_SECRETS.items())


CASES: list[tuple[str, str, Callable[[Outcome], bool], Any]] = [
    ("fork-bomb", "import os\ndef f():\n    while True:\n        try:\n            os.fork()\n"
     "        except OSError:\n            pass\n", timed_out, FAST),
    ("fork-loop", "import os, time\ndef f():\n    for _ in range(200):\n        if os.fork() == 0:\n"
     "            time.sleep(100)\n    return 'all forked'\n", error_named("BlockingIOError"), FAST),
    ("subprocess", f"import subprocess\ndef f():\n    subprocess.run(['/bin/sh', '-c', "
     f"'touch {HOST_TMP_MARKER}'])\n", error_named("FileNotFoundError"), None),
    ("os-system", f"import os\ndef f():\n    return os.system('touch {HOST_TMP_MARKER}')\n",
     lambda out: out.outputs and out.outputs[0] != 0, None),
    ("os-exec", "import os\ndef f():\n    os.execv('/bin/sh', ['sh'])\n",
     error_named("FileNotFoundError"), None),
    ("sleep-forever", "import time\ndef f():\n    time.sleep(10**6)\n", timed_out, FAST),
    ("busy-ignoring-signals", "import signal\ndef f():\n    signal.signal(signal.SIGTERM, "
     "signal.SIG_IGN)\n    signal.signal(signal.SIGINT, signal.SIG_IGN)\n    while True:\n"
     "        pass\n", timed_out, FAST),
    ("cpu-limit", "import signal\ndef f():\n    signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
     "    while True:\n        pass\n", lambda out: out.raw.timed_out,
     dataclasses.replace(SMALL_LIMITS, wall_s=6, cpu_s=1)),
    ("memory-bomb", "def f():\n    return len(bytearray(4 * 10**9))\n", memory, None),
    # Wall and CPU time to spare: the memory limit must stop it however slowly a busy machine
    # faults its pages in (1.5 s of wall time was not always enough under load).
    ("memory-creep", "def f():\n    x = []\n    while True:\n        x.append(bytearray(2**20))\n",
     memory, dataclasses.replace(SMALL_LIMITS, wall_s=30, cpu_s=30)),
    ("giant-tensor", "import torch\ndef f():\n    return torch.empty(10**12).sum()\n", memory, None),
    ("stdout-flood", "def f():\n    while True:\n        print('x' * 1000)\n",
     lambda out: out.raw.output_exceeded and out.raw.stdout_truncated
     and len(out.raw.stdout) <= SMALL_LIMITS.output_bytes, None),
    ("stderr-flood", "import sys\ndef f():\n    while True:\n        sys.stderr.write('y' * 999)\n",
     lambda out: out.raw.output_exceeded and out.raw.stderr_truncated
     and len(out.raw.stderr) <= SMALL_LIMITS.output_bytes, None),
    ("tmp-fill", "def f():\n    for i in range(100):\n        with open(f'/tmp/fill{i}', 'wb') as fh:\n"
     "            fh.write(b'x' * 2**20)\n", error_named("OSError"), None),
    ("shm-fill", "def f():\n    for i in range(100):\n"
     "        with open(f'/dev/shm/fill{i}', 'wb') as fh:\n            fh.write(b'x' * 2**20)\n",
     error_named("OSError"), None),
    ("big-file", "def f():\n    with open('/tmp/big', 'wb') as fh:\n"
     "        fh.write(b'x' * 3 * 2**20)\n", error_named("OSError"), None),
    ("read-shadow", "def f():\n    return open('/etc/shadow').read()\n",
     error_named("FileNotFoundError"), None),
    ("read-secrets", "import os\ndef f():\n    return (dict(os.environ), open('/proc/1/environ').read(),"
     " open('/proc/self/environ').read())\n", no_secret, None),
    ("list-processes", "import os\ndef f():\n    return [p for p in os.listdir('/proc') if p.isdigit()]\n",
     output_is(["1"]), None),
    ("connect-localhost", "import socket\ndef f(port):\n    s = socket.create_connection("
     "('127.0.0.1', port), timeout=1)\n    return 'connected'\n", error_named(
         "OSError", "ConnectionRefusedError", "TimeoutError"), "LISTENER"),
    ("connect-external", "import socket\ndef f():\n    socket.create_connection(('1.1.1.1', 80),"
     " timeout=1)\n    return 'connected'\n", error_named("OSError", "TimeoutError", "gaierror"),
     None),
    ("vsock", "import socket\ndef f():\n    socket.socket(40, socket.SOCK_STREAM)\n",
     error_named("PermissionError"), None),
    ("write-site-packages", f"def f():\n    open({str(SITE_MARKER)!r}, 'w').write('x')\n",
     error_named("FileNotFoundError", "OSError", "PermissionError"), None),
    ("write-repo", f"import os\ndef f():\n    os.makedirs({str(REPO)!r}, exist_ok=True)\n"
     f"    open({str(REPO_MARKER)!r}, 'w').write('x')\n",
     error_named("FileNotFoundError", "OSError", "PermissionError"), None),
    ("write-host-tmp", f"def f():\n    open({str(HOST_TMP_MARKER)!r}, 'w').write('x')\n"
     "    return 'wrote'\n", output_is("wrote"), None),  # lands in the private tmpfs only
    ("kill-everything", "import os\ndef f():\n    os.kill(-1, 9)\n    return 'alive'\n",
     lambda out: True, None),
    ("kill-parent", "import os\ndef f():\n    os.kill(os.getppid(), 9)\n    return os.getppid()\n",
     lambda out: True, None),
    ("segfault", "import ctypes\ndef f():\n    ctypes.string_at(0)\n",
     lambda out: out.raw.signal == signal.SIGSEGV, None),
    ("exit-early", "import os\ndef f():\n    os._exit(0)\n",
     lambda out: out.raw.exit_code == 0 and len(out.records or []) == 1, None),
    ("sys-exit", "import sys\ndef f():\n    sys.exit(0)\n", error_named("SystemExit"), None),
    ("exit-at-load", "import sys\nsys.exit(0)\n",
     lambda out: out.records and out.records[0]["loaded"] is False, None),
    ("raise-rlimit", "import resource\ndef f():\n    resource.setrlimit(resource.RLIMIT_DATA, "
     "(resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n",
     error_named("ValueError", "PermissionError", "OSError"), None),
    ("ptrace", syscall_code(101, 0, 1, 0, 0), eperm, None),
    ("process-vm-readv", syscall_code(310, 1, 0, 0, 0, 0, 0), eperm, None),
    ("unshare", LIBC + "def f():\n    return (libc.unshare(0x10000000), ctypes.get_errno())\n",
     eperm, None),
    ("mount", LIBC + "def f():\n    return (libc.mount(b'none', b'/tmp', b'tmpfs', 0, None),"
     " ctypes.get_errno())\n", eperm, None),
    ("keyctl", syscall_code(250, 0, 0, 0, 0), eperm, None),
    ("bpf", syscall_code(321, 0, 0, 0), eperm, None),
    ("userfaultfd", syscall_code(323, 0), eperm, None),
    ("io-uring-setup", syscall_code(425, 1, 0), eperm, None),
    ("personality", syscall_code(135, 0x0040000), eperm, None),
    ("clone-newuser", syscall_code(56, 0x10000000 | 17, 0, 0, 0, 0), eperm, None),
    ("x32-abi", syscall_code(0x40000000 + 39), lambda out: out.raw.signal == signal.SIGSYS, None),
    ("malicious-pickle", f"import torch, os\nclass P:\n    def __reduce__(self):\n"
     f"        return (os.system, ('echo pwned > {HOST_TMP_MARKER}',))\n"
     "def f():\n    torch.save(P(), '/tmp/evil.pt')\n"
     "    return torch.load('/tmp/evil.pt', weights_only=False)\n", lambda out: True, None),
    ("thread-storm", "import threading, time\ndef f():\n    ts = [threading.Thread(target=time.sleep,"
     " args=(5,)) for _ in range(1000)]\n    for t in ts:\n        t.start()\n",
     error_named("RuntimeError", "MemoryError"), None),
    ("malicious-reduce-return", f"import os\nclass Evil:\n    def __reduce__(self):\n"
     f"        return (os.system, ('touch {HOST_TMP_MARKER}',))\n"
     "def f():\n    return Evil()\n",
     lambda out: isinstance(out.outputs[0], Unsupported), None),
    ("lying-tensor-subclass", "import torch\nclass Liar(torch.Tensor):\n    @classmethod\n"
     "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
     "        return torch.full((3,), 42.0)\n    def tolist(self):\n        return [42.0] * 3\n"
     "def f():\n    return torch.tensor([1.0, 2.0, 3.0]).as_subclass(Liar)\n",
     lambda out: isinstance(out.outputs[0], TensorData)
     and out.outputs[0].to_tensor().tolist() == [1.0, 2.0, 3.0], None),
    ("deep-recursion", "def f():\n    return f()\n", error_named("RecursionError"), None),
    ("deeply-nested-return", "def f():\n    x = []\n    for _ in range(10000):\n        x = [x]\n"
     "    return x\n", error_named("WireError"), None),
    ("self-referencing-return", "def f():\n    x = []\n    x.append(x)\n    return x\n",
     error_named("WireError"), None),
    ("huge-return", "import torch\ndef f():\n    return torch.zeros(2 * 10**6, dtype=torch.float64)\n",
     lambda out: out.raw.result_truncated, None),
    ("garbage-on-result-fd", "import os\ndef f():\n    os.write(4, b'\\xff' * 64)\n    return 1\n",
     failed_safely, None),
    ("background-thread", "import threading, time\ndef late():\n    time.sleep(0.5)\n"
     "    open('/tmp/late', 'w').write('x')\ndef f():\n"
     "    threading.Thread(target=late, daemon=False).start()\n    return 'started'\n",
     output_is("started"), None),
    ("forked-daemon", "import os, time\ndef f():\n    if os.fork() == 0:\n        os.setsid()\n"
     "        if os.fork() == 0:\n            time.sleep(100)\n        os._exit(0)\n"
     "    return 'spawned'\n", output_is("spawned"), None),
    ("setsid-escape", "import os\ndef f():\n    if os.fork() == 0:\n        os.setsid()\n"
     "        while True:\n            pass\n    os.setsid()\n    while True:\n        pass\n",
     timed_out, FAST),
]


@pytest.fixture
def listener() -> Iterator[int]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    try:
        yield srv.getsockname()[1]
    finally:
        srv.close()


def test_there_are_at_least_forty_hostile_submissions():
    assert len(CASES) >= 40


@pytest.mark.parametrize(("code", "check", "extra"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_hostile_submission_is_contained(run_code, sandbox_zygote, listener, code, check, extra):
    zygote_pid = sandbox_zygote.pid
    args = [listener] if extra == "LISTENER" else []
    limits = extra if not isinstance(extra, str) else None
    out = run_code(code, *args, limits=limits)
    assert check(out), (out.raw, out.records)
    assert_nothing_left()
    for marker in MARKERS:
        assert not marker.exists(), f"{marker} appeared on the host"
    assert sandbox_zygote.pid == zygote_pid  # the zygote itself was never hurt


def test_state_left_behind_is_gone_for_the_next_run(run_code):
    run_code("import threading, time, os\ndef f():\n    if os.fork() == 0:\n        time.sleep(60)\n"
             "    open('/tmp/stale', 'w').write('x')\n    return 1\n")
    out = run_code("import os\ndef f():\n    return (os.path.exists('/tmp/stale'),"
                   " [p for p in os.listdir('/proc') if p.isdigit()])\n")
    assert out.outputs == [(False, ["1"])]
    assert_nothing_left()


def test_hostile_and_honest_runs_in_parallel_do_not_disturb_each_other(run_code):
    honest = "import torch\ndef f(x):\n    return x * 2\n"
    hostile = "import os\ndef f(x):\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n"
    import torch

    with ThreadPoolExecutor(max_workers=12) as pool:
        futures = [pool.submit(run_code, hostile if i % 3 == 0 else honest, torch.ones(2) * i,
                               limits=FAST) for i in range(24)]
        outcomes = [f.result(timeout=120) for f in futures]
    for i, out in enumerate(outcomes):
        if i % 3 == 0:
            assert out.raw.timed_out
        else:
            assert out.outputs[0].to_tensor().tolist() == [2.0 * i, 2.0 * i]
    assert_nothing_left()


# ---------------------------------------------------------------- the same cases over HTTP

# Every case defines f; over HTTP it is the entrypoint of a challenge whose one hidden test
# expects a string no hostile case returns, so each must end in a verdict that is not a pass.
PROBE = code_item({
    "entrypoint": "f", "signature": "def f()", "starter": "def f():\n    ...\n",
    "solution": "def f():\n    return 'contained'\n",
    "tests": {"generator": "def cases(g):\n    return [{'args': []}]\n"},
    "timeout_s": FAST.wall_s, "memory_mb": SMALL_LIMITS.memory_bytes // MIB,
}, "code.redteam-probe")


@pytest.fixture(scope="module")
def over_http(sandbox_zygote):
    """Serve the probe challenge on the shared sandbox over real HTTP, with a real client."""
    # Not closed: closing the executor would stop the session's zygote.
    executor = LocalExecutor(Bank(questions={PROBE.id: PROBE}), sandbox_zygote,
                             base_limits=SMALL_LIMITS, cuda_available=False)
    with InProcessService(executor, sandbox_zygote.layers()) as service:
        client = ExecutorClient([service.url], service.token, patience_s=0)
        yield service, client
        client.close()


def _over_http(code: str, args: list[Any]) -> str:
    if not args:
        return code
    bound = ", ".join(repr(a) for a in args)
    return code + f"\n_hostile_f = f\ndef f():\n    return _hostile_f({bound})\n"


def test_the_probe_reference_passes_over_http(over_http):
    _, client = over_http
    assert client.run(PROBE.id, PROBE.code.solution).status is Status.PASSED


@pytest.mark.parametrize(("code", "extra"), [(c[1], c[3]) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_hostile_submission_over_http_ends_in_a_verdict_and_is_contained(
        over_http, sandbox_zygote, listener, code, extra):
    service, client = over_http
    zygote_pid = sandbox_zygote.pid
    verdict = client.run(PROBE.id, _over_http(code, [listener] if extra == "LISTENER" else []))
    assert verdict.status is not Status.PASSED and not verdict.fault, verdict
    assert service.service.readiness.ready
    assert_nothing_left()
    for marker in MARKERS:
        assert not marker.exists(), f"{marker} appeared on the host"
    assert sandbox_zygote.pid == zygote_pid


def test_hostile_and_honest_runs_in_parallel_over_http_do_not_disturb_each_other(over_http):
    _, client = over_http
    hostile = next(c[1] for c in CASES if c[0] == "fork-bomb")
    with ThreadPoolExecutor(max_workers=12) as pool:
        futures = [pool.submit(client.run, PROBE.id,
                               hostile if i % 3 == 0 else PROBE.code.solution)
                   for i in range(24)]
        verdicts = [f.result(timeout=120) for f in futures]
    assert [v.status for v in verdicts] == [
        Status.TIMEOUT if i % 3 == 0 else Status.PASSED for i in range(24)]
    assert_nothing_left()
