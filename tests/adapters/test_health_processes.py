"""`torchquiz discord` and `torchquiz slack` as processes: /healthz, /metrics and JSON logs.

Each process runs on a PostgreSQL cluster of its own, against the local fake platform: once
ready, /healthz is 200 and /metrics parses as Prometheus text; the cluster is then stopped
and /healthz turns 503 naming the database. Its log is JSON lines from start to SIGTERM.
The sandbox is switched off: grading plays no part in readiness.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.fake_discord import FakeDiscord
from tests.fake_slack import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, FakeSlack

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "pg-test-server.sh"
START_TIMEOUT_S = 180
FAMILIES = {"torchquiz_answers", "torchquiz_posts", "torchquiz_grading_seconds",
            "torchquiz_errors", "torchquiz_pending_answers", "torchquiz_rate_limited"}


class Served:
    """A fake platform served from its own thread and loop, for a process to talk to."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.loop = asyncio.new_event_loop()
        self.fake: Any = None
        started = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(self.loop)
            self.fake = make()
            self.loop.run_until_complete(self.fake.start())
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        assert started.wait(10)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.fake.stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def own_pg(pg_server, tmp_path: Path) -> Iterator[tuple[str, Callable[[], None]]]:
    """Return a database URL on a cluster of its own, and a function that stops the cluster.

    Its own cluster: stopping the shared test server would cut every other test's
    connections. pg_server only applies the suite's rule (fail in CI, skip elsewhere).
    """
    del pg_server
    folder = tmp_path / "pg"
    started = subprocess.run([SCRIPT, "start", folder], capture_output=True, text=True,
                             check=False)
    if started.returncode != 0:
        pytest.fail(f"could not start a PostgreSQL cluster to stop:\n{started.stderr}")
    stopped = []

    def stop() -> None:
        if not stopped:
            stopped.append(True)
            subprocess.run([SCRIPT, "stop", folder], check=True, capture_output=True)

    try:
        yield started.stdout.strip(), stop
    finally:
        stop()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:  # noqa: S310 - our own port
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()
    except OSError:
        return 0, ""


def _until(process: subprocess.Popen[str], url: str, status: int) -> str:
    """Poll ``url`` until it answers ``status``; fail with the log if the process exits."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        got, body = _get(url)
        if got == status:
            return body
        assert process.poll() is None, process.communicate()[1][-3000:]
        assert time.monotonic() < deadline, f"{url} never answered {status} (last: {got} {body})"
        time.sleep(0.2)


def _env(tmp_path: Path, url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "SLACK_", "TORCHQUIZ_"))}
    env.update({"TORCHQUIZ_DATA_DIR": str(tmp_path), "TORCHQUIZ_LOG_LEVEL": "INFO",
                "TORCHQUIZ_LOG_FORMAT": "json", "TORCHQUIZ_DATABASE_URL": url,
                "TORCHQUIZ_EXECUTOR": "none", **extra})
    return env


def _probe_then_stop_the_database(process, base: str, stop_database) -> None:
    assert _until(process, f"{base}/healthz", 200) == '{"ok": true}'
    status, text = _get(f"{base}/metrics")
    assert status == 200
    families = {family.name for family in text_string_to_metric_families(text)}
    assert families >= FAMILIES, FAMILIES - families
    stop_database()
    body = _until(process, f"{base}/healthz", 503)
    assert json.loads(body) == {"ok": False, "down": ["database"]}


def _stopped_with_json_logs(process) -> list[dict[str, Any]]:
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err[-3000:]
    lines = [json.loads(line) for line in err.splitlines() if line.strip()]
    assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    return lines


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "bot.cli", *args], env=env, cwd=REPO,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.postgres
def test_discord_process_is_ready_until_its_database_stops(tmp_path, own_pg):
    url, stop_database = own_pg
    served = Served(FakeDiscord)
    port = _free_port()
    env = _env(tmp_path, url, DISCORD_TOKEN="good-token", DISCORD_API_URL=served.fake.api_url,
               TORCHQUIZ_HEALTH_PORT=str(port))
    process = _start(["discord"], env)
    try:
        _probe_then_stop_the_database(process, f"http://127.0.0.1:{port}", stop_database)
        lines = _stopped_with_json_logs(process)
    finally:
        if process.poll() is None:
            process.kill()
        served.close()
    assert any("runtime stopped" in line["message"] for line in lines)


@pytest.mark.postgres
@pytest.mark.parametrize("transport", ["http", "socket"])
def test_slack_process_is_ready_until_its_database_stops(tmp_path, own_pg, transport):
    url, stop_database = own_pg
    served = Served(FakeSlack)
    port = _free_port()
    extra = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_API_URL": served.fake.api_url}
    if transport == "http":
        args = ["slack", "--http", "--port", str(port)]
        extra["SLACK_SIGNING_SECRET"] = SIGNING_SECRET
    else:
        args = ["slack"]
        extra.update(SLACK_APP_TOKEN=APP_TOKEN, TORCHQUIZ_HEALTH_PORT=str(port))
    process = _start(args, _env(tmp_path, url, **extra))
    try:
        _probe_then_stop_the_database(process, f"http://127.0.0.1:{port}", stop_database)
        lines = _stopped_with_json_logs(process)
    finally:
        if process.poll() is None:
            process.kill()
        served.close()
    assert any("runtime stopped" in line["message"] for line in lines)
