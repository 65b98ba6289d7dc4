"""Channels: an admin's setup of a channel (time, zone, packs, locale, mode)."""

from bot.core.channels.setup import SetupService, matching_zones

__all__ = [
    "SetupService",
    "matching_zones",
]
