"""`torchquiz discord` as a process: credentials, start against the fake, a clean SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_discord import REJECTED_TOKEN, FakeDiscord

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def fake_in_thread() -> Iterator[FakeDiscord]:
    """Serve the fake Discord from a thread, so a bot process can connect to it."""
    loop = asyncio.new_event_loop()
    fake = FakeDiscord()
    started = threading.Event()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(fake.start())
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert started.wait(10)
    yield fake
    asyncio.run_coroutine_threadsafe(fake.stop(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TORCHQUIZ_"))}
    env.update({"TORCHQUIZ_DATA_DIR": str(tmp_path), "TORCHQUIZ_LOG_LEVEL": "INFO", **extra})
    return env


def _torchquiz(*args: str) -> list[str]:
    return [sys.executable, "-m", "bot.cli", *args]


def test_a_missing_token_is_one_line_and_exit_2(tmp_path):
    env = _env(tmp_path, TORCHQUIZ_LOG_LEVEL="WARNING")
    done = subprocess.run(_torchquiz("discord"), env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "torchquiz discord: set DISCORD_TOKEN to the bot token of your Discord application"]


def test_a_rejected_token_is_one_line_and_exit_2(tmp_path, fake_in_thread):
    env = _env(tmp_path, DISCORD_TOKEN=REJECTED_TOKEN, DISCORD_API_URL=fake_in_thread.api_url,
               TORCHQUIZ_EXECUTOR="none")
    done = subprocess.run(_torchquiz("discord"), env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2
    assert "torchquiz discord: Discord rejected DISCORD_TOKEN" in done.stderr
    assert "Traceback" not in done.stderr


def test_sigterm_stops_bot_scheduler_executor_and_database_within_ten_seconds(
        tmp_path, fake_in_thread):
    env = _env(tmp_path, DISCORD_TOKEN="good-token", DISCORD_API_URL=fake_in_thread.api_url)
    process = subprocess.Popen(_torchquiz("discord"), env=env, cwd=REPO, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 180
        while not fake_in_thread.ready.is_set():
            assert process.poll() is None, process.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "the bot never identified on the gateway"
            time.sleep(0.1)
        assert fake_in_thread.commands, "slash commands were not synced at start"
        zygotes = _children_running(process.pid, "executors.zygote")
        assert zygotes, "the bot started no sandbox"
        stopped_at = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=15)
        elapsed = time.monotonic() - stopped_at
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err[-3000:]
    assert elapsed < 10, f"took {elapsed:.1f} s to stop"
    assert "runtime stopped" in err
    leftover = [pid for pid in zygotes if Path(f"/proc/{pid}").exists()]
    assert not leftover, "a zygote outlived the bot"


def _children_running(parent: int, marker: str) -> list[int]:
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
