"""The rounds feature's narrow store port: only the storage it uses (db/ implements it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol

from bot.core.kernel.models import (
    AnswerDraft,
    AnswerRecord,
    Attempts,
    ChannelDefaults,
    ChannelSettings,
    FirstTries,
    Member,
    PendingAnswer,
    PendingDraft,
    Review,
    Round,
    RoundClaim,
    SpeedBoardEntry,
    SpeedVerdictRecord,
    Tally,
)


class AnswerStore(Protocol):
    """What recording an answer writes: the answer, its pending row, the FSRS review."""

    def record_answer(self, draft: AnswerDraft, review: Review | None = None
                      ) -> AnswerRecord | None:
        """Store the answer and its totals; return None when that attempt was already recorded.

        ``review``: the member's FSRS card after this answer, saved in the same transaction
        (only when the answer is stored).
        """
        ...


    def resolve_pending(self, pending_id: int, claim: str, draft: AnswerDraft | None) -> bool:
        """Remove a claimed pending answer and record ``draft`` (if any) in one transaction.

        Return False, recording nothing, when the claim is no longer ours or the attempt was
        recorded meanwhile: the answer is then graded once, by whoever holds it.
        """
        ...


    def record_speed_answer(self, verdict: SpeedVerdictRecord,
                            draft: AnswerDraft) -> AnswerRecord | None:
        """Store a daily speed round's try (its verdict and its answer) in one transaction.

        None, storing nothing, when that attempt was stored already.
        """
        ...

    def round_speed_board(self, round_id: int, limit: int) -> list[SpeedBoardEntry]:
        """Return each visible member's best released faster verdict of a speed round."""
        ...

    def get_review(self, user_id: int, item_id: str) -> Review | None:
        """Return the member's review state for an item, if any."""
        ...


    def save_review(self, review: Review) -> None:
        """Insert or replace the review state of (user, item)."""
        ...



class PendingStore(Protocol):
    """What grading pending code answers reads and claims."""

    def attempts(self, round_id: int, user_id: int) -> Attempts:
        """Return the member's recorded tries at a round and how many code answers still wait."""
        ...

    def answer_state(self, round_id: int, user_id: int, item_id: str
                     ) -> tuple[Attempts, Review | None]:
        """Return ``attempts`` and the member's FSRS card of the item, in one transaction."""
        ...

    def get_channel(self, channel_id: int) -> ChannelSettings | None:
        """Return the channel with this id, if any."""
        ...


    def get_member(self, member_id: int) -> Member | None:
        """Return the member with this id, if any."""
        ...

    def find_member(self, platform: str, external_id: str) -> Member | None:
        """Return the member known by this platform id, if any (a read: nothing registered)."""
        ...


    def get_round(self, round_id: int) -> Round | None:
        """Return the round with this id, if any."""
        ...


    def answers_for(self, round_id: int, user_id: int) -> list[AnswerRecord]:
        """Return a member's answers to a round, by attempt."""
        ...


    def claim_pending(
        self, platform: str | None, now: dt.datetime, stale_before: dt.datetime
    ) -> PendingAnswer | None:
        """Claim the oldest pending answer that is first in its member's queue.

        Only a member's oldest pending answer to a round can be claimed, so their answers are
        graded in the order they were sent, whichever replica grades them. A claim made before
        ``stale_before`` was abandoned (its replica died) and may be taken over. None when
        nothing (on ``platform``'s channels, or anywhere for None) is free to grade.
        """
        ...


    def release_pending(self, pending_id: int, claim: str) -> None:
        """Give a claimed pending answer back, to be graded on a later sweep."""
        ...


    def resolve_pending(self, pending_id: int, claim: str, draft: AnswerDraft | None) -> bool:
        """Remove a claimed pending answer and record ``draft`` (if any) in one transaction.

        Return False, recording nothing, when the claim is no longer ours or the attempt was
        recorded meanwhile: the answer is then graded once, by whoever holds it.
        """
        ...



class RoundStore(AnswerStore, PendingStore, Protocol):
    """What the daily rounds read and write, with what recording and grading answers need."""

    def ensure_channel(
        self, platform: str, external_id: str, workspace_external_id: str, defaults: ChannelDefaults
    ) -> ChannelSettings:
        """Return the channel, creating it with ``defaults`` when first seen."""
        ...


    def get_channels(self, channel_ids: Sequence[int]) -> dict[int, ChannelSettings]:
        """Return the channels among these ids that exist, by id, in a few queries at most."""
        ...


    def find_channel(self, platform: str, external_id: str) -> ChannelSettings | None:
        """Return the channel known by this platform id, if any."""
        ...


    def list_channels(self, *, enabled_only: bool = True) -> list[ChannelSettings]:
        """Return channels in id order."""
        ...



    def ensure_member(self, platform: str, external_id: str, display_name: str) -> Member:
        """Return the member, creating it or refreshing its display name."""
        ...


    def rounds_exist(self, keys: Sequence[tuple[int, dt.date]]) -> set[tuple[int, dt.date]]:
        """Return which of these (channel_id, local_date) keys have a round, in a few queries."""
        ...


    def claim_rounds(self, claims: Sequence[RoundClaim]) -> list[Round]:
        """Create every claimed round whose (channel, date) has none yet; return those created.

        One statement per few hundred claims, so a minute in which thousands of channels are
        due costs a handful of round trips; a round another replica created is left alone.
        """
        ...


    def set_round_message(self, round_id: int, message_ref: str) -> None:
        """Remember where the round was posted (ending its post claim), for edits and reveal."""
        ...


    def claim_round_post(
        self, round_id: int, expected: dt.datetime | None, claimed_at: dt.datetime
    ) -> bool:
        """Move the unposted round's post claim from ``expected`` to ``claimed_at`` atomically.

        Return False when another caller moved it first, or the round was posted meanwhile:
        the claim that makes re-posting after a crash happen once across replicas.
        """
        ...


    def unposted_rounds(self, now: dt.datetime, stale_before: dt.datetime) -> list[Round]:
        """Return unposted open rounds, unclaimed or claimed before ``stale_before``."""
        ...


    def latest_round(self, channel_id: int) -> Round | None:
        """Return the channel's most recent round, open or closed."""
        ...


    def due_rounds(self, now: dt.datetime) -> list[Round]:
        """Return open rounds whose closing time has passed."""
        ...


    def close_round(self, round_id: int, closed_at: dt.datetime) -> bool:
        """Close an open round; return False when it was already closed."""
        ...


    def used_items_of(self, channel_ids: Sequence[int]) -> dict[int, dict[str, dt.date]]:
        """Return ``used_items`` of every channel among these ids, in a few queries at most."""
        ...


    def tally(self, round_id: int) -> Tally:
        """Return how many members solved and attempted the round."""
        ...


    def add_pending(self, draft: PendingDraft) -> PendingAnswer:
        """Store a code answer to grade later."""
        ...


    def first_tries(self, round_id: int) -> list[FirstTries]:
        """Return how many members gave each response on their first try at the round."""
        ...


    def paused_items(self) -> set[tuple[str, int]]:
        """Return the (item id, version) keys no daily pick may choose (one small read)."""
        ...
