"""Start local ``torchquiz executor serve`` processes on 127.0.0.1 (for the benchmark and tests)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from executors.service.protocol import HEALTH_PATH, TOKEN_ENV

LISTENING = "torchquiz executor: listening on "
READY_TIMEOUT_S = 240.0  # a zygote imports torch and probes every layer; slow on a busy machine


class ReplicaProcess:
    """Own one executor service process: start it, wait until ready, stop or kill it."""

    def __init__(
        self,
        token: str,
        *,
        max_parallel: int | None = None,
        max_queue: int | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.token = token
        self.max_parallel = max_parallel
        self.max_queue = max_queue
        self.env = env
        self.url = ""
        self.proc: subprocess.Popen[str] | None = None
        self._log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - lives as long as we do
        self._lines: list[str] = []
        self._listening = threading.Event()

    @property
    def pid(self) -> int:
        """Return the service process's pid."""
        if self.proc is None:
            raise RuntimeError("the replica was not started")
        return self.proc.pid

    def start(self) -> ReplicaProcess:
        """Spawn the process and wait until it listens (not until it is ready)."""
        cmd = [sys.executable, "-m", "executors.cli.service_command", "serve",
               "--host", "127.0.0.1", "--port", "0"]  # fmt: skip
        if self.max_parallel is not None:
            cmd += ["--max-parallel", str(self.max_parallel)]
        if self.max_queue is not None:
            cmd += ["--max-queue", str(self.max_queue)]
        env = {**os.environ, **(self.env or {}), TOKEN_ENV: self.token}
        self._listening.clear()
        self.proc = subprocess.Popen(  # noqa: S603 - our interpreter, fixed arguments
            cmd, env=env, stdout=subprocess.PIPE, stderr=self._log, text=True,
            cwd=Path(__file__).resolve().parents[2],
        )  # fmt: skip
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        if not self._listening.wait(60) or not self.url:
            self.kill()
            raise RuntimeError(f"the replica did not start listening:\n{self.output()}")
        return self

    def _read(self, proc: subprocess.Popen[str]) -> None:
        for line in proc.stdout or ():
            self._lines.append(line)
            if line.startswith(LISTENING):
                self.url = line[len(LISTENING):].strip()
                self._listening.set()
        self._listening.set()

    def output(self) -> str:
        """Return what the process printed so far: stdout, then the tail of stderr."""
        self._log.seek(0)
        return "".join(self._lines) + self._log.read()[-4000:]

    def ready(self) -> bool:
        """Return whether /healthz answers 200."""
        try:
            with urllib.request.urlopen(self.url + HEALTH_PATH, timeout=2) as reply:  # noqa: S310 - our own loopback URL
                return bool(reply.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def wait_ready(self, timeout_s: float = READY_TIMEOUT_S) -> ReplicaProcess:
        """Wait until /healthz says ready; raise with the process's output if it never does."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                raise RuntimeError(f"the replica exited:\n{self.output()}")
            if self.ready():
                return self
            time.sleep(0.2)
        raise RuntimeError(f"the replica was not ready after {timeout_s:.0f} s:\n{self.output()}")

    def kill(self) -> None:
        """Kill the process at once (SIGKILL), as a crash or an OOM kill would."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Ask the process to drain and stop (SIGTERM); kill it if it does not."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> ReplicaProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
        self._log.close()
