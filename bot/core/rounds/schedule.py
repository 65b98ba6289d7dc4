"""When a channel's daily post and weekly board are due: the rules the catch-up follows."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.core.kernel.models import ChannelSettings

# After downtime, a post missed by at most this long is still posted once; a later one is
# skipped (a question at 18:00 for a 09:00 channel would land in the wrong part of the day).
DEFAULT_GRACE = dt.timedelta(hours=3)
# A weekly board missed while no bot ran (or the database was down) is still posted this late
# within its week: the standings read the same a few hours on.
BOARD_GRACE = dt.timedelta(hours=6)


class Missed(StrEnum):
    """What to do at start-up about today's post."""

    POST = "post"  # due, and late by no more than the grace
    SKIP = "skip"  # due too long ago
    WAIT = "wait"  # not due yet: its trigger will fire


def missed_post(channel: ChannelSettings, now: dt.datetime, grace: dt.timedelta) -> Missed:
    """Say what to do at start-up about today's post: post it, skip it (too late) or wait."""
    zone = ZoneInfo(channel.timezone)
    local = now.astimezone(zone)
    due = dt.datetime.combine(local.date(), channel.post_time, tzinfo=zone)
    if local < due:
        return Missed.WAIT
    return Missed.POST if local - due <= grace else Missed.SKIP


def missed_board(channel: ChannelSettings, now: dt.datetime,
                 grace: dt.timedelta = BOARD_GRACE) -> bool:
    """Say whether the channel's weekly board was due at most ``grace`` ago, this week.

    A board due before the channel's week turned (Sunday night, caught up on Monday) is not
    made: it would read the new week, which has barely begun.
    """
    zone = ZoneInfo(channel.timezone)
    local = now.astimezone(zone)
    monday = local.date() - dt.timedelta(days=local.weekday())
    due = dt.datetime.combine(monday + dt.timedelta(days=channel.leaderboard_weekday),
                              dt.time(channel.leaderboard_hour), tzinfo=zone)
    return due <= local and local - due <= grace
