"""Store practice sessions, their results and each member's spaced-repetition reviews."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import bindparam, delete, exists, insert, or_, select, update

from bot.core.kernel.models import PracticeSession, Review, RoundStatus
from db.retry import retry_on_disconnect
from db.store_base import StoreBase, rowcount
from db.tables import (
    ChannelRow,
    PracticeResultRow,
    PracticeSessionRow,
    ReviewRow,
    RoundRow,
    ScoreTotalRow,
    WorkspaceRow,
)

# The items of the open rounds a member may answer (see open_round_items), built once: /quiz
# runs it on every call.
_OPEN_ROUND_ITEMS = (
    select(RoundRow.item_id)
    .distinct()
    .join(ChannelRow, ChannelRow.id == RoundRow.channel_id)
    .where(
        RoundRow.status == RoundStatus.OPEN.value,
        ChannelRow.platform == bindparam("platform"),
        or_(
            ChannelRow.workspace_id == select(WorkspaceRow.id).where(
                WorkspaceRow.platform == bindparam("platform"),
                WorkspaceRow.external_id == bindparam("workspace"),
            ).scalar_subquery(),
            exists().where(ScoreTotalRow.channel_id == ChannelRow.id,
                           ScoreTotalRow.user_id == bindparam("user_id")),
        ),
    )
)
_REVIEWS_OF = (select(ReviewRow).where(ReviewRow.user_id == bindparam("user_id"))
               .order_by(ReviewRow.due_at, ReviewRow.item_id))


_SESSION_OF = select(PracticeSessionRow.__table__).where(
    PracticeSessionRow.user_id == bindparam("user_id"))
_REVIEWS_OF_CORE = (select(ReviewRow.__table__).where(ReviewRow.user_id == bindparam("user_id"))
                    .order_by(ReviewRow.due_at, ReviewRow.item_id))


def _held_of(user_id: int, platform: str, workspace: str) -> dict[str, object]:
    return {"user_id": user_id, "platform": platform, "workspace": workspace}


def _session(row: Any) -> PracticeSession:
    """Return the practice session row as the core's value."""
    return PracticeSession(
        user_id=row.user_id,
        item_id=row.item_id,
        item_version=row.item_version,
        started_at=row.started_at,
        attempts=row.attempts,
    )


def _review(row: Any) -> Review:
    """Return the review row (an ORM row or a Core row with its columns) as the core's value."""
    return Review(
        user_id=row.user_id,
        item_id=row.item_id,
        state=row.state,
        step=row.step,
        stability=row.stability,
        difficulty=row.difficulty,
        due_at=row.due_at,
        reviewed_at=row.reviewed_at,
        last_correct=row.last_correct,
    )


class PracticeStore(StoreBase):
    """Practice and reviews of the QuizStore port."""

    @retry_on_disconnect
    def start_practice(self, session: PracticeSession) -> None:
        """Make ``session`` the member's current practice question (replacing any)."""
        values = {
            "item_id": session.item_id,
            "item_version": session.item_version,
            "started_at": session.started_at,
            "attempts": session.attempts,
        }
        stmt = (
            self._upsert(PracticeSessionRow)
            .values(user_id=session.user_id, **values)
            .on_conflict_do_update(index_elements=["user_id"], set_=values)
        )
        with self._one_write() as connection:
            connection.execute(stmt)

    @retry_on_disconnect
    def current_practice(self, user_id: int) -> PracticeSession | None:
        """Return the member's current practice question, if any."""
        with self._read() as db:
            row = db.get(PracticeSessionRow, user_id)
            return _session(row) if row is not None else None

    def finish_practice(self, user_id: int, item_id: str) -> bool:
        """End the practice session on ``item_id``; False when it was not current any more."""
        # Deleting only that item makes finishing a claim: a double answer scores once.
        stmt = delete(PracticeSessionRow).where(
            PracticeSessionRow.user_id == user_id, PracticeSessionRow.item_id == item_id
        )
        with self._transaction() as db:
            return rowcount(db, stmt) == 1

    def record_practice_result(
        self, user_id: int, item_id: str, item_version: int, correct: bool, at: dt.datetime,
        *, first_try: bool = False,
    ) -> None:
        """Store the outcome of a finished practice question (feeds per-topic mastery).

        ``first_try``: right with no wrong try before (mastery counts only those).
        """
        stmt = insert(PracticeResultRow).values(
            user_id=user_id,
            item_id=item_id,
            item_version=item_version,
            correct=correct,
            answered_at=at,
            first_try=first_try,
        )
        with self._transaction() as db:
            db.execute(stmt)

    def bump_practice_attempts(self, user_id: int, item_id: str) -> int:
        """Count one more wrong try on the current practice item and return the count.

        Returns 0 (and counts nothing) when ``item_id`` is not the member's current item.
        """
        # One UPDATE ... RETURNING: concurrent wrong tries each count, none is lost.
        stmt = (
            update(PracticeSessionRow)
            .where(PracticeSessionRow.user_id == user_id, PracticeSessionRow.item_id == item_id)
            .values(attempts=PracticeSessionRow.attempts + 1)
            .returning(PracticeSessionRow.attempts)
        )
        with self._transaction() as db:
            attempts = db.scalars(stmt).one_or_none()
        return attempts if attempts is not None else 0

    @retry_on_disconnect
    def open_round_items(self, user_id: int, platform: str, workspace: str) -> frozenset[str]:
        """Return the items of the open rounds the member may answer, whatever they answered.

        Those are the open rounds of every channel of ``workspace`` on ``platform`` (where the
        member asks), and of any channel where they answered before (a Discord member belongs
        to several servers). One query; the few open rounds are found by the status index,
        each channel's answerer by the totals' key.
        """
        with self._read() as db:
            return frozenset(db.scalars(_OPEN_ROUND_ITEMS, _held_of(user_id, platform, workspace)))

    @retry_on_disconnect
    def practice_state(self, user_id: int, platform: str, workspace: str
                       ) -> tuple[PracticeSession | None, frozenset[str], list[Review]]:
        """Return the member's open practice question, ``open_round_items`` and ``reviews``.

        /quiz needs all three before it picks: one transaction instead of three on its hot
        path (each costs about a millisecond and a half on SQLite).
        """
        # Core rows, no Session: the rows carry the same attribute names as the ORM's.
        with self._reading() as connection:
            row = connection.execute(_SESSION_OF, {"user_id": user_id}).first()
            held = frozenset(connection.execute(
                _OPEN_ROUND_ITEMS, _held_of(user_id, platform, workspace)).scalars())
            cards = [_review(r) for r in connection.execute(_REVIEWS_OF_CORE,
                                                            {"user_id": user_id})]
        return (_session(row) if row is not None else None), held, cards

    @retry_on_disconnect
    def get_review(self, user_id: int, item_id: str) -> Review | None:
        """Return the member's review state for an item, if any."""
        with self._read() as db:
            row = db.get(ReviewRow, (user_id, item_id))
            return _review(row) if row is not None else None

    @retry_on_disconnect
    def save_review(self, review: Review) -> None:
        """Insert or replace the review state of (user, item)."""
        values = {
            "state": review.state,
            "step": review.step,
            "stability": review.stability,
            "difficulty": review.difficulty,
            "due_at": review.due_at,
            "last_correct": review.last_correct,
            "reviewed_at": review.reviewed_at,
        }
        stmt = (
            self._upsert(ReviewRow)
            .values(user_id=review.user_id, item_id=review.item_id, **values)
            .on_conflict_do_update(index_elements=["user_id", "item_id"], set_=values)
        )
        with self._transaction() as db:
            db.execute(stmt)

    @retry_on_disconnect
    def reviews(self, user_id: int) -> list[Review]:
        """Return all the member's review states, soonest due first."""
        with self._read() as db:
            return [_review(row) for row in db.scalars(_REVIEWS_OF, {"user_id": user_id})]
