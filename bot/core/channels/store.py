"""The channels feature's narrow store port: only the storage it uses (db/ implements it)."""

from __future__ import annotations

from typing import Protocol

from bot.core.kernel.models import (
    ChannelSettings,
    ChannelUpdate,
)


class ChannelStore(Protocol):
    """What an admin's channel setup stores."""

    def update_channel(self, channel_id: int, update: ChannelUpdate) -> ChannelSettings:
        """Apply the non-None fields of ``update`` and return the new settings.

        Every update also moves the settings stamp on, in the same transaction.
        """
        ...

    def settings_stamp(self) -> int:
        """Return the settings stamp: it moves on whenever any channel's settings change.

        A scheduler in another process (the web page changed a setting) polls it: one row.
        """
        ...
