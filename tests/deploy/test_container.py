"""The images, built and run on a real container engine: grading over HTTP inside the container.

The executor runs with the flags docker-compose.yml gives it (and docs/executor-service.md
explains), never privileged. The engine has no bridge network, so the container shares the
host's network and binds 127.0.0.1 on a free port; the sandbox still unshares its own.
"""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from content.loader import load_bank
from executors.grading.verdict import Status
from executors.service.client import ExecutorClient
from tests.deploy.images import BOT_TAG, EXECUTOR_TAG, REPO, docker

pytestmark = [pytest.mark.container, pytest.mark.slow]

TOKEN = "container-test-token-1c9e"
CHALLENGE = "code.one-hot"
FORK_BOMB = ("import os\ndef one_hot(labels, num_classes):\n    while True:\n        try:\n"
             "            os.fork()\n        except OSError:\n            pass\n")
SNOOP = ("import os, socket\ndef one_hot(labels, num_classes):\n"
         "    found = [os.path.exists(p) for p in ('/etc/shadow', '/proc/1/environ')]\n"
         "    socket.create_connection(('127.0.0.1', 22), timeout=1)\n    return found\n")
READY_TIMEOUT_S = 300


def documented_flags() -> list[str]:
    """Return the `docker run` flags docker-compose.yml gives the executor service."""
    service = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]["executor"]
    flags = [f"--cap-add={cap}" for cap in service.get("cap_add", [])]
    for option in service.get("security_opt", []):
        key, _, value = option.partition("=")
        if key == "seccomp":
            value = str((REPO / value).resolve())  # the CLI reads the profile from this path
        flags.append(f"--security-opt={key}={value}")
    assert "--privileged" not in flags and not service.get("privileged")
    return flags


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _health(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=5) as reply:  # noqa: S310
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")
    except OSError:
        return 0, {}


@pytest.fixture(scope="module")
def executor_container(built: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Start the executor image as documented and wait until /healthz says ready."""
    name = f"torchquiz-executor-test-{os.getpid()}"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    # The image's own command line, on a free port of the host's loopback: the port comes in
    # the way the HEALTHCHECK reads it too.
    docker("run", "-d", "--name", name, "--network", "host", *documented_flags(),
           "-e", f"TORCHQUIZ_EXECUTOR_TOKEN={TOKEN}", "-e", f"TORCHQUIZ_EXECUTOR_PORT={port}",
           EXECUTOR_TAG, "--host", "127.0.0.1", "--user", "torchquiz")
    try:
        while _health(url)[0] != 200:
            state = docker("inspect", "--format", "{{.State.Status}}", name).stdout.strip()
            if state != "running" or time.monotonic() - started > READY_TIMEOUT_S:
                logs = docker("logs", name, check=False)
                pytest.fail(f"the executor container never got ready ({state}):\n"
                            f"{logs.stdout[-3000:]}{logs.stderr[-3000:]}")
            time.sleep(0.5)
        built["ready_s"] = time.monotonic() - started  # printed in the test summary
        yield {"name": name, "url": url}
    finally:
        docker("rm", "-f", name, check=False)


def test_the_executor_container_grades_a_reference_and_hostile_code_over_http(
        executor_container):
    client = ExecutorClient([executor_container["url"]], TOKEN)
    solution = load_bank().questions[CHALLENGE].code.solution
    passed = client.run(CHALLENGE, solution)
    bomb = client.run(CHALLENGE, FORK_BOMB)
    snoop = client.run(CHALLENGE, SNOOP)
    assert passed.status is Status.PASSED and passed.passed_tests == passed.total_tests > 0
    assert bomb.status is Status.TIMEOUT and not bomb.fault
    assert snoop.status is Status.ERROR and not snoop.fault
    assert "Error" in snoop.message  # no network at all inside the sandbox
    # Still healthy after the hostile runs, and the replica says what ran.
    status, report = _health(executor_container["url"])
    assert status == 200 and report["status"] == "ready"


def test_the_doctor_inside_the_container_reports_every_layer_on(executor_container):
    doctor = docker("exec", executor_container["name"], "torchquiz", "exec", "--doctor",
                    check=False)
    rows = [line.split(None, 2) for line in doctor.stdout.splitlines() if line.strip()]
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert len(rows) >= 15 and all(row[1] == "ON" for row in rows), doctor.stdout
    details = {row[0]: row[2] for row in rows}
    # The real cgroup limits, not the rlimit fallbacks: the entrypoint made them writable.
    assert details["memory_limit"].startswith("cgroup")
    assert details["pids_limit"].startswith("cgroup")


def test_the_http_server_in_the_container_gave_up_root(executor_container):
    pid = docker("inspect", "--format", "{{.State.Pid}}", executor_container["name"]).stdout
    uids = next(line for line in Path(f"/proc/{pid.strip()}/status").read_text().splitlines()
                if line.startswith("Uid:")).split()[1:]
    assert uids == ["10001"] * 4


def test_the_image_healthcheck_reports_the_replica_healthy(executor_container):
    deadline = time.monotonic() + 120
    while True:
        health = docker("inspect", "--format", "{{json .State.Health}}",
                        executor_container["name"]).stdout
        state = json.loads(health)
        if state["Status"] == "healthy":
            break
        assert time.monotonic() < deadline, state
        time.sleep(1)


def test_the_bot_image_runs_unprivileged_without_torch(built):
    probe = docker("run", "--rm", "--network", "none", "--entrypoint", "python3", BOT_TAG,
                   "-c", "import importlib.util, os, bot.remote_executor, bot.cli;"
                   "print(importlib.util.find_spec('torch') is None, os.getuid())")
    assert probe.stdout.split() == ["True", "10001"]
    validate = docker("run", "--rm", "--network", "none", BOT_TAG, "content", "validate",
                      "--no-fixtures")
    assert validate.stdout.splitlines()[-1].startswith("ok: ")
