"""Store daily rounds and their answers, and read scores and outcomes from them."""

from __future__ import annotations

import datetime as dt
import logging

from sqlalchemy import and_, case, distinct, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from bot.core.models import (
    POSTING_PREFIX,
    AnswerDraft,
    AnswerMode,
    AnswerRecord,
    ItemResult,
    Round,
    RoundStatus,
    ScoreRow,
    Tally,
)
from db.store_base import StoreBase, rowcount
from db.tables import RESPONSE_MAX_CHARS, AnswerRow, PracticeResultRow, RoundRow, UserRow

log = logging.getLogger(__name__)


def _round(row: RoundRow) -> Round:
    """Return the round row as the core's value."""
    return Round(
        id=row.id,
        channel_id=row.channel_id,
        local_date=row.local_date,
        item_id=row.item_id,
        item_version=row.item_version,
        status=RoundStatus(row.status),
        opened_at=row.opened_at,
        closes_at=row.closes_at,
        message_ref=row.message_ref,
    )


def _answer(row: AnswerRow) -> AnswerRecord:
    """Return the answer row as the core's value."""
    return AnswerRecord(
        id=row.id,
        round_id=row.round_id,
        user_id=row.user_id,
        attempt=row.attempt,
        mode=AnswerMode(row.mode),
        response=row.response,
        correct=row.correct,
        points=row.points,
        submitted_at=row.submitted_at,
        verdict_status=row.verdict_status,
    )


class RoundStore(StoreBase):
    """Rounds, answers, scores and outcomes of the QuizStore port."""

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
        # Claim-then-post: the unique key (channel_id, local_date) decides which replica posts.
        stmt = (
            insert(RoundRow)
            .values(
                channel_id=channel_id,
                local_date=local_date,
                item_id=item_id,
                item_version=item_version,
                status=RoundStatus.OPEN.value,
                opened_at=opened_at,
                closes_at=closes_at,
            )
            .returning(RoundRow)
        )
        try:
            with self._transaction() as session:
                return _round(session.scalars(stmt).one())
        except IntegrityError:
            # Only a lost race means None; a missing channel is a bug and must surface.
            if self.round_for_date(channel_id, local_date) is None:
                raise
            log.info("round already claimed: channel=%s date=%s", channel_id, local_date)
            return None

    def set_round_message(self, round_id: int, message_ref: str) -> None:
        """Remember where the round was posted, so the reveal can reply in its thread."""
        with self._transaction() as session:
            session.execute(
                update(RoundRow).where(RoundRow.id == round_id).values(message_ref=message_ref)
            )

    def claim_round_post(self, round_id: int, expected: str | None, message_ref: str) -> bool:
        """Set the round's message ref from ``expected`` to ``message_ref``; False if it moved."""
        current = (
            RoundRow.message_ref.is_(None) if expected is None
            else RoundRow.message_ref == expected
        )
        stmt = update(RoundRow).where(RoundRow.id == round_id, current).values(
            message_ref=message_ref
        )
        with self._transaction() as session:
            return rowcount(session, stmt) == 1

    def unposted_rounds(self, now: dt.datetime) -> list[Round]:
        """Return open rounds whose post never went out (no message ref, or only a claim)."""
        stmt = (
            select(RoundRow)
            .where(
                RoundRow.status == RoundStatus.OPEN.value,
                RoundRow.closes_at > now,
                or_(RoundRow.message_ref.is_(None),
                    RoundRow.message_ref.startswith(POSTING_PREFIX)),
            )
            .order_by(RoundRow.id)
        )
        with self._transaction() as session:
            return [_round(row) for row in session.scalars(stmt)]

    def get_round(self, round_id: int) -> Round | None:
        """Return the round with this id, if any."""
        with self._transaction() as session:
            row = session.get(RoundRow, round_id)
            return _round(row) if row is not None else None

    def round_for_date(self, channel_id: int, local_date: dt.date) -> Round | None:
        """Return the channel's round for that local date, if any."""
        stmt = select(RoundRow).where(
            RoundRow.channel_id == channel_id, RoundRow.local_date == local_date
        )
        with self._transaction() as session:
            row = session.scalars(stmt).one_or_none()
            return _round(row) if row is not None else None

    def latest_round(self, channel_id: int) -> Round | None:
        """Return the channel's most recent round, open or closed."""
        stmt = (
            select(RoundRow)
            .where(RoundRow.channel_id == channel_id)
            .order_by(RoundRow.local_date.desc())
            .limit(1)
        )
        with self._transaction() as session:
            row = session.scalars(stmt).first()
            return _round(row) if row is not None else None

    def due_rounds(self, now: dt.datetime) -> list[Round]:
        """Return open rounds whose closing time has passed, soonest closed first."""
        stmt = (
            select(RoundRow)
            .where(RoundRow.status == RoundStatus.OPEN.value, RoundRow.closes_at <= now)
            .order_by(RoundRow.closes_at, RoundRow.id)
        )
        with self._transaction() as session:
            return [_round(row) for row in session.scalars(stmt)]

    def close_round(self, round_id: int, closed_at: dt.datetime) -> bool:
        """Close an open round; return False when it was already closed."""
        # The status condition makes closing a claim too: only one replica reveals the answer.
        stmt = (
            update(RoundRow)
            .where(RoundRow.id == round_id, RoundRow.status == RoundStatus.OPEN.value)
            .values(status=RoundStatus.CLOSED.value, closed_at=closed_at)
        )
        with self._transaction() as session:
            return rowcount(session, stmt) == 1

    def used_items(self, channel_id: int) -> dict[str, dt.date]:
        """Return each item the channel has had, with the last date it was posted."""
        stmt = (
            select(RoundRow.item_id, func.max(RoundRow.local_date))
            .where(RoundRow.channel_id == channel_id)
            .group_by(RoundRow.item_id)
        )
        with self._transaction() as session:
            return dict(session.execute(stmt).all())

    def round_dates(self, channel_id: int) -> list[dt.date]:
        """Return the local dates of the channel's rounds, oldest first."""
        stmt = (
            select(RoundRow.local_date)
            .where(RoundRow.channel_id == channel_id)
            .order_by(RoundRow.local_date)
        )
        with self._transaction() as session:
            return list(session.scalars(stmt))

    def record_answer(self, draft: AnswerDraft) -> AnswerRecord | None:
        """Store the answer; return None when that attempt was already recorded."""
        stmt = (
            insert(AnswerRow)
            .values(
                round_id=draft.round_id,
                user_id=draft.user_id,
                attempt=draft.attempt,
                mode=draft.mode.value,
                response=draft.response[:RESPONSE_MAX_CHARS],
                correct=draft.correct,
                points=draft.points,
                verdict_status=draft.verdict_status,
                submitted_at=draft.submitted_at,
            )
            .returning(AnswerRow)
        )
        try:
            with self._transaction() as session:
                return _answer(session.scalars(stmt).one())
        except IntegrityError:
            # A double click or a second replica: the attempt is stored once. Anything else
            # (an unknown round or member) is a bug and must surface.
            if not any(
                a.attempt == draft.attempt for a in self.answers_for(draft.round_id, draft.user_id)
            ):
                raise
            log.info(
                "answer already recorded: round=%s user=%s attempt=%s",
                draft.round_id,
                draft.user_id,
                draft.attempt,
            )
            return None

    def answers_for(self, round_id: int, user_id: int) -> list[AnswerRecord]:
        """Return a member's answers to a round, by attempt."""
        stmt = (
            select(AnswerRow)
            .where(AnswerRow.round_id == round_id, AnswerRow.user_id == user_id)
            .order_by(AnswerRow.attempt)
        )
        with self._transaction() as session:
            return [_answer(row) for row in session.scalars(stmt)]

    def tally(self, round_id: int) -> Tally:
        """Return how many members solved and attempted the round."""
        stmt = select(
            func.count(distinct(case((AnswerRow.correct, AnswerRow.user_id)))),
            func.count(distinct(AnswerRow.user_id)),
        ).where(AnswerRow.round_id == round_id)
        with self._transaction() as session:
            solved, attempted = session.execute(stmt).one()
        return Tally(solved=solved, attempted=attempted)

    def scores(self, channel_id: int, since: dt.datetime | None = None) -> list[ScoreRow]:
        """Return every member's points in the channel, for answers at or after ``since``.

        Rows come best first: points, then rounds solved, then who solved last the earliest,
        then member id, so ties always break the same way.
        """
        points = func.sum(AnswerRow.points)
        solved = func.count(distinct(case((AnswerRow.correct, AnswerRow.round_id))))
        attempted = func.count(distinct(AnswerRow.round_id))
        first_try = func.count(case((and_(AnswerRow.correct, AnswerRow.attempt == 1), 1)))
        last_solved_at = func.max(case((AnswerRow.correct, AnswerRow.submitted_at)))
        stmt = (
            select(
                AnswerRow.user_id,
                UserRow.display_name,
                points,
                solved,
                first_try,
                last_solved_at,
                attempted,
            )
            .join(RoundRow, RoundRow.id == AnswerRow.round_id)
            .join(UserRow, UserRow.id == AnswerRow.user_id)
            .where(RoundRow.channel_id == channel_id)
            .group_by(AnswerRow.user_id, UserRow.display_name)
            .order_by(
                points.desc(), solved.desc(), last_solved_at.asc().nulls_last(), AnswerRow.user_id
            )
        )
        if since is not None:
            stmt = stmt.where(AnswerRow.submitted_at >= since)
        with self._transaction() as session:
            rows = session.execute(stmt).all()
        return [
            ScoreRow(
                user_id=user_id,
                display_name=name,
                points=int(total),
                solved=n_solved,
                first_try=n_first,
                last_solved_at=last,
                attempted=n_attempted,
            )
            for user_id, name, total, n_solved, n_first, last, n_attempted in rows
        ]

    def solved_dates(self, channel_id: int, user_id: int) -> list[dt.date]:
        """Return the local dates of rounds the member solved, oldest first."""
        stmt = (
            select(RoundRow.local_date)
            .join(AnswerRow, AnswerRow.round_id == RoundRow.id)
            .where(
                RoundRow.channel_id == channel_id,
                AnswerRow.user_id == user_id,
                AnswerRow.correct.is_(True),
            )
            .distinct()
            .order_by(RoundRow.local_date)
        )
        with self._transaction() as session:
            return list(session.scalars(stmt))

    def item_results(self, user_id: int, channel_id: int | None = None) -> list[ItemResult]:
        """Return the member's final outcome per daily round and practice answer.

        A daily round counts as correct when any attempt was, at the time of the last attempt.
        ``channel_id`` narrows the daily rounds; practice is not tied to a channel, so practice
        results are always included. Oldest first.
        """
        daily = (
            select(
                RoundRow.item_id,
                func.max(case((AnswerRow.correct, 1), else_=0)),
                func.max(AnswerRow.submitted_at),
            )
            .join(AnswerRow, AnswerRow.round_id == RoundRow.id)
            .where(AnswerRow.user_id == user_id)
            .group_by(RoundRow.id, RoundRow.item_id)
        )
        if channel_id is not None:
            daily = daily.where(RoundRow.channel_id == channel_id)
        practice = select(
            PracticeResultRow.item_id, PracticeResultRow.correct, PracticeResultRow.answered_at
        ).where(PracticeResultRow.user_id == user_id)
        with self._transaction() as session:
            results = [
                ItemResult(item_id=item_id, correct=bool(correct), answered_at=at)
                for item_id, correct, at in [*session.execute(daily), *session.execute(practice)]
            ]
        return sorted(results, key=lambda r: (r.answered_at, r.item_id))
