"""Core fixtures: a small stable bank, the core over a real store, a recording executor."""

from __future__ import annotations

import pytest

from bot.core.kernel.models import Actor, ChannelDefaults, ChannelSettings
from bot.core.quiz import Quiz, build_quiz
from content.loader import Bank, load_bank
from db.store import SqlStore
from tests.fakes import FakeClock
from tests.support.core import BANK, RecordingExecutor


@pytest.fixture(scope="session")
def bank() -> Bank:
    return load_bank(BANK)


@pytest.fixture
def executor() -> RecordingExecutor:
    return RecordingExecutor()


@pytest.fixture
def quiz(store: SqlStore, bank: Bank, clock: FakeClock, executor: RecordingExecutor) -> Quiz:
    return build_quiz(store, bank, clock, executor)


@pytest.fixture
def channel(quiz: Quiz) -> ChannelSettings:
    return quiz.rounds.channel("console", "general", "ws",
                               ChannelDefaults(name="general", timezone="Europe/Berlin"))


@pytest.fixture
def alice(quiz: Quiz) -> Actor:
    return Actor(quiz.rounds.member("console", "alice", "Alice"))


@pytest.fixture
def bob(quiz: Quiz) -> Actor:
    return Actor(quiz.rounds.member("console", "bob", "Bob"))
