"""The speed feature's narrow store port: only the storage it uses (db/store_speed.py)."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.core.kernel.ports import RoundCount
from bot.core.kernel.speed_records import HeldSpeed, OpenSpeed, SpeedBoardEntry, SpeedVerdictRecord


class SpeedStore(Protocol):
    """What speed challenges keep: the challenge each member was served, every verdict."""

    def open_speed(self, user_id: int, item_id: str, item_version: int, at: dt.datetime) -> None:
        """Make ``item_id`` the member's open speed challenge (replacing any)."""
        ...

    def current_speed(self, user_id: int) -> OpenSpeed | None:
        """Return the member's open speed challenge, if any."""
        ...

    def add_speed_verdict(self, record: SpeedVerdictRecord) -> int:
        """Keep one speed verdict; return its id."""
        ...

    def speed_board(self, item_id: str, item_version: int, channel_id: int,
                    limit: int) -> list[SpeedBoardEntry]:
        """Return each visible member's best released faster verdict in the channel.

        Best score first, ties by who got there first; hidden members never appear.
        """
        ...

    def held_speed(self, workspace: str, limit: int) -> list[HeldSpeed]:
        """Return the workspace's verdicts held for review (``pending``), oldest first."""
        ...

    def review_speed(self, verdict_id: int, workspace: str, status: str,
                     counted: RoundCount | None = None) -> SpeedVerdictRecord | None:
        """Move a pending verdict of ``workspace`` to ``status``; None when none was pending.

        ``counted``: for a verdict of a daily speed round, the answer its release adds to the
        round, worked out from the member's answers there; stored in the same transaction.
        """
        ...
