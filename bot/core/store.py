"""The whole store: the union of every feature's narrow store port, which db/ implements.

Only the composition root, the desk and the adapters' tests hold the whole store; each
service takes its feature's port (bot/core/<feature>/store.py).
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.core.audit.store import AuditStore
from bot.core.boards.store import BoardStore
from bot.core.browser.store import BrowserStore
from bot.core.channels.store import ChannelStore
from bot.core.kernel.models import (
    PendingAnswer,
    Resolved,
    Round,
    ScoreRow,
)
from bot.core.learning.store import PracticeStore, ReminderStore
from bot.core.live.store import LiveStore
from bot.core.people.store import PeopleStore
from bot.core.quality.store import InsightStore, ReportStore
from bot.core.rounds.store import RoundStore
from bot.core.signin.store import SignInStore
from bot.core.speed.store import SpeedStore


class QuizStore(
    ChannelStore,
    BoardStore,
    PracticeStore,
    ReminderStore,
    PeopleStore,
    ReportStore,
    InsightStore,
    RoundStore,
    SignInStore,
    LiveStore,
    BrowserStore,
    AuditStore,
    SpeedStore,
    Protocol,
):
    """Persist channels, members, rounds, answers and practice state.

    Every method is its own transaction. Methods that claim something (a round for a date, an
    answer attempt, the closing of a round) return None or False when another caller got there
    first, so any number of bot replicas can run against one database.
    """

    # what a chat request reads first, and what the CLIs, the desk and the adapters read

    def resolve(
        self,
        platform: str,
        user_external_id: str,
        display_name: str,
        channel_external_id: str = "",
        round_id: int | None = None,
    ) -> Resolved:
        """Return the member (created or renamed), the channel and the round, in one transaction.

        With ``round_id`` the channel is the round's own; otherwise the channel known by
        ``channel_external_id`` on ``platform`` (None in both cases when there is none).
        """
        ...


    def claim_round(
        self,
        channel_id: int,
        local_date: dt.date,
        item_id: str,
        item_version: int,
        opened_at: dt.datetime,
        closes_at: dt.datetime,
    ) -> Round | None:
        """Create the round for (channel, date); return None when it already exists."""
        ...


    def round_for_date(self, channel_id: int, local_date: dt.date) -> Round | None:
        """Return the channel's round for that local date, if any."""
        ...


    def used_items(self, channel_id: int) -> dict[str, dt.date]:
        """Return each item the channel has had, with the last date it was posted."""
        ...


    def scores(self, channel_id: int, since: dt.datetime | None = None) -> list[ScoreRow]:
        """Return every member's points in the channel, for answers at or after ``since``.

        Recounted from every answer: the reference for checks and tools, too slow for a board
        of a big channel (use top_scores there).
        """
        ...


    def pending_for(self, round_id: int, user_id: int) -> list[PendingAnswer]:
        """Return a member's pending answers to a round, oldest first."""
        ...
