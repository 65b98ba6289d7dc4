"""The core over a bank with the test speed challenge, timed by a real SpeedTimer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core.quiz import Quiz, build_quiz
from content.loader import Bank, load_bank
from db.store import SqlStore
from executors.speed.executor import LocalSpeedExecutor
from executors.speed.supervisor import SpeedTimer
from tests.fakes import FakeClock
from tests.support.core import RecordingExecutor
from tests.support.speed import running_timer, speed_bank


@pytest.fixture(scope="session")
def speed_timer() -> Iterator[SpeedTimer]:
    with running_timer() as timer:
        yield timer


@pytest.fixture(scope="session")
def sbank(tmp_path_factory: pytest.TempPathFactory) -> Bank:
    return load_bank(speed_bank(Path(tmp_path_factory.mktemp("speed"))))


@pytest.fixture
def timed(sbank: Bank, speed_timer: SpeedTimer) -> LocalSpeedExecutor:
    return LocalSpeedExecutor(sbank, timer=speed_timer)


@pytest.fixture
def squiz(store: SqlStore, sbank: Bank, clock: FakeClock, timed: LocalSpeedExecutor) -> Quiz:
    return build_quiz(store, sbank, clock, RecordingExecutor(), speed_executor=timed)
