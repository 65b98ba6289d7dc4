"""Values of speed challenges as the core and storage pass them (bot/core/speed, db/store_speed.py).

Frozen and platform-neutral like bot.core.kernel.models.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

# A stored verdict's status: ranked as it is, held for an admin, or set aside by one.
RELEASED = "released"
PENDING = "pending"
REJECTED = "rejected"
SPEED_STATUSES = (RELEASED, PENDING, REJECTED)


@dataclass(frozen=True)
class SpeedShapeFigure:
    """One shape's speedup: the ratio of medians and its bootstrap 95 % interval."""

    shape: str
    speedup: float
    low: float
    high: float


@dataclass(frozen=True)
class SpeedVerdictRecord:
    """One speed verdict of a member, as stored.

    ``workspace`` is the asking workspace's scope (``PLATFORM:ID``); ``channel_id`` the quiz
    channel it was asked in (None outside one). ``status``: ``released`` (ranked when faster),
    ``pending`` (held for an admin), ``rejected`` (an admin set it aside).
    """

    user_id: int
    channel_id: int | None
    workspace: str
    item_id: str
    item_version: int
    status: str
    faster: bool
    held: bool
    score: float
    shapes: tuple[SpeedShapeFigure, ...]
    reason: str
    created_at: dt.datetime
    id: int = 0
    # A verdict of a daily speed round: the round and the member's attempt at it (None: practice).
    round_id: int | None = None
    attempt: int | None = None


@dataclass(frozen=True)
class SpeedBoardEntry:
    """A member's best faster verdict on one challenge: the board's line."""

    rank: int
    user_id: int
    display_name: str
    score: float
    at: dt.datetime


@dataclass(frozen=True)
class HeldSpeed:
    """A held verdict waiting for an admin, with whose it is."""

    id: int
    item_id: str
    item_version: int
    display_name: str
    score: float
    reason: str
    shapes: tuple[SpeedShapeFigure, ...]
    created_at: dt.datetime


@dataclass(frozen=True)
class OpenSpeed:
    """The speed challenge a member was last served (``/quiz speed``), for a typed answer."""

    user_id: int
    item_id: str
    item_version: int
    started_at: dt.datetime
