"""Channels: an admin's setup of a channel (time, zone, packs, locale, mode)."""

from bot.core.channels.setup import WEEKDAYS, SetupService, matching_zones

__all__ = [
    "WEEKDAYS",
    "SetupService",
    "matching_zones",
]
