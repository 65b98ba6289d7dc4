"""Errors the core raises; a UserError's message is safe to show in chat."""

from __future__ import annotations


class QuizError(Exception):
    """Base of the core's own errors."""


class NotFound(QuizError):
    """Raise when an id given by an adapter does not exist (a programming or data error)."""


class UserError(QuizError):
    """Raise for input a member got wrong; the message is shown to them as it is."""


class GradingUnavailable(QuizError):
    """Raise when no executor can grade code right now; the answer waits, it is never lost."""


class PlatformRefused(QuizError):
    """Raise from a Publisher when the platform answered with a refusal after its own retries.

    A burst of rate limits or a platform error is weather, not a bug: the scheduler logs it as
    one warning line, and what was claimed is tried again (a round after its post lease).
    """
