"""The web page's fixtures: the core over the test database, links to the quiz.test page."""

from __future__ import annotations

import pytest

from bot.core.kernel.models import ChannelDefaults, ChannelSettings
from bot.core.quiz import Quiz, build_quiz
from content.loader import load_bank
from tests.adapters.web.support import BASE
from tests.support.core import BANK, RecordingExecutor


@pytest.fixture
def quiz(store, clock) -> Quiz:
    return build_quiz(store, load_bank(BANK), clock, RecordingExecutor(), web_url=BASE)


@pytest.fixture
def channel(quiz: Quiz) -> ChannelSettings:
    return quiz.rounds.channel("slack", "C1", "W1", ChannelDefaults(name="general"))
