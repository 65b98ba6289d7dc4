"""Choosing the remote backend from settings, and what it says it supports."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from bot.bootstrap import build_executor
from bot.core.kernel.errors import GradingUnavailable
from bot.remote_executor import RemoteExecutor
from bot.settings import Settings
from content.loader import Bank
from executors.service.client import ExecutorClient
from tests.executors.builders import code_item
from tests.executors.http_service import InProcessService

SPEC = {"entrypoint": "f", "signature": "def f()", "starter": "def f():\n    ...\n",
        "solution": "def f():\n    return 1\n",
        "tests": {"generator": "def cases(g):\n    return [{'args': []}]\n"}}
CPU = code_item(SPEC, "code.cpu")
GPU = code_item({**SPEC, "requires": ["cuda"]}, "code.gpu")
BANK = Bank(questions={CPU.id: CPU, GPU.id: GPU})


def test_urls_select_the_remote_backend_without_starting_a_sandbox():
    settings = Settings(executor_urls="http://127.0.0.1:9", executor_token=SecretStr("t"))
    executor, problem, close = build_executor(settings, BANK)
    close()
    assert isinstance(executor, RemoteExecutor) and problem == ""


@pytest.mark.parametrize(("urls", "token", "fragment"), [
    ("http://127.0.0.1:9", None, "TORCHQUIZ_EXECUTOR_TOKEN"),
    ("ftp://nowhere", SecretStr("t"), "not an http"),
])
def test_a_bad_remote_configuration_says_why_code_cannot_be_graded(urls, token, fragment):
    executor, problem, _ = build_executor(Settings(executor_urls=urls, executor_token=token), BANK)
    assert executor is None and fragment in problem


def test_no_reachable_replica_is_grading_unavailable_for_the_core():
    executor = RemoteExecutor(ExecutorClient(["http://127.0.0.1:9"], "t", patience_s=0), BANK)
    with pytest.raises(GradingUnavailable):
        executor.run(CPU.id, "def f():\n    return 1\n")
    # Nobody answered, so nobody said "no GPU": a CUDA question stays on, its answers wait.
    assert executor.supports(GPU.id) == (True, "")


def test_a_cuda_challenge_is_unsupported_when_the_ready_replicas_have_no_gpu():
    with InProcessService(object()) as service:  # ready, never asked to run anything
        executor = RemoteExecutor(ExecutorClient([service.url], service.token), BANK)
        gpu, cpu = executor.supports(GPU.id), executor.supports(CPU.id)
    assert gpu[0] is False and "CUDA" in gpu[1]
    assert cpu == (True, "")
    assert executor.supports("code.missing")[0] is False
