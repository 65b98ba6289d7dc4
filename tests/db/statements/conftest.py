"""Fixtures of the statement-count tests: the core over the real store, at a fixed hour."""

from __future__ import annotations

import pytest

from bot.core.quiz import Quiz, build_quiz
from content.loader import Bank, load_bank
from db.store import SqlStore
from tests.db.statements.counting import NOW
from tests.fakes import FakeClock
from tests.support.core import BANK, RecordingExecutor


@pytest.fixture(scope="session")
def bank() -> Bank:
    return load_bank(BANK)


@pytest.fixture
def quiz(store: SqlStore, bank: Bank, clock: FakeClock) -> Quiz:
    clock.set(NOW)
    return build_quiz(store, bank, clock, RecordingExecutor())
