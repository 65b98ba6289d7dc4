"""The learning feature's narrow store port: only the storage it uses (db/ implements it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from typing import Protocol

from bot.core.kernel.models import (
    DueReminder,
    ItemResult,
    PracticeSession,
    Reminder,
    ReminderClaim,
    Review,
)


class PracticeStore(Protocol):
    """What private practice reads and writes: sessions, results and FSRS reviews."""

    def item_results(self, user_id: int, channel_id: int | None = None) -> list[ItemResult]:
        """Return the member's final outcome per daily round and practice answer."""
        ...

    def start_practice(self, session: PracticeSession) -> None:
        """Make ``session`` the member's current practice question (replacing any)."""
        ...

    def current_practice(self, user_id: int) -> PracticeSession | None:
        """Return the member's current practice question, if any."""
        ...

    def finish_practice(self, user_id: int, item_id: str) -> bool:
        """End the practice session on ``item_id``; False when it was not current any more."""
        ...

    def record_practice_result(
        self, user_id: int, item_id: str, item_version: int, correct: bool, at: dt.datetime,
        *, first_try: bool = False,
    ) -> None:
        """Store the outcome of a finished practice question (feeds per-topic mastery).

        ``first_try``: right with no wrong try before (mastery counts only those).
        """
        ...

    def bump_practice_attempts(self, user_id: int, item_id: str) -> int:
        """Count one more wrong try on the current practice item and return the count."""
        ...

    def open_round_items(self, user_id: int, platform: str, workspace: str) -> frozenset[str]:
        """Return the items of the open rounds the member may answer, whatever they answered.

        The open rounds of every channel of ``workspace`` on ``platform``, and of any channel
        where the member answered before; one query.
        """
        ...

    def practice_state(self, user_id: int, platform: str, workspace: str
                       ) -> tuple[PracticeSession | None, frozenset[str], list[Review]]:
        """Return the open practice question, ``open_round_items`` and ``reviews``: one read."""
        ...

    def get_review(self, user_id: int, item_id: str) -> Review | None:
        """Return the member's review state for an item, if any."""
        ...

    def save_review(self, review: Review) -> None:
        """Insert or replace the review state of (user, item)."""
        ...

    def reviews(self, user_id: int) -> list[Review]:
        """Return all the member's review states, soonest due first."""
        ...



class ReminderStore(Protocol):
    """What review reminders store, claim and read."""

    def due_review_items(self, user_id: int, now: dt.datetime) -> list[str]:
        """Return the items whose FSRS card is due for the member at ``now``, soonest first."""
        ...

    def save_reminder(self, reminder: Reminder) -> Reminder:
        """Insert or replace the member's reminder setting."""
        ...

    def get_reminder(self, user_id: int) -> Reminder | None:
        """Return the member's reminder setting, if any."""
        ...

    def due_reminders(self, platform: str, now: dt.datetime, limit: int,
                      hidden: Collection[str] = ()) -> list[DueReminder]:
        """Return up to ``limit`` enabled reminders on ``platform`` due at ``now``, in one query.

        Each comes with the member's count of reviews due at ``now`` (leaving out the items in
        ``hidden``, no longer served) and the channel where they opted in; soonest due first.
        """
        ...

    def claim_reminders(self, claims: Sequence[ReminderClaim], now: dt.datetime) -> set[int]:
        """Move each claimed reminder still due at ``now`` on; return the members moved.

        One UPDATE per batch: a reminder another replica moved first is left alone, so every
        nudge is claimed (then sent) once across replicas.
        """
        ...

    def stop_reminder(self, user_id: int, reason: str | None = None) -> bool:
        """Turn the member's reminder off; with ``reason`` they are told once, later."""
        ...

    def take_reminder_notice(self, platform: str, member_external_id: str) -> str | None:
        """Return why the member's reminder was turned off, once; None when nothing to tell."""
        ...
