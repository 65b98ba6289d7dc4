"""`torchquiz discord` as a process: credentials, start against the fake, a clean SIGTERM."""

from __future__ import annotations

import functools
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.adapters.processes import (
    ThreadedFake,
    process_env,
    stop_within_ten_seconds,
    wait_until,
)
from tests.fake_discord import GENERAL, OTHER_GENERAL, OTHER_GUILD_ID, REJECTED_TOKEN, FakeDiscord

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


@pytest.fixture
def two_servers() -> Iterator[ThreadedFake[FakeDiscord]]:
    """The fake Discord with a second server, which Discord routes to the other of two shards."""
    served = ThreadedFake(FakeDiscord)
    served.call(lambda: served.fake.guild_ids.append(OTHER_GUILD_ID))
    yield served
    served.close()


def _connected(fake: FakeDiscord, count: int) -> bool:
    return len(fake.shard_of) == count


def _answered(served: ThreadedFake[FakeDiscord], channel: int) -> str:
    record = served.run(served.fake.slash("explain", channel_id=channel, topic="detach"))
    deadline = time.monotonic() + 60
    while not served.call(record.finished.is_set):
        assert time.monotonic() < deadline, f"nobody answered in channel {channel}"
        time.sleep(0.1)
    assert not record.doubled, "two processes answered one interaction"
    return record.text()


def test_two_processes_with_one_shard_each_answer_each_server_exactly_once(tmp_path,
                                                                          two_servers):
    fake = two_servers.fake
    processes = []
    try:
        for shards in ("0/2", "1/2"):
            env = _env(tmp_path, DISCORD_TOKEN="good-token", DISCORD_API_URL=fake.api_url,
                       TORCHQUIZ_EXECUTOR="none", TORCHQUIZ_DISCORD_SHARDS=shards,
                       TORCHQUIZ_HEALTH_PORT="0", TORCHQUIZ_LOG_LEVEL="WARNING")
            processes.append(subprocess.Popen(_torchquiz("discord"), env=env, cwd=REPO,
                                              text=True, stdout=subprocess.PIPE,
                                              stderr=subprocess.PIPE))
            wait_until(processes[-1], functools.partial(_connected, fake, len(processes)),
                       f"identified as shard {shards}")
        assert sorted(two_servers.call(lambda: list(fake.shard_of.values()))) == [(0, 2), (1, 2)]
        puts = [c for c in fake.calls if c.method == "PUT" and c.path.endswith("/commands")]
        assert len(puts) == 1, "only the process that runs shard 0 registers the commands"
        for channel in (GENERAL, OTHER_GENERAL):  # one server on each shard
            assert "detach()" in _answered(two_servers, channel)
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            _, err = process.communicate(timeout=30)
            assert process.returncode == 0, err[-3000:]
            assert "Traceback" not in err


@pytest.mark.parametrize("value", ["2/2", "0,1", "a/b", "0/0", "1/99999"])
def test_a_bad_shard_setting_is_one_line_and_exit_2(tmp_path, value):
    env = _env(tmp_path, DISCORD_TOKEN="good-token", TORCHQUIZ_DISCORD_SHARDS=value,
               TORCHQUIZ_LOG_LEVEL="WARNING")
    done = subprocess.run(_torchquiz("discord"), env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("torchquiz discord: TORCHQUIZ_DISCORD_SHARDS")
    assert len(done.stderr.strip().splitlines()) == 1
