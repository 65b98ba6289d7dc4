"""Rounds: the daily post, answers to it, pending code answers and the reveal."""

from bot.core.rounds.service import POST_LEASE, QuizService

__all__ = [
    "POST_LEASE",
    "QuizService",
]
