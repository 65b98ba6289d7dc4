"""Every command the bot offers, in the order help lists show them, and every button kind."""

from __future__ import annotations

from bot.core.desk.admins import INSIGHTS, REPORT_BUTTONS, REPORTS, SETTINGS, UNPAUSE_BUTTON
from bot.core.desk.answers import ANSWER, FORMS, PRACTICE
from bot.core.desk.boards import LEADERBOARD, STATS
from bot.core.desk.learning import EXPLAIN, QUIZ, SHARE, SKIP
from bot.core.desk.live import LIVE, LIVE_BUTTONS, LIVE_FORM, LIVE_JOIN, LIVE_RANK
from bot.core.desk.members import FORGET_BUTTONS, FORGET_ME, PRIVACY, REMIND, REMINDER_BUTTONS
from bot.core.desk.packs import PACK
from bot.core.desk.speed import SPEED, SPEED_FORM, SPEED_REVIEW
from bot.core.desk.web import WEB
from bot.core.kernel.commands import Registry

REGISTRY = Registry(
    (EXPLAIN, QUIZ, LEADERBOARD, STATS, SETTINGS, FORGET_ME, REPORTS, INSIGHTS, PRIVACY, REMIND,
     PACK, WEB, LIVE, SPEED),
    (ANSWER, PRACTICE, FORMS, SKIP, SHARE, FORGET_BUTTONS, REPORT_BUTTONS, UNPAUSE_BUTTON,
     REMINDER_BUTTONS, LIVE_BUTTONS, LIVE_JOIN, LIVE_FORM,
     LIVE_RANK, SPEED_FORM, SPEED_REVIEW),
)
