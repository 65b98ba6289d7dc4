"""Boards: leaderboards, member and team stats, mastery charts."""

from bot.core.boards.board import BoardService, BoardView, CalendarDay

__all__ = [
    "BoardService",
    "BoardView",
    "CalendarDay",
]
