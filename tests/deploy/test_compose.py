"""The Compose stack as docker-compose.yml defines it, started on the test engine.

The images are the ones tests/deploy/images.py built through Compose with local base images
(no registry here): the same env file points the *_IMAGE variables at them, and
compose.test.yml adds only what this engine lacks and a bot command that needs no platform
account (the console: it migrates, builds the executor client, then waits on stdin). The
stack runs on Compose's own network, so the bot reaches the replicas by the service name, as
in production; the test itself reads each replica's /healthz and /metrics at its address.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory

from content.loader import load_bank
from db.migrate import alembic_config
from executors.grading.verdict import Status, Verdict
from executors.service.protocol import DEFAULT_PORT, HEALTH_PATH, METRICS_PATH
from tests.deploy.images import (
    COMPOSE_TEST_FILE,
    REPO,
    compose_command,
    docker,
    docker_env,
    write_env_file,
)

pytestmark = [pytest.mark.container, pytest.mark.slow]

TOKEN = "compose-test-token-7d41"
PASSWORD = "compose-test-password-e2"
REPLICAS = 2
RUNS = 4  # round-robin over two replicas: two each
CHALLENGE = "code.one-hot"
# Its wall-clock limit is 20 s: a run that sleeps 16 s is still running 10 s after a prompt
# SIGTERM, when Docker's default stop timeout would have killed the replica.
SLOW_CHALLENGE = "code.sgd-momentum-step"
SLOW_CODE = "import time\ntime.sleep(16)\n\ndef sgd_step(*args):\n    return None\n"
READY_TIMEOUT_S = 420
CONSOLE_READY = "torchquiz console:"
# Runs in the bot container: the bot's own client, configured from the bot's environment.
GRADE = """
import json, os, sys
from executors.service.client import ExecutorClient, parse_urls
client = ExecutorClient(parse_urls(os.environ["TORCHQUIZ_EXECUTOR_URLS"]),
                        os.environ["TORCHQUIZ_EXECUTOR_TOKEN"], read_timeout_s=110)
challenge, code, runs = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
verdicts = [client.run(challenge, code).to_json() for _ in range(runs)]
print(json.dumps({"replicas": [r.key for r in client.replicas], "verdicts": verdicts}))
"""


class Stack:
    """One Compose project on the test engine: its command line and its containers."""

    def __init__(self, project: str, env_file: Path) -> None:
        self.project = project
        self.base = [*compose_command(), "--project-name", project, "--env-file", str(env_file),
                     "-f", str(REPO / "docker-compose.yml"), "-f", str(COMPOSE_TEST_FILE)]

    def __call__(self, *args: str, timeout: float = 300, check: bool = True,
                 ) -> subprocess.CompletedProcess[str]:
        """Run one Compose command against this project."""
        result = subprocess.run([*self.base, *args], env=docker_env(), cwd=REPO, text=True,
                                capture_output=True, timeout=timeout, check=False)
        if check and result.returncode != 0:
            raise AssertionError(f"compose {' '.join(args)} failed ({result.returncode}):\n"
                                 f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        return result

    def popen(self, *args: str) -> subprocess.Popen[str]:
        """Start one Compose command and return at once."""
        return subprocess.Popen([*self.base, *args], env=docker_env(), cwd=REPO, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def containers(self, service: str) -> list[str]:
        """Return the ids of the service's containers, stopped ones included."""
        return self("ps", "-q", service).stdout.split()

    def state(self, container: str) -> dict[str, Any]:
        """Return the container's State as the engine reports it."""
        state: dict[str, Any] = json.loads(
            docker("inspect", "--format", "{{json .State}}", container).stdout)
        return state

    def url(self, container: str) -> str:
        """Return the replica's base URL at its address on the project's network."""
        address = docker("inspect", "--format",
                         "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}",
                         container).stdout.split()[0]
        return f"http://{address}:{DEFAULT_PORT}"

    def logs(self) -> str:
        """Return every service's log, for a failure message."""
        result = self("logs", "--no-color", "--tail", "60", check=False)
        return result.stdout[-6000:] + result.stderr[-2000:]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:  # noqa: S310
            return reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except OSError:
        return 0, b""


def _metric(url: str, name: str) -> float:
    """Return the sum of one metric's samples on a replica."""
    status, body = _get(url + METRICS_PATH)
    assert status == 200, (status, body[:200])
    pattern = re.compile(rf"^{re.escape(name)}(?:{{[^}}]*}})? (\S+)$", re.MULTILINE)
    return sum(float(value) for value in pattern.findall(body.decode()))


def _wait(stack: Stack, what: str, ready: Any, started: float) -> None:
    running = {s: stack.containers(s) for s in ("postgres", "executor", "bot")}
    while not ready():
        for service, containers in running.items():
            for container in containers:
                state = stack.state(container)
                if state["Status"] != "running":
                    pytest.fail(f"{service} {state['Status']} (exit {state['ExitCode']}) while "
                                f"waiting for {what}:\n{stack.logs()}")
        if time.monotonic() - started > READY_TIMEOUT_S:
            pytest.fail(f"no {what} within {READY_TIMEOUT_S} s:\n{stack.logs()}")
        time.sleep(1)


@pytest.fixture(scope="module")
def stack(built: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Start PostgreSQL, two executor replicas and the bot; wait until all are ready."""
    folder = tmp_path_factory.mktemp("compose")
    env_file = write_env_file(folder / "compose.env", {
        **built["compose_env"], "POSTGRES_PASSWORD": PASSWORD,
        "TORCHQUIZ_EXECUTOR_TOKEN": TOKEN})
    stack = Stack(f"torchquiz-test-{os.getpid()}", env_file)
    started = time.monotonic()
    try:
        # --no-build: the images exist, built by Compose from these very files.
        stack("up", "-d", "--no-build", "--scale", f"executor={REPLICAS}", timeout=600)
        replicas = stack.containers("executor")
        assert len(replicas) == REPLICAS
        urls = [stack.url(c) for c in replicas]
        _wait(stack, "ready executor replicas",
              lambda: all(_get(u + HEALTH_PATH)[0] == 200 for u in urls), started)
        [bot] = stack.containers("bot")
        _wait(stack, "a started bot",
              lambda: CONSOLE_READY in docker("logs", bot).stdout, started)
        built["compose_ready_s"] = time.monotonic() - started  # printed in the test summary
        yield stack
    finally:
        stack("down", "--volumes", "--remove-orphans", "--timeout", "5", timeout=300,
              check=False)


def _grade_in_bot(stack: Stack, challenge: str, code: str, runs: int) -> dict[str, Any]:
    result = stack("exec", "-T", "bot", "python3", "-c", GRADE, challenge, json.dumps(code),
                   str(runs), timeout=300)
    answer: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return answer


def test_the_bot_migrated_the_compose_postgres_to_the_head_revision(stack):
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    query = stack("exec", "-T", "postgres", "psql", "-U", "torchquiz", "-d", "torchquiz", "-tAc",
                  "SELECT version_num FROM alembic_version")
    assert query.stdout.split() == [head]


def test_the_bot_grades_an_answer_on_every_executor_replica(stack):
    urls = [stack.url(c) for c in stack.containers("executor")]
    before = [_metric(u, "torchquiz_executor_runs_total") for u in urls]
    solution = load_bank().questions[CHALLENGE].code.solution
    answer = _grade_in_bot(stack, CHALLENGE, solution, RUNS)
    verdicts = [Verdict.from_json(v) for v in answer["verdicts"]]
    assert len(answer["replicas"]) == REPLICAS  # the service name resolved to each replica
    assert all(v.status is Status.PASSED and v.passed_tests == v.total_tests > 0
               for v in verdicts), verdicts
    after = [_metric(u, "torchquiz_executor_runs_total") for u in urls]
    assert [b - a for a, b in zip(before, after, strict=True)] == [RUNS / REPLICAS] * REPLICAS


def test_stopping_the_executors_lets_an_admitted_run_finish_with_its_verdict(stack):
    urls = [stack.url(c) for c in stack.containers("executor")]
    grading = stack.popen("exec", "-T", "bot", "python3", "-c", GRADE, SLOW_CHALLENGE,
                          json.dumps(SLOW_CODE), "1")
    try:
        started = time.monotonic()
        while not any(_metric(u, "torchquiz_executor_runs_in_flight") for u in urls):
            assert grading.poll() is None, grading.communicate()
            assert time.monotonic() - started < 120, "the slow run was never admitted"
            time.sleep(0.2)
        # No --timeout: Compose waits for the service's stop_grace_period.
        stack("stop", "executor", timeout=120)
        out, err = grading.communicate(timeout=120)
    finally:
        if grading.poll() is None:
            grading.kill()
    assert grading.returncode == 0, out + err
    [verdict] = [Verdict.from_json(v) for v in json.loads(out.strip().splitlines()[-1])[
        "verdicts"]]
    # Its own verdict (a wrong answer, or over the time limit on a crowded machine), not a fault.
    assert verdict.status in (Status.FAILED, Status.TIMEOUT) and not verdict.fault, verdict
    # Every replica drained and exited by itself: none was killed when a timeout ran out.
    states = [stack.state(c) for c in stack.containers("executor")]
    assert [(s["Status"], s["ExitCode"], s["OOMKilled"]) for s in states] == [
        ("exited", 0, False)] * REPLICAS
