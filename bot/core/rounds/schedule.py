"""When a channel's daily post is due: the rule the start-up catch-up follows."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.core.kernel.models import ChannelSettings

# After downtime, a post missed by at most this long is still posted once; a later one is
# skipped (a question at 18:00 for a 09:00 channel would land in the wrong part of the day).
DEFAULT_GRACE = dt.timedelta(hours=3)


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
