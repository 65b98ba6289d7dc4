"""Speed challenges for the chat and core tests: a bank with the test challenge, a real timer.

The bank is the core tests' bank plus tests/fixtures/speed/chat.yaml (row norms, three
shapes, a reference slow by a stable factor); verdicts are timed by the real SpeedTimer
(sandboxed children, the cgroup clock), so a test keeps its verdicts few: each takes seconds.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from executors.speed.supervisor import SpeedTimer
from tests.support.core import BANK

SPEED_YAML = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "chat.yaml"
ROW_NORMS = "speed.test-row-norms"
# Faster than the reference (float32 throughout, once): 5-13x here, every interval's lower
# bound 2.3x or more, far from both the 1.1x bar and the item's cap of 200x (a held verdict is
# not ranked).
FASTER = "import torch\n\ndef row_norms(x):\n    return x.pow(2).sum(dim=1).sqrt()\n"
# Wrong: a sum, not a norm (found at the first call; cheap to time).
WRONG = "import torch\n\ndef row_norms(x):\n    return x.sum(dim=1)\n"


def speed_bank(root: Path) -> Path:
    """Copy the core tests' bank under ``root`` with the test speed challenge; return it."""
    target = root / "speed-bank"
    shutil.copytree(BANK, target)
    shutil.copy(SPEED_YAML, target / "questions" / "speed-test.yaml")
    return target


@contextmanager
def running_timer() -> Iterator[SpeedTimer]:
    """Start a real speed timer (the sandbox needs root, as CI runs the suite)."""
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("CI must run the speed tests, as root")
        pytest.skip("the speed tests need root (CI runs as root)")
    timer = SpeedTimer()
    try:
        timer.start()
        yield timer
    finally:
        timer.close()
