"""A real speed timer (sandboxed children, cgroup clock) and the test speed challenge."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from content.loader import load_bank
from content.schema import SpeedItem
from executors.speed.supervisor import SpeedTimer
from tests.support.speed import running_timer

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "speed"


@pytest.fixture(scope="session")
def speed_bank_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("speed-bank")
    (root / "questions").mkdir()
    shutil.copy(FIXTURES / "questions.yaml", root / "questions" / "speed-test.yaml")
    return root


@pytest.fixture(scope="session")
def row_norms(speed_bank_dir: Path) -> SpeedItem:
    return load_bank(speed_bank_dir).speed["speed.test-row-norms"]


@pytest.fixture(scope="session")
def speed_timer() -> Iterator[SpeedTimer]:
    with running_timer() as timer:
        yield timer
