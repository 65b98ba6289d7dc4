"""Boards: leaderboards, member and team stats, mastery charts."""

from bot.core.boards.board import BoardService

__all__ = [
    "BoardService",
]
