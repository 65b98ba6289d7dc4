"""Run card examples in forked children of one process that imported torch once.

Started by ``tests.content.example_runner`` as ``python -I THIS_FILE``: reads one JSON request
on stdin (``{"examples": {id: source}, "timeout_s": float, "timeouts": {id: float}, "workers": int,
"max_output": int}``; ``timeouts`` overrides the deadline of single examples) and
writes one JSON object on stdout mapping each id to its ``returncode`` (None when killed),
``stdout``, ``stderr`` and ``timed_out``. Only the standard library and the imports below are
used, so it runs outside the project's packages.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import sys
import tempfile
import time
import traceback
import types
from typing import Any

# Import, never use: a torch op here would start OpenMP threads, and a child forked after that
# can hang forever in libgomp. Each child sets its own thread count before running anything.
# (After these imports the process still has the two threads `import torch` starts, no more.)
import numpy
import torch
import torch._dynamo  # optimizers and torch.compile import it lazily: 2-10 s per child otherwise

_PRELOADED = (numpy, torch, torch._dynamo)


def _child(source: str, name: str, out_w: int, err_w: int) -> None:
    """Run one example with fds 1 and 2 on the pipes; never return."""
    code = 1
    try:
        os.setpgid(0, 0)  # its own group, so a timeout also kills what the example started
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.close(out_w)
        os.close(err_w)
        workdir = tempfile.mkdtemp(prefix="example-")
        os.chdir(workdir)
        os.environ["TMPDIR"] = tempfile.tempdir = workdir
        torch.set_num_threads(1)
        # A fresh __main__ module, as `python example.py` would give: pickle finds classes the
        # example defines (torch.save of a custom object looks them up in sys.modules).
        main = types.ModuleType("__main__")
        sys.modules["__main__"] = main
        exec(compile(source, f"<example {name}>", "exec"), main.__dict__)  # noqa: S102
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # whatever the example raised is its result
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


class _Run:
    """One forked child and what it has printed so far."""

    def __init__(self, name: str, pid: int, out_r: int, err_r: int, deadline: float) -> None:
        self.name, self.pid, self.deadline = name, pid, deadline
        self.started = time.monotonic()
        self.buffers: dict[int, bytearray] = {out_r: bytearray(), err_r: bytearray()}
        self.out_r, self.err_r = out_r, err_r
        self.open = 2
        self.timed_out = False


def _start(name: str, source: str, timeout_s: float) -> _Run:
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(out_r)
        os.close(err_r)
        _child(source, name, out_w, err_w)
    os.close(out_w)
    os.close(err_w)
    return _Run(name, pid, out_r, err_r, time.monotonic() + timeout_s)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def main() -> int:
    """Serve one batch of examples; return the process exit status."""
    request = json.loads(sys.stdin.read())
    pending = list(request["examples"].items())
    timeout_s, workers = float(request["timeout_s"]), max(1, int(request["workers"]))
    timeouts = {name: float(t) for name, t in request.get("timeouts", {}).items()}
    max_output = int(request["max_output"])
    results: dict[str, dict[str, Any]] = {}
    selector = selectors.DefaultSelector()
    running: dict[int, _Run] = {}
    while pending or running:
        while pending and len(running) < workers:
            name, source = pending.pop(0)
            run = _start(name, source, timeouts.get(name, timeout_s))
            running[run.pid] = run
            selector.register(run.out_r, selectors.EVENT_READ, run)
            selector.register(run.err_r, selectors.EVENT_READ, run)
        for key, _ in selector.select(timeout=0.05):
            run = key.data
            chunk = os.read(key.fd, 65536)
            buffer = run.buffers[key.fd]
            if chunk and len(buffer) < max_output:
                buffer.extend(chunk[: max_output - len(buffer)])
            if not chunk:
                selector.unregister(key.fd)
                os.close(key.fd)
                run.open -= 1
        now = time.monotonic()
        for run in list(running.values()):
            if not run.timed_out and now > run.deadline:
                run.timed_out = True
                _kill_group(run.pid)
                # A process the example started may still hold the pipes: stop reading them.
                for fd in (run.out_r, run.err_r):
                    if fd in selector.get_map():
                        selector.unregister(fd)
                        os.close(fd)
                run.open = 0
            if run.open:
                continue
            _, status = os.waitpid(run.pid, 0)
            del running[run.pid]
            results[run.name] = {
                "returncode": None if run.timed_out else os.waitstatus_to_exitcode(status),
                "stdout": run.buffers[run.out_r].decode("utf-8", "replace"),
                "stderr": run.buffers[run.err_r].decode("utf-8", "replace"),
                "timed_out": run.timed_out,
                "duration_s": round(time.monotonic() - run.started, 3),
            }
    sys.stdout.write(json.dumps(results))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    raise SystemExit(main())
