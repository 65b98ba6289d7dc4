"""The boards feature's narrow store port: only the storage it uses (db/ implements it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping
from typing import Protocol

from bot.core.kernel.models import (
    AnsweredTry,
    BoardRead,
    ChannelSettings,
    FirstTries,
    ItemResult,
    MemberRead,
    Round,
    ScoreRow,
)


class BoardStore(Protocol):
    """What the leaderboards, stats and mastery charts read (and /quiz-privacy sets)."""

    def get_channel(self, channel_id: int) -> ChannelSettings | None:
        """Return the channel with this id, if any."""
        ...


    def set_hidden(self, user_id: int, hidden: bool) -> None:
        """Keep the member off every public board (True), or show them again (False)."""
        ...


    def latest_round(self, channel_id: int) -> Round | None:
        """Return the channel's most recent round, open or closed."""
        ...


    def round_dates(self, channel_id: int) -> list[dt.date]:
        """Return the local dates of the channel's rounds, oldest first."""
        ...


    def top_scores(
        self, channel_id: int, week_start: dt.datetime | None, limit: int | None
    ) -> list[ScoreRow]:
        """Return the leaderboard's visible members with points, from totals kept with answers.

        ``week_start`` is models.week_start of now in the channel's zone for the weekly board,
        None for all time; the rows equal ``scores`` for that period, limited to members whose
        competition rank (points, then solved, then earliest last solve) is within ``limit``,
        so a tie at the cut comes whole. None means every member with points. Hidden members
        are left out and rank among nobody: the visible ones rank among themselves.
        """
        ...


    def board_read(
        self, channel_id: int, week_start: dt.datetime | None, limit: int | None
    ) -> BoardRead:
        """Return a leaderboard's rows (as ``top_scores``), hidden count, rounds and streaks.

        One read of a constant number of statements (one, but for a tie at the cut), none per
        member: the streaks are the stored ones (``StreakAnchor``), as of each member's latest
        solve.
        """
        ...


    def topic_scores(self, channel_id: int, topic: str, limit: int | None = None
                     ) -> tuple[list[ScoreRow], int]:
        """Return a topic's board: the visible members' points on the rounds of ``topic``.

        Best first, down to competition rank ``limit`` with a tie at the cut whole (None:
        all), with how many hidden members have points there, in one statement, from totals
        kept with answers over the item topics last given to ``sync_item_topics``.
        """
        ...


    def sync_item_topics(self, topics_of: Mapping[str, Collection[str]]) -> int:
        """Store the library's topics of each question (``Library.topics_of()``).

        One read when they are what the store holds; otherwise the per-topic totals of the
        topics that changed are counted again. Returns how many topics were recounted.
        """
        ...


    def member_read(
        self, channel_id: int, user_id: int, now: dt.datetime, week_start: dt.datetime
    ) -> MemberRead:
        """Return what /stats shows of a member in a channel, in one read of two statements."""
        ...


    def member_score(self, channel_id: int, user_id: int) -> ScoreRow | None:
        """Return the member's all-time totals in the channel (None if they never answered)."""
        ...


    def hidden_with_points(self, channel_id: int, week_start: dt.datetime | None) -> int:
        """Return how many hidden members have points on the board of that period."""
        ...


    def member_rank(
        self, channel_id: int, user_id: int, week_start: dt.datetime | None
    ) -> tuple[int, int] | None:
        """Return (competition rank, of how many) among the visible members with points.

        Ranks as ``top_scores`` orders (hidden members never shift a visible one); a hidden
        member gets the place they would take and counts in "of". None without points.
        """
        ...


    def due_review_items(self, user_id: int, now: dt.datetime) -> list[str]:
        """Return the items whose FSRS card is due for the member at ``now``, soonest first."""
        ...


    def channel_item_results(self, channel_id: int) -> list[tuple[str, int, int, int]]:
        """Return (item, member-rounds answered, solved, right on the first try) per item."""
        ...


    def solved_dates(self, channel_id: int, user_id: int) -> list[dt.date]:
        """Return the local dates of rounds the member solved, oldest first."""
        ...


    def recent_solved_dates(
        self, channel_id: int, user_ids: Collection[int], since: dt.date | None
    ) -> dict[int, list[dt.date]]:
        """Return, per member, the dates of rounds from ``since`` on they solved, in few queries.

        Members who solved none of them are absent; None means every round.
        """
        ...


    def streak_history(
        self, channel_id: int, user_ids: Collection[int]
    ) -> tuple[list[dt.date], dict[int, list[dt.date]]]:
        """Return the channel's round dates and, per member, the dates of rounds they solved.

        What a stale stored streak is walked again from, in one statement (per few hundred
        members); members who solved none are absent. Both lists oldest first.
        """
        ...

    def publish_board(self, channel_id: int, token: str, at: dt.datetime) -> str | None:
        """Publish the channel's board at ``token``, replacing its link; return the old token."""
        ...

    def withdraw_board(self, channel_id: int) -> str | None:
        """Withdraw the channel's published board; return the token it had (None: none)."""
        ...

    def board_token(self, channel_id: int) -> str | None:
        """Return the token the channel's board is published at, None when it is not."""
        ...

    def published_channel(self, token: str) -> int | None:
        """Return the channel whose board is published at ``token``, None for any other."""
        ...

    def answer_history(self, channel_id: int, user_id: int, offset: int,
                       limit: int) -> list[AnsweredTry]:
        """Return the member's tries at the channel's rounds, newest first, in one statement."""
        ...

    def item_results(self, user_id: int, channel_id: int | None = None) -> list[ItemResult]:
        """Return the member's final outcome per daily round and practice answer."""
        ...


    def claim_weekly_board(self, channel_id: int, week_start: dt.datetime,
                           at: dt.datetime) -> bool:
        """Claim the channel's weekly board for one week; False when another replica has."""
        ...

    def week_first_tries(
        self, channel_id: int, since: dt.date, until: dt.date
    ) -> list[FirstTries]:
        """Return ``first_tries`` of the channel's closed rounds from ``since`` to ``until``.

        ``until`` is excluded; rounds still open are left out, so nothing is spoiled.
        """
        ...
