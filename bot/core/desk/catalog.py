"""Every command the bot offers, in the order help lists show them."""

from __future__ import annotations

from bot.core.desk.admins import INSIGHTS, REPORTS, SETTINGS
from bot.core.desk.boards import LEADERBOARD, STATS
from bot.core.desk.learning import EXPLAIN, QUIZ
from bot.core.desk.members import FORGET_ME, PRIVACY, REMIND
from bot.core.desk.packs import PACK
from bot.core.kernel.commands import Registry

REGISTRY = Registry((EXPLAIN, QUIZ, LEADERBOARD, STATS, SETTINGS, FORGET_ME, REPORTS, INSIGHTS,
                     PRIVACY, REMIND, PACK))
