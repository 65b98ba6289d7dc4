"""Boards: leaderboards, member and team stats, mastery charts."""

from bot.core.boards.board import BoardService, BoardView

__all__ = [
    "BoardService",
    "BoardView",
]
