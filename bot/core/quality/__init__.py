"""Quality: reports of faulty questions, answer distributions and item analytics."""

from bot.core.quality.insights import InsightsService
from bot.core.quality.reports import ReportService, Where, distribution, week_extras

__all__ = [
    "InsightsService",
    "ReportService",
    "Where",
    "distribution",
    "week_extras",
]
