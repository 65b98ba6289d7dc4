"""Live sessions: a timed quiz for a team meeting, kept in the database, moved by deadlines."""

from bot.core.live.rules import (
    DEFAULT_LOBBY,
    DEFAULT_QUESTIONS,
    DEFAULT_SECONDS,
    MAX_QUESTIONS,
    MAX_SECONDS,
    MIN_PLAYERS_TO_COUNT,
    LiveOptions,
    OptionError,
    live_points,
    parse_options,
)
from bot.core.live.service import LivePost, LiveService
from bot.core.live.store import LiveStore

__all__ = [
    "DEFAULT_LOBBY",
    "DEFAULT_QUESTIONS",
    "DEFAULT_SECONDS",
    "MAX_QUESTIONS",
    "MAX_SECONDS",
    "MIN_PLAYERS_TO_COUNT",
    "LiveOptions",
    "LivePost",
    "LiveService",
    "LiveStore",
    "OptionError",
    "live_points",
    "parse_options",
]
