"""`torchquiz slack` as a process: credentials, HTTP and Socket Mode, a clean SIGTERM."""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.adapters.processes import (
    ThreadedFake,
    process_env,
    stop_within_ten_seconds,
    wait_until,
)
from tests.fake_slack import (
    APP_TOKEN,
    BOT_TOKEN,
    GENERAL,
    REJECTED_APP_TOKEN,
    REJECTED_TOKEN,
    SIGNING_SECRET,
    FakeSlack,
)
from tests.fake_slack_requests import Sender

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def slack() -> Iterator[ThreadedFake[FakeSlack]]:
    served = ThreadedFake(FakeSlack)
    yield served
    served.close()


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return process_env(tmp_path, "slack", **extra)


def _torchquiz(*args: str) -> list[str]:
    return [sys.executable, "-m", "bot.cli", "slack", *args]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _run(args, env):
    return subprocess.run(_torchquiz(*args), env=env, cwd=REPO, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize(("args", "extra", "line"), [
    ((), {}, "torchquiz slack: set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-...) "
             "of your Slack app"),
    (("--http",), {"SLACK_BOT_TOKEN": "xoxb-x"},
     "torchquiz slack: set SLACK_SIGNING_SECRET to the Signing Secret of your Slack app"),
    ((), {"SLACK_BOT_TOKEN": "xoxb-x"},
     "torchquiz slack: set SLACK_APP_TOKEN (xapp-..., Socket Mode) or run with --http "
     "(Slack then needs a public URL for /slack/events)"),
    ((), {"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "s", "SLACK_APP_TOKEN": "xapp-x"},
     "torchquiz slack: installing in many workspaces (SLACK_CLIENT_ID) needs --http"),
])
def test_missing_credentials_are_one_line_and_exit_2(tmp_path, args, extra, line):
    done = _run(args, _env(tmp_path, TORCHQUIZ_LOG_LEVEL="WARNING", **extra))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [line]


@pytest.mark.parametrize(("extra", "line"), [
    ({"SLACK_BOT_TOKEN": REJECTED_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN},
     "torchquiz slack: Slack rejected SLACK_BOT_TOKEN (invalid_auth)"),
    ({"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": REJECTED_APP_TOKEN},
     "torchquiz slack: Slack rejected SLACK_APP_TOKEN (invalid_auth)"),
])
def test_rejected_credentials_are_one_line_and_exit_2(tmp_path, slack, extra, line):
    env = _env(tmp_path, SLACK_API_URL=slack.fake.api_url, TORCHQUIZ_LOG_LEVEL="WARNING",
               TORCHQUIZ_EXECUTOR="none", **extra)
    done = _run((), env)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines() == [line]


def test_over_http_it_answers_a_signed_command_and_sigterm_stops_it_cleanly(tmp_path, slack):
    port = _free_port()
    env = _env(tmp_path, SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SIGNING_SECRET,
               SLACK_API_URL=slack.fake.api_url)
    process = subprocess.Popen(_torchquiz("--http", "--port", str(port)), env=env, cwd=REPO,
                               text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                return r.status == 200
        except OSError:
            return False

    try:
        wait_until(process, healthy, "served /healthz")

        async def ask():
            sender = Sender(slack.fake, f"http://127.0.0.1:{port}/slack/events")
            try:
                asked = await sender.command("/explain", "detach", channel=GENERAL)
                reply = await slack.fake.wait_for(lambda s: s.kind == "response")
                return asked, reply
            finally:
                await sender.close()

        asked, reply = slack.run(ask())
        assert asked.status == 200 and "detach" in reply.shown_text.lower()
        stop_within_ten_seconds(process, "slack runtime stopped")
    finally:
        if process.poll() is None:
            process.kill()


def test_in_socket_mode_it_connects_and_sigterm_stops_it_cleanly(tmp_path, slack):
    env = _env(tmp_path, SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_APP_TOKEN=APP_TOKEN,
               SLACK_API_URL=slack.fake.api_url)
    process = subprocess.Popen(_torchquiz(), env=env, cwd=REPO, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_until(process, lambda: slack.fake.hellos > 0, "opened a Socket Mode connection")
        opens = slack.fake.calls_of("apps.connections.open")
        assert len(opens) == 1  # the token check's URL was the one used
        stop_within_ten_seconds(process, "slack runtime stopped")
    finally:
        if process.poll() is None:
            process.kill()
