"""A GPU child makes its CUDA context while it waits, so a GPU verdict does not pay for it.

The CUDA calls themselves need a GPU machine (scripts/gpu_check.sh measures them there); on
this CPU machine the tests pin the order of the preparation, that it happens in the waiting
child before any request, and that a failure still ends in one clear record per run.
"""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from content.loader import Bank
from executors.engine import LocalExecutor
from executors.grading import wire
from executors.isolation.limits import Limits
from executors.zygote import harness
from executors.zygote.supervisor import Zygote
from tests.executors.test_local_executor import RecordingRunner, tiny_item
from tests.support.executors import SMALL_LIMITS, decode_records


class FakeCuda:
    """Stands for torch.cuda and records what the child asked of it, in order."""

    def __init__(self, *, available: bool = True, fail_at: str | None = None) -> None:
        self.available = available
        self.fail_at = fail_at
        self.calls: list[tuple[str, Any]] = []

    def _call(self, name: str, arg: Any = None) -> None:
        self.calls.append((name, arg))
        if name == self.fail_at:
            raise RuntimeError(f"{name} failed: no CUDA-capable device is detected")

    def is_available(self) -> bool:
        return self.available

    def init(self) -> None:
        self._call("init")

    def set_per_process_memory_fraction(self, fraction: float) -> None:
        self._call("fraction", fraction)

    def current_blas_handle(self) -> int:
        self._call("blas")
        return 1

    def synchronize(self) -> None:
        self._call("synchronize")


@pytest.fixture(autouse=True)
def fresh_child_state(monkeypatch):
    monkeypatch.setattr(harness, "_prepared_device", None)
    monkeypatch.setattr(harness, "_device_error", None)


def test_a_gpu_child_makes_its_context_under_its_memory_fraction_before_cublas():
    cuda = FakeCuda()
    harness.prepare_device("cuda", 0.25, cuda)
    assert cuda.calls == [("init", None), ("fraction", 0.25), ("blas", None),
                          ("synchronize", None)]
    harness.prepare_device("cuda", 0.25, cuda)
    assert len(cuda.calls) == 4  # prepared once; the run finds it done


def test_a_cpu_child_never_touches_cuda():
    cuda = FakeCuda()
    harness.prepare_device("cpu", 0.25, cuda)
    harness.setup_device("cpu", 0.25)
    assert cuda.calls == []


def test_a_failed_preparation_is_kept_and_reported_by_the_run_not_raised_while_waiting():
    cuda = FakeCuda(fail_at="blas")
    harness.prepare_device("cuda", 0.5, cuda)  # must not raise: the child still gets ready
    with pytest.raises(RuntimeError, match="no CUDA-capable device"):
        harness.setup_device("cuda", 0.5)


def test_no_gpu_at_all_says_cuda_is_unavailable():
    harness.prepare_device("cuda", 0.25, FakeCuda(available=False))
    with pytest.raises(RuntimeError, match="CUDA is unavailable on this executor"):
        harness.setup_device("cuda", 0.25)


class WarmingRunner(RecordingRunner):
    def __init__(self) -> None:
        super().__init__()
        self.warmed: list[tuple[Limits, str]] = []

    def warm(self, limits: Limits, device: str) -> None:
        self.warmed.append((limits, device))


def test_a_gpu_executor_asks_for_a_warm_child_with_its_gpu_challenges_budget():
    runner = WarmingRunner()
    bank = Bank(questions={
        "code.gpu-a": tiny_item("code.gpu-a", requires=["cuda"], timeout_s=4.0, memory_mb=1024),
        "code.gpu-b": tiny_item("code.gpu-b", requires=["cuda"], timeout_s=4.0, memory_mb=1024),
        "code.gpu-c": tiny_item("code.gpu-c", requires=["cuda"], timeout_s=9.0, memory_mb=512),
        "code.cpu": tiny_item("code.cpu", timeout_s=1.0, memory_mb=256),
    })
    LocalExecutor(bank, runner, cuda_available=True)
    (limits, device), = runner.warmed
    assert device == "cuda"
    assert (limits.wall_s, limits.cpu_s, limits.memory_bytes) == (4.0, 4, 1024 * 1024 * 1024)


def test_a_cpu_executor_asks_for_no_gpu_child():
    runner = WarmingRunner()
    bank = Bank(questions={"code.gpu-a": tiny_item("code.gpu-a", requires=["cuda"])})
    LocalExecutor(bank, runner, cuda_available=False)
    assert runner.warmed == []


def _template_children(zygote: Zygote) -> list[int]:
    template = zygote.hello["template_pid"]
    with open(f"/proc/{template}/task/{template}/children") as f:
        return [int(pid) for pid in f.read().split()]


def _cuda_request() -> bytes:
    return wire.encode({"code": "def f(x):\n    return x\n", "entrypoint": "f",
                        "device": "cuda", "cases": [{"args": [1], "kwargs": {}, "grad": None,
                                                     "check_inputs": False}]})


@pytest.mark.sandbox
def test_a_warm_gpu_child_waits_before_any_request_and_answers_clearly_without_a_gpu():
    if os.geteuid() != 0:
        pytest.fail("the sandbox tests run as root (CI does)")
    with Zygote(SMALL_LIMITS, max_parallel=1) as zygote:
        # The layer probe ran one CPU run at start: its profile's child waits already.
        # (A child of that probe may still be exiting: compare pids, not counts.)
        before = set(_template_children(zygote))
        zygote.warm(SMALL_LIMITS, "cuda")
        deadline = time.monotonic() + 60
        while not set(_template_children(zygote)) - before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert set(_template_children(zygote)) - before, "no GPU child forked after warm()"
        time.sleep(0.5)  # the request comes at least this long after the GPU child was forked
        raw = zygote.run(_cuda_request(), SMALL_LIMITS)
        records = decode_records(raw.result)
        assert records is not None and len(records) == 1 and records[0]["loaded"] is False
        assert records[0]["error"]["message"] == "CUDA is unavailable on this executor"
        # It ran in the child that was waiting, forked at least 500 ms before the request (a
        # child forked on request is asked for a fraction of a millisecond before it). From the
        # zygote's times: set-up (ready - forked) minus the run's wait (ready - started).
        waited = zygote.timelines_recent[-1]["waited_for_setup"]
        forked_before_the_request = zygote.setup_ms_recent[-1] - waited
        assert waited == 0.0 or forked_before_the_request >= 499, (
            waited, forked_before_the_request)
        # The CPU side is untouched: a CPU run right after still works.
        cpu = wire.encode({"code": "def f(x):\n    return x + 1\n", "entrypoint": "f",
                           "device": "cpu", "cases": [{"args": [1], "kwargs": {}, "grad": None,
                                                       "check_inputs": False}]})
        records = decode_records(zygote.run(cpu, SMALL_LIMITS).result)
        assert records is not None and records[0] == {"loaded": True}
        assert records[1]["ok"] is True
