"""LocalExecutor end to end through the real sandbox: bank challenges, fixtures, limits, load."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from content.loader import Bank, load_bank
from content.schema import CodeItem
from executors.engine import LocalExecutor
from executors.grading.challenges import UnknownChallenge
from executors.grading.verdict import Status, Verdict
from executors.isolation.limits import Limits
from executors.zygote.reports import RawRun
from executors.zygote.supervisor import Zygote
from tests.executors.builders import code_item
from tests.sandbox import real_zygote

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"

def _bank_items() -> list[CodeItem]:
    """Return the challenges this CPU machine grades (CUDA ones: scripts/gpu_check.sh)."""
    return [item for item in load_bank().code_items() if "cuda" not in item.code.requires]


def _cuda_items() -> list[CodeItem]:
    return [item for item in load_bank().code_items() if "cuda" in item.code.requires]


def _fixture_params() -> list[Any]:
    params = []
    for item in _bank_items():
        for path in sorted((FIXTURES / item.id).glob("*.py")):
            params.append(pytest.param(item.id, path, id=f"{item.id}/{path.name}"))
    return params


def tiny_item(item_id: str = "code.limits-probe", **code: Any) -> CodeItem:
    spec = {
        "entrypoint": "f",
        "signature": "def f(x)",
        "starter": "def f(x):\n    ...\n",
        "solution": "def f(x):\n    return x + 1\n",
        "tests": {
            "seed": 0,
            "generator": "import torch\ndef cases(g):\n"
            "    return [{'args': [torch.randn(3, generator=g)]} for _ in range(3)]\n",
        },
        "timeout_s": 1.5,
        "memory_mb": 256,
        **code,
    }
    return code_item(spec, item_id)


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    with real_zygote(max_parallel=2) as z:
        yield z


@pytest.fixture(scope="module")
def executor(zygote: Zygote) -> LocalExecutor:
    # Not closed here: closing would stop the shared zygote, which the fixture above owns.
    return LocalExecutor(load_bank(), zygote)


@pytest.fixture(scope="module")
def probe(zygote: Zygote) -> LocalExecutor:
    return LocalExecutor(Bank(questions={"code.limits-probe": tiny_item()}), zygote)


def run_probe(probe: LocalExecutor, body: str) -> Verdict:
    return probe.run("code.limits-probe", "import torch\n\ndef f(x):\n" + body)


@pytest.mark.sandbox
@pytest.mark.parametrize("item", _bank_items(), ids=lambda item: item.id)
def test_reference_solution_passes(executor, item):
    verdict = executor.run(item.id, item.code.solution)
    assert verdict.status is Status.PASSED, verdict.message
    assert verdict.passed_tests == verdict.total_tests > 0


@pytest.mark.sandbox
@pytest.mark.parametrize("item", _bank_items(), ids=lambda item: item.id)
def test_starter_does_not_pass(executor, item):
    verdict = executor.run(item.id, item.code.starter)
    assert verdict.status in (Status.FAILED, Status.ERROR), verdict
    assert verdict.message


@pytest.mark.sandbox
@pytest.mark.parametrize(("challenge_id", "path"), _fixture_params())
def test_fixture_submission_gets_its_expected_verdict(executor, challenge_id, path):
    code = path.read_bytes()
    verdict = executor.run(challenge_id, code)
    if path.name.startswith("correct_"):
        assert verdict.status is Status.PASSED, verdict.message
        return
    first = code.decode().splitlines()[0]
    assert first.startswith("# expect: "), f"{path} needs a '# expect: STATUS TEXT' first line"
    status, _, fragment = first.removeprefix("# expect: ").partition(" ")
    assert verdict.status == status, verdict.message
    assert fragment.strip() in verdict.message


@pytest.mark.sandbox
@pytest.mark.parametrize(
    ("code", "fragment"),
    [
        pytest.param(b"def f(x):\n    return x + 1\x00\n", "NUL byte", id="nul"),
        pytest.param(b"def f(x):\n    return x\n#" + b"a" * 17000, "the limit is 16 KiB", id="big"),
        pytest.param(b"def f(x):\n    return x  # \xff\xfe\n", "not valid UTF-8", id="utf8"),
        pytest.param("def f(x):\n    return x  # \udc80\n", "not valid UTF-8", id="surrogate"),
        pytest.param(b"   \n", "empty", id="empty"),
    ],
)
def test_bad_input_is_rejected_before_it_runs(probe, code, fragment):
    verdict = probe.run("code.limits-probe", code)
    assert verdict.status is Status.REJECTED
    assert fragment in verdict.message
    assert verdict.duration_ms < 1000


@pytest.mark.sandbox
@pytest.mark.parametrize(
    ("body", "status", "fragment"),
    [
        ("    while True:\n        pass\n", Status.TIMEOUT, "time limit exceeded"),
        (
            "    big = torch.ones(2**31, dtype=torch.uint8)\n    return x + big[0]\n",
            Status.MEMORY_LIMIT,
            "memory",
        ),
        ("    while True:\n        print('x' * 4096)\n", Status.OUTPUT_LIMIT, "printed more"),
        (
            "    import ctypes\n    ctypes.string_at(0)\n",
            Status.ERROR,
            "crashed (signal SIGSEGV) during test 1 of 3",
        ),
        ("    import os\n    os._exit(3)\n", Status.ERROR, "exited with status 3 during test 1"),
        ("    return x +\n", Status.ERROR, "could not be loaded: SyntaxError"),
        ("    return x[5]\n", Status.ERROR, "test 1 of 3: IndexError"),
    ],
    ids=["timeout", "memory", "output", "segfault", "exit", "syntax", "raises"],
)
def test_limits_and_crashes_map_to_their_status(probe, body, status, fragment):
    verdict = run_probe(probe, body)
    assert verdict.status is status, verdict
    assert fragment in verdict.message


@pytest.mark.sandbox
def test_prints_come_back_to_the_user(probe):
    verdict = run_probe(probe, "    print('checking', x.shape)\n    return x + 1\n")
    assert verdict.status is Status.PASSED
    assert "checking torch.Size([3])" in verdict.stdout


@pytest.mark.sandbox
def test_output_flood_is_truncated_for_the_user(probe):
    verdict = run_probe(probe, "    while True:\n        print('x' * 4096)\n")
    assert verdict.stdout.endswith("… (truncated)")
    assert len(verdict.stdout) < 2000


@pytest.mark.sandbox
def test_two_hundred_concurrent_submissions_all_get_verdicts(probe):
    bodies = ["    return x + 1\n", "    return x - 1\n", "    return x[:2] + 1\n"]
    expected = [Status.PASSED, Status.FAILED, Status.FAILED]
    jobs = [i % 3 for i in range(200)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        verdicts = list(pool.map(lambda j: run_probe(probe, bodies[j]), jobs))
    assert [v.status for v in verdicts] == [expected[j] for j in jobs]


class RecordingRunner:
    """A sandbox stand-in that records what it was asked to run and returns a clean exit."""

    def __init__(self) -> None:
        self.requests: list[tuple[bytes, Limits]] = []
        self.closed = 0

    def run(self, request: bytes, limits: Limits) -> RawRun:
        self.requests.append((request, limits))
        return RawRun(0, None, False, False, False, b"", False, b"", b"", False, False, 1.0)

    def close(self) -> None:
        self.closed += 1


@pytest.mark.sandbox
@pytest.mark.parametrize("item", _cuda_items(), ids=lambda item: item.id)
def test_bank_cuda_challenge_is_rejected_here_with_a_clear_reason(executor, item):
    verdict = executor.run(item.id, item.code.solution)
    assert verdict.status is Status.REJECTED and "needs a CUDA GPU" in verdict.message


def test_cuda_challenge_is_rejected_on_a_cpu_machine_without_running():
    runner = RecordingRunner()
    bank = Bank(questions={"code.gpu-only": tiny_item("code.gpu-only", requires=["cuda"])})
    executor = LocalExecutor(bank, runner, cuda_available=False)
    verdict = executor.run("code.gpu-only", "def f(x):\n    return x + 1\n")
    assert verdict.status is Status.REJECTED
    assert "needs a CUDA GPU" in verdict.message
    assert executor.supports("code.gpu-only")[0] is False
    assert executor.available_challenges() == []
    assert runner.requests == []


def test_challenge_limits_reach_the_sandbox():
    runner = RecordingRunner()
    bank = Bank(questions={"code.limits-probe": tiny_item(timeout_s=2.5, memory_mb=768)})
    LocalExecutor(bank, runner).run("code.limits-probe", "def f(x):\n    return x\n")
    (_, limits), = runner.requests
    assert (limits.wall_s, limits.cpu_s, limits.memory_bytes) == (2.5, 3, 768 * 1024 * 1024)


def test_empty_result_stream_is_an_error_verdict():
    bank = Bank(questions={"code.limits-probe": tiny_item()})
    verdict = LocalExecutor(bank, RecordingRunner()).run("code.limits-probe", "x = 1\n")
    assert verdict.status is Status.ERROR
    assert verdict.message == "your code exited early before it was loaded"


def test_unknown_challenge_raises_for_the_caller():
    executor = LocalExecutor(Bank(), RecordingRunner())
    with pytest.raises(UnknownChallenge):
        executor.run("code.nope", "def f(x):\n    return x\n")


def test_closing_closes_the_sandbox_once_and_stops_runs():
    runner = RecordingRunner()
    executor = LocalExecutor(Bank(questions={"code.limits-probe": tiny_item()}), runner)
    with executor:
        pass
    executor.close()
    assert runner.closed == 1
    with pytest.raises(RuntimeError, match="closed"):
        executor.run("code.limits-probe", "def f(x):\n    return x\n")


@pytest.mark.sandbox
def test_fork_bomb_is_an_error_that_blames_the_code(executor: LocalExecutor) -> None:
    code = "import os\ndef masked_mean(x, mask):\n    while True:\n        os.fork()\n"
    verdict = executor.run("code.masked-mean", code)
    # Dozens of forked copies each run the remaining tests: on a busy machine that can outlast
    # the deadline. Or the pids limit stops the first fork before any copy writes, and the
    # member sees the exception their own line raised. Either way the verdict blames the
    # code, never the sandbox.
    assert verdict.status in (Status.ERROR, Status.TIMEOUT) and not verdict.fault
    message = verdict.message.removeprefix("time limit exceeded: ")
    assert message.startswith("your code") or re.match(
        r"test 1 of \d+: BlockingIOError: .* \(line 4\)$", message), message
