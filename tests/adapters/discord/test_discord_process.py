"""`torchquiz discord` as a process: credentials, start against the fake, a clean SIGTERM."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.adapters.processes import (
    ThreadedFake,
    process_env,
    stop_within_ten_seconds,
    wait_until,
)
from tests.fake_discord import REJECTED_TOKEN, FakeDiscord

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def fake_in_thread() -> Iterator[FakeDiscord]:
    """Serve the fake Discord from a thread, so a bot process can connect to it."""
    served = ThreadedFake(FakeDiscord)
    yield served.fake
    served.close()


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return process_env(tmp_path, "discord", **extra)


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
        wait_until(process, fake_in_thread.ready.is_set, "identified on the gateway")
        assert fake_in_thread.commands, "slash commands were not synced at start"
        stop_within_ten_seconds(process, "runtime stopped")
    finally:
        if process.poll() is None:
            process.kill()
