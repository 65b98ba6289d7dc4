"""The core as one object for adapters: rounds, practice, explain, boards and setup."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from bot.core.board import BoardService
from bot.core.channel_setup import SetupService
from bot.core.explain import ExplainService
from bot.core.models import ChannelSettings
from bot.core.ports import ChartRenderer, Clock, Executor, QuizStore
from bot.core.practice import PracticeService
from bot.core.reviews import ReviewScheduler
from bot.core.service import POST_LEASE, QuizService
from content.loader import Bank


@dataclass(frozen=True)
class Quiz:
    """Every core service an adapter may call, built over the same store, bank and clock."""

    rounds: QuizService
    practice: PracticeService
    explain: ExplainService
    board: BoardService
    setup: SetupService


def build_quiz(
    store: QuizStore,
    bank: Bank,
    clock: Clock,
    executor: Executor | None = None,
    on_settings_changed: Callable[[ChannelSettings], None] | None = None,
    charts: ChartRenderer | None = None,
    post_lease: dt.timedelta = POST_LEASE,
) -> Quiz:
    """Assemble the core from its ports (called by the composition root and by tests)."""
    topics = {topic for q in bank.questions.values() for topic in q.topics}
    reviews = ReviewScheduler()  # one FSRS scheduler for daily answers and practice alike
    return Quiz(
        rounds=QuizService(store, bank, clock, executor, reviews=reviews, post_lease=post_lease),
        practice=PracticeService(store, bank, clock, executor, reviews),
        explain=ExplainService(bank.cards),
        board=BoardService(store, bank, clock, charts),
        setup=SetupService(store, topics, on_settings_changed),
    )
