"""Quality: reports of faulty questions, answer distributions and item analytics."""

from bot.core.quality.insights import InsightsService, ItemStats, worst_first
from bot.core.quality.reports import ReportService, Where, distribution, week_extras

__all__ = [
    "InsightsService",
    "ItemStats",
    "ReportService",
    "Where",
    "distribution",
    "week_extras",
    "worst_first",
]
