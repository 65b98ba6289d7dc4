"""Speed challenges in chat: practice, verdicts, a board per challenge, held verdicts."""

from bot.core.speed import rounds as speed_round
from bot.core.speed.report import SpeedReading, read_report
from bot.core.speed.rounds import SPEED_TRIES, speed_points
from bot.core.speed.service import MAX_CODE_CHARS, SpeedService, Where

__all__ = ["MAX_CODE_CHARS", "SPEED_TRIES", "SpeedReading", "SpeedService", "Where",
           "read_report", "speed_points", "speed_round"]
