"""Speed verdicts through the real timer: the contract, holds, the GPU refusal."""

from __future__ import annotations

import json

import pytest

from content.schema import SpeedItem
from executors.cli.exec_command import main as exec_main
from executors.grading.verdict import Status, Verdict
from executors.speed.grader import SpeedGrader, SpeedRules

pytestmark = pytest.mark.sandbox


def test_exec_prints_a_speed_verdict_with_intervals_per_shape(
        speed_bank_dir, row_norms, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TORCHQUIZ_CONTENT_DIR", str(speed_bank_dir))
    fast = tmp_path / "fast.py"
    fast.write_text(row_norms.speed.solution)
    slow = tmp_path / "slow.py"
    slow.write_text("import torch\n\ndef row_norms(x):\n    return torch.zeros(x.shape[0])\n")
    code = exec_main(["--challenge", row_norms.id, "--json", str(fast), str(slow)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0 and len(lines) == 2
    good, wrong = (json.loads(line) for line in lines)
    assert good["status"] == "passed" and good["speed"]["faster"] is True
    assert [s["shape"] for s in good["speed"]["shapes"]] == ["small", "tall", "drawn"]
    for shape in good["speed"]["shapes"]:
        assert shape["low"] <= shape["speedup"] <= shape["high"] and shape["low"] >= 1.1
    # Whether a shape's speedup passed the cap depends on the machine's moment; the verdict
    # must hold exactly the shapes above it (the memory floor is far below these times).
    above = [s["shape"] for s in good["speed"]["shapes"] if s["speedup"] > good["speed"]["cap"]]
    assert good["speed"]["score"] > 1.1 and good["speed"]["held"] is bool(above)
    assert all(name in good["speed"]["reason"] for name in above)
    assert wrong["status"] == "failed" and "wrong result" in wrong["message"]
    assert "speed" not in wrong
    assert Verdict.from_json(good).speed == good["speed"]


def test_a_speedup_above_the_cap_is_held_with_its_reason(speed_timer, row_norms):
    grader = SpeedGrader(speed_timer, rules=SpeedRules(cap=1.2, cap_over_target=0.1))
    verdict = grader.run(row_norms, row_norms.speed.solution, seed=3)
    assert verdict.speed is not None and verdict.speed["held"] is True
    assert "above the cap" in verdict.speed["reason"]


class _TinyBandwidth:
    """The real timer, with a memory bandwidth no honest call could beat."""

    def __init__(self, timer):
        self._timer = timer
        self.bandwidth = 1e-6  # bytes per nanosecond

    def call(self, request, limits, *, seed):
        return self._timer.call(request, limits, seed=seed)


def test_a_time_below_the_memory_floor_is_held(speed_timer, row_norms):
    verdict = SpeedGrader(_TinyBandwidth(speed_timer)).run(row_norms, row_norms.speed.solution,
                                                           seed=4)
    assert verdict.speed is not None and verdict.speed["held"] is True
    assert "less than moving" in verdict.speed["reason"]


def test_a_gpu_speed_challenge_needs_a_gpu_executor(row_norms):
    raw = row_norms.model_dump(mode="json", by_alias=True)
    raw["speed"]["requires"] = ["cuda"]
    gpu = SpeedItem.model_validate(raw)
    verdict = SpeedGrader(None, cuda_available=False).run(gpu, row_norms.speed.solution)
    assert verdict.status is Status.REJECTED
    assert "needs a GPU executor" in verdict.message
