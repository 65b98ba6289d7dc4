"""The live feature's narrow store port: only the storage live sessions use (db/ implements it).

Every transition of a session is a conditional write that says whether it won, so any number
of replicas (or a restarted process) can advance the same session by its deadlines and each
question is posted, revealed and scored once.
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.core.kernel.models import (
    ChannelSettings,
    LiveAnswer,
    LiveDraft,
    LivePlayer,
    LiveQuestion,
    LiveSession,
    Member,
    Review,
    Round,
)


class LiveStore(Protocol):
    """What live sessions read and write: sessions, questions, players, answers, FSRS cards."""

    def create_live(self, draft: LiveDraft) -> LiveSession | None:
        """Open a session with its questions, the host joined; None: the channel has one."""
        ...

    def active_live(self, channel_id: int) -> LiveSession | None:
        """Return the channel's session that has not ended, if any."""
        ...

    def get_live(self, session_id: int) -> LiveSession | None:
        """Return a session by id, ended or not."""
        ...

    def active_lives(self, platform: str) -> list[LiveSession]:
        """Return every session not ended in a channel of ``platform``, oldest first."""
        ...

    def live_questions(self, session_id: int) -> list[LiveQuestion]:
        """Return the session's questions in the order they are asked."""
        ...

    def live_players(self, session_id: int) -> list[LivePlayer]:
        """Return who joined the session, in the order they joined."""
        ...

    def live_answers(self, session_id: int) -> list[LiveAnswer]:
        """Return every answer of the session, by question then time."""
        ...

    def join_live(self, session_id: int, user_id: int, at: dt.datetime) -> bool:
        """Add the member to the session's players; False when they had joined already."""
        ...

    def record_live_answer(self, answer: LiveAnswer, review: Review | None = None) -> bool:
        """Keep a player's answer (joining them); False: they answered it, or it is closed.

        ``review``: the member's FSRS card after the answer, saved with it when it is kept.

        The unique (session, question, member) key makes an answer count once across
        replicas and retries.
        """
        ...

    def pending_live_answers(self, session_id: int, position: int) -> list[LiveAnswer]:
        """Return the question's code answers the sandbox has yet to grade, with their code."""
        ...

    def grade_live_answer(self, graded: LiveAnswer, review: Review | None = None) -> bool:
        """Record a pending code answer's grade and the member's card; False: graded already."""
        ...

    def set_live_thread(self, session_id: int, ref: str) -> bool:
        """Keep the thread started on the session's lobby; False when it has one already."""
        ...

    def drop_live_thread(self, session_id: int, ref: str) -> bool:
        """Forget the session's thread ``ref`` (it is gone); False: forgotten already."""
        ...

    def claim_live_lobby(self, session_id: int) -> bool:
        """Claim the posting of the session's lobby; False when it was claimed already."""
        ...

    def open_live_question(self, session_id: int, position: int, opened_at: dt.datetime,
                           closes_at: dt.datetime) -> bool:
        """Post question ``position`` (the one after the session's current); False: lost."""
        ...

    def close_live_question(self, session_id: int, position: int, at: dt.datetime) -> bool:
        """Close an open question for its reveal; False when it was closed already."""
        ...

    def hurry_live(self, session_id: int, at: dt.datetime) -> bool:
        """Bring the lobby's end, or the open question's deadline, forward to ``at``."""
        ...

    def pause_live(self, session_id: int, at: dt.datetime) -> bool:
        """Stop the open question's clock, keeping its time left; False: nothing to pause."""
        ...

    def resume_live(self, session_id: int, at: dt.datetime) -> bool:
        """Start the paused question's clock again with its time left; False: not paused."""
        ...

    def request_live_end(self, session_id: int) -> bool:
        """Mark a session to end at its next advance; False when it is ending already."""
        ...

    def finish_live(self, session_id: int, at: dt.datetime, counted: bool,
                    on_board: bool = False) -> bool:
        """End the session (its channel may open another); False when it had ended.

        ``on_board``: add the players' points to the channel's weekly board in the same write
        (each answer in its week), once: only the ending that wins adds them.
        """
        ...

    def get_channel(self, channel_id: int) -> ChannelSettings | None:
        """Return a channel's settings by id."""
        ...

    def get_member(self, member_id: int) -> Member | None:
        """Return a member by id (a code verdict goes to them by their platform id)."""
        ...

    def latest_round(self, channel_id: int) -> Round | None:
        """Return the channel's most recent daily round, open or closed."""
        ...

    def paused_items(self) -> set[tuple[str, int]]:
        """Return the (item, version) pairs paused by the item statistics."""
        ...

    def get_review(self, user_id: int, item_id: str) -> Review | None:
        """Return the member's FSRS card for an item, if any."""
        ...
