"""Every command the bot offers, in the order help lists show them."""

from __future__ import annotations

from bot.core.commands.registry import Registry
from bot.core.desk_admins import INSIGHTS, REPORTS, SETTINGS
from bot.core.desk_boards import LEADERBOARD, STATS
from bot.core.desk_learning import EXPLAIN, QUIZ
from bot.core.desk_members import FORGET_ME, PRIVACY, REMIND
from bot.core.desk_packs import PACK

REGISTRY = Registry((EXPLAIN, QUIZ, LEADERBOARD, STATS, SETTINGS, FORGET_ME, REPORTS, INSIGHTS,
                     PRIVACY, REMIND, PACK))
