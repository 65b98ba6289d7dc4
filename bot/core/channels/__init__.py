"""Channels: an admin's setup of a channel (time, zone, packs, locale, mode)."""

from bot.core.channels.setup import (
    KEYS,
    MAX_SETUP_CHARS,
    WEEKDAYS,
    SetupService,
    matching_zones,
    typed_values,
)

__all__ = [
    "KEYS",
    "MAX_SETUP_CHARS",
    "WEEKDAYS",
    "SetupService",
    "matching_zones",
    "typed_values",
]
