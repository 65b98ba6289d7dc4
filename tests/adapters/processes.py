"""Run `torchquiz discord|slack` as a real process: wait for it, stop it, find its sandbox."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

START_TIMEOUT_S = 180


class Served(Protocol):
    """A fake platform: served on a local port between start and stop."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


FakeT = TypeVar("FakeT", bound=Served)
T = TypeVar("T")


def children_running(parent: int, marker: str) -> list[int]:
    """Return the pids of ``parent``'s children whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = next((line.split()[1] for line in status.splitlines()
                     if line.startswith("PPid:")), "")
        if ppid == str(parent) and marker.encode() in cmdline:
            found.append(int(entry.name))
    return found


def wait_until(process: subprocess.Popen[str], ready: Callable[[], bool], what: str) -> None:
    """Wait until ``ready()``, failing with the process's stderr if it exits first."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while not ready():
        assert process.poll() is None, process.communicate()[1][-3000:]
        assert time.monotonic() < deadline, f"the process never {what}"
        time.sleep(0.1)


def stop_within_ten_seconds(process: subprocess.Popen[str], stopped_line: str) -> None:
    """SIGTERM a started process: it exits 0 within 10 s, its sandbox with it."""
    zygotes = children_running(process.pid, "executors.zygote")
    assert zygotes, "the process started no sandbox"
    stopped_at = time.monotonic()
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=15)
    elapsed = time.monotonic() - stopped_at
    assert process.returncode == 0, err[-3000:]
    assert elapsed < 10, f"took {elapsed:.1f} s to stop"
    assert stopped_line in err
    assert "start-up heap frozen" in err, "the process left its start-up heap to the collector"
    assert not [pid for pid in zygotes if Path(f"/proc/{pid}").exists()], \
        "a zygote outlived the process"


class ThreadedFake(Generic[FakeT]):
    """A fake platform served from its own thread and loop, for a process to talk to."""

    def __init__(self, make: Callable[[], FakeT]) -> None:
        self.loop = asyncio.new_event_loop()
        self._fake: FakeT | None = None
        started = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(self.loop)
            self._fake = make()
            self.loop.run_until_complete(self._fake.start())
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        assert started.wait(10)

    @property
    def fake(self) -> FakeT:
        assert self._fake is not None
        return self._fake

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the fake's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the fake's loop (its state belongs to that thread)."""
        async def run() -> T:
            return fn()
        return self.run(run())

    def close(self) -> None:
        self.run(self.fake.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def process_env(tmp_path: Path, platform: str, **extra: str) -> dict[str, str]:
    """Return this environment without the platform's or torchquiz's settings, plus ``extra``."""
    own = (f"{platform.upper()}_", "TORCHQUIZ_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(own)}
    env.update({"TORCHQUIZ_DATA_DIR": str(tmp_path), "TORCHQUIZ_LOG_LEVEL": "INFO", **extra})
    return env
