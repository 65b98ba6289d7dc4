"""Learning: private practice, FSRS-driven review picks, reminders and /explain."""

from bot.core.learning.explain import ExplainService
from bot.core.learning.practice import PracticeService, daily_pick
from bot.core.learning.reminders import ReminderService

__all__ = [
    "ExplainService",
    "PracticeService",
    "ReminderService",
    "daily_pick",
]
