"""Live sessions on SQLAlchemy: the LiveStore port (bot/core/live/store.py).

Each transition is one conditional UPDATE whose row count says who won, so replicas and a
restarted process advance one session without posting or revealing anything twice; an
answer is an INSERT that does nothing on the (session, question, member) key.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from bot.core.kernel.models import (
    LiveAnswer,
    LiveDraft,
    LivePlayer,
    LiveQuestion,
    LiveSession,
    LiveStatus,
    Review,
    Row,
)
from bot.core.kernel.models import week_start as week_of
from db.retry import retry_on_disconnect, run_retrying
from db.store_answers import lock_channel_answers_shared
from db.store_base import StoreBase, rowcount
from db.tables import (
    RESPONSE_MAX_CHARS,
    ChannelRow,
    LiveAnswerRow,
    LivePlayerRow,
    LiveQuestionRow,
    LiveSessionRow,
    ReviewRow,
    UserRow,
    WeekTotalRow,
)

_NOT_ENDED = (LiveStatus.LOBBY.value, LiveStatus.RUNNING.value, LiveStatus.PAUSED.value,
              LiveStatus.ENDING.value)


def _session(row: LiveSessionRow) -> LiveSession:
    return LiveSession(
        id=row.id, channel_id=row.channel_id, status=LiveStatus(row.status),
        question_count=row.question_count, current=row.current,
        lobby_ends_at=row.lobby_ends_at, created_at=row.created_at,
        topics=tuple(row.topics or ()), ended_at=row.ended_at, counted=row.counted,
        lobby_posted=row.lobby_posted, paused_at=row.paused_at, thread_ref=row.thread_ref)


def _question(row: LiveQuestionRow) -> LiveQuestion:
    return LiveQuestion(
        session_id=row.session_id, position=row.position, item_id=row.item_id,
        item_version=row.item_version, seconds=row.seconds, opened_at=row.opened_at,
        closes_at=row.closes_at, closed_at=row.closed_at)


def live_answer_rows(session: Session, user_id: int, _workspace_id: int | None) -> list[Row]:
    """Return a member's live answers for their data export (db/store_members.py)."""
    stmt = (select(LiveAnswerRow.session_id, LiveQuestionRow.item_id,
                   LiveQuestionRow.item_version, LiveAnswerRow.response, LiveAnswerRow.correct,
                   LiveAnswerRow.points, LiveAnswerRow.elapsed_ms, LiveAnswerRow.answered_at,
                   LiveAnswerRow.code)
            .join(LiveQuestionRow, (LiveQuestionRow.session_id == LiveAnswerRow.session_id)
                  & (LiveQuestionRow.position == LiveAnswerRow.position))
            .where(LiveAnswerRow.user_id == user_id)
            .order_by(LiveAnswerRow.answered_at, LiveAnswerRow.id))
    return [dict(row._mapping) for row in session.execute(stmt)]


def live_player_rows(session: Session, user_id: int, _workspace_id: int | None) -> list[Row]:
    """Return the live sessions a member joined, for their data export."""
    stmt = (select(LivePlayerRow.session_id, LivePlayerRow.joined_at, LivePlayerRow.host)
            .where(LivePlayerRow.user_id == user_id)
            .order_by(LivePlayerRow.joined_at, LivePlayerRow.session_id))
    return [dict(row._mapping) for row in session.execute(stmt)]


class LiveStore(StoreBase):
    """The live sessions part of the QuizStore port."""

    def create_live(self, draft: LiveDraft) -> LiveSession | None:
        """Open a session with its questions, the host joined; None: the channel has one."""
        try:
            with self._transaction() as session:
                row = LiveSessionRow(
                    channel_id=draft.channel_id, active_channel_id=draft.channel_id,
                    status=LiveStatus.LOBBY.value, question_count=len(draft.questions),
                    current=-1, topics=list(draft.topics), lobby_ends_at=draft.lobby_ends_at,
                    created_at=draft.created_at, lobby_posted=False)
                session.add(row)
                session.flush()
                session.add_all(
                    LiveQuestionRow(session_id=row.id, position=position, item_id=item_id,
                                    item_version=version, seconds=seconds)
                    for position, (item_id, version, seconds) in enumerate(draft.questions))
                session.add(LivePlayerRow(session_id=row.id, user_id=draft.host_id,
                                          joined_at=draft.created_at, host=True))
                session.flush()
                return _session(row)
        except IntegrityError:
            # Only a session already running in the channel means None; anything else is a bug.
            if self.active_live(draft.channel_id) is None:
                raise
            return None

    @retry_on_disconnect
    def active_live(self, channel_id: int) -> LiveSession | None:
        """Return the channel's session that has not ended, if any."""
        with self._read() as session:
            row = session.scalars(select(LiveSessionRow).where(
                LiveSessionRow.active_channel_id == channel_id)).one_or_none()
            return _session(row) if row is not None else None

    @retry_on_disconnect
    def get_live(self, session_id: int) -> LiveSession | None:
        """Return a session by id, ended or not."""
        with self._read() as session:
            row = session.get(LiveSessionRow, session_id)
            return _session(row) if row is not None else None

    @retry_on_disconnect
    def active_lives(self, platform: str) -> list[LiveSession]:
        """Return every session not ended in a channel of ``platform``, oldest first."""
        with self._read() as session:
            rows = session.scalars(
                select(LiveSessionRow)
                .join(ChannelRow, ChannelRow.id == LiveSessionRow.channel_id)
                .where(LiveSessionRow.status.in_(_NOT_ENDED), ChannelRow.platform == platform)
                .order_by(LiveSessionRow.id))
            return [_session(r) for r in rows]

    @retry_on_disconnect
    def live_questions(self, session_id: int) -> list[LiveQuestion]:
        """Return the session's questions in the order they are asked."""
        with self._read() as session:
            rows = session.scalars(select(LiveQuestionRow)
                                   .where(LiveQuestionRow.session_id == session_id)
                                   .order_by(LiveQuestionRow.position))
            return [_question(r) for r in rows]

    @retry_on_disconnect
    def live_players(self, session_id: int) -> list[LivePlayer]:
        """Return who joined the session, in the order they joined."""
        with self._read() as session:
            rows = session.execute(
                select(LivePlayerRow, UserRow.display_name, UserRow.hidden)
                .join(UserRow, UserRow.id == LivePlayerRow.user_id)
                .where(LivePlayerRow.session_id == session_id)
                .order_by(LivePlayerRow.joined_at, LivePlayerRow.user_id))
            return [LivePlayer(p.session_id, p.user_id, name, p.joined_at, p.host, hidden)
                    for p, name, hidden in rows]

    @retry_on_disconnect
    def live_answers(self, session_id: int) -> list[LiveAnswer]:
        """Return every answer of the session, by question then time."""
        with self._read() as session:
            rows = session.execute(
                select(LiveAnswerRow, UserRow.display_name, UserRow.hidden)
                .join(UserRow, UserRow.id == LiveAnswerRow.user_id)
                .where(LiveAnswerRow.session_id == session_id)
                .order_by(LiveAnswerRow.position, LiveAnswerRow.answered_at, LiveAnswerRow.id))
            return [LiveAnswer(a.session_id, a.position, a.user_id, a.response, a.correct,
                               a.points, a.answered_at, a.elapsed_ms, name, hidden, a.pending)
                    for a, name, hidden in rows]

    @retry_on_disconnect
    def pending_live_answers(self, session_id: int, position: int) -> list[LiveAnswer]:
        """Return the question's code answers the sandbox has yet to grade, with their code."""
        with self._read() as session:
            rows = session.scalars(
                select(LiveAnswerRow).where(LiveAnswerRow.session_id == session_id,
                                            LiveAnswerRow.position == position,
                                            LiveAnswerRow.pending.is_(True))
                .order_by(LiveAnswerRow.answered_at, LiveAnswerRow.id))
            return [LiveAnswer(a.session_id, a.position, a.user_id, a.response, a.correct,
                               a.points, a.answered_at, a.elapsed_ms, pending=True, code=a.code)
                    for a in rows]

    @retry_on_disconnect
    def grade_live_answer(self, graded: LiveAnswer, review: Review | None = None) -> bool:
        """Record a pending code answer's grade (and the member's card); False: graded already.

        A conditional UPDATE on the pending flag: however many replicas grade the answer, one
        grade is recorded, once.
        """
        with self._transaction() as session:
            won = rowcount(session, update(LiveAnswerRow).where(
                LiveAnswerRow.session_id == graded.session_id,
                LiveAnswerRow.position == graded.position,
                LiveAnswerRow.user_id == graded.user_id, LiveAnswerRow.pending.is_(True),
            ).values(pending=False, correct=graded.correct, points=graded.points,
                     response=graded.response[:RESPONSE_MAX_CHARS])) > 0
            if won and review is not None:
                self._save_card(session, review)
            return won

    def join_live(self, session_id: int, user_id: int, at: dt.datetime) -> bool:
        """Add the member to the session's players; False when they had joined already."""
        with self._transaction() as session:
            return self._join(session, session_id, user_id, at) > 0

    def _join(self, session: Session, session_id: int, user_id: int, at: dt.datetime) -> int:
        stmt = (self._upsert(LivePlayerRow)
                .values(session_id=session_id, user_id=user_id, joined_at=at, host=False)
                .on_conflict_do_nothing(index_elements=["session_id", "user_id"])
                .returning(LivePlayerRow.user_id))
        # RETURNING, not rowcount: the row came back only if this call inserted it.
        return len(session.connection().execute(stmt).all())

    def record_live_answer(self, answer: LiveAnswer, review: Review | None = None) -> bool:
        """Keep a player's answer (joining them); False: they answered it, or it is closed.

        ``review``: the member's FSRS card after this answer, saved in the same transaction
        when the answer is kept (one transaction per answer at a question's peak).

        Retried once when the connection drops (a database restarted mid-question): the first
        try may have committed before the connection went, so the retry recognises this very
        answer (same response, same instant) and says kept, not "answered already".
        """
        return run_retrying(self._engine, "record_live_answer",
                            lambda retried: self._record_live_answer(answer, review, retried))

    def _record_live_answer(self, answer: LiveAnswer, review: Review | None,
                            retried: bool) -> bool:
        if retried and self._live_answer_kept(answer):
            return True
        with self._transaction() as session:
            # The question's row is the lock an answer and the close both take: an answer
            # lands before the reveal counts it, or not at all. A shared lock: answers to one
            # question do not wait for each other, only the close (an UPDATE) waits for them.
            question = session.scalars(
                select(LiveQuestionRow).where(
                    LiveQuestionRow.session_id == answer.session_id,
                    LiveQuestionRow.position == answer.position)
                .with_for_update(read=True)).one_or_none()
            if question is None or question.opened_at is None or question.closed_at is not None:
                return False
            self._join(session, answer.session_id, answer.user_id, answer.answered_at)
            values: dict[str, Any] = {
                "session_id": answer.session_id, "position": answer.position,
                "user_id": answer.user_id, "response": answer.response,
                "correct": answer.correct, "points": answer.points,
                "answered_at": answer.answered_at, "elapsed_ms": answer.elapsed_ms,
                "pending": answer.pending, "code": answer.code,
            }
            stmt = (self._upsert(LiveAnswerRow).values(**values)
                    .on_conflict_do_nothing(
                        index_elements=["session_id", "position", "user_id"])
                    .returning(LiveAnswerRow.id))
            if session.connection().execute(stmt).first() is None:
                return False
            if review is not None:
                self._save_card(session, review)
            return True

    def _save_card(self, session: Session, review: Review) -> None:
        card = {"state": review.state, "step": review.step, "stability": review.stability,
                "difficulty": review.difficulty, "due_at": review.due_at,
                "last_correct": review.last_correct, "reviewed_at": review.reviewed_at}
        session.execute(self._upsert(ReviewRow)
                        .values(user_id=review.user_id, item_id=review.item_id, **card)
                        .on_conflict_do_update(index_elements=["user_id", "item_id"], set_=card))

    def _live_answer_kept(self, answer: LiveAnswer) -> bool:
        with self._read() as session:
            row = session.scalars(select(LiveAnswerRow).where(
                LiveAnswerRow.session_id == answer.session_id,
                LiveAnswerRow.position == answer.position,
                LiveAnswerRow.user_id == answer.user_id)).one_or_none()
        return (row is not None and row.response == answer.response
                and row.elapsed_ms == answer.elapsed_ms)

    def set_live_thread(self, session_id: int, ref: str) -> bool:
        """Keep the thread started on the session's lobby; False when it has one already."""
        with self._transaction() as session:
            return rowcount(session, update(LiveSessionRow).where(
                LiveSessionRow.id == session_id, LiveSessionRow.thread_ref.is_(None),
            ).values(thread_ref=ref[:128])) > 0

    def drop_live_thread(self, session_id: int, ref: str) -> bool:
        """Forget the session's thread ``ref`` (it is gone); False: forgotten already."""
        with self._transaction() as session:
            return rowcount(session, update(LiveSessionRow).where(
                LiveSessionRow.id == session_id, LiveSessionRow.thread_ref == ref[:128],
            ).values(thread_ref=None)) > 0

    def claim_live_lobby(self, session_id: int) -> bool:
        """Claim the posting of the session's lobby; False when it was claimed already."""
        with self._transaction() as session:
            return rowcount(session, update(LiveSessionRow).where(
                LiveSessionRow.id == session_id, LiveSessionRow.lobby_posted.is_(False),
            ).values(lobby_posted=True)) > 0

    def open_live_question(self, session_id: int, position: int, opened_at: dt.datetime,
                           closes_at: dt.datetime) -> bool:
        """Post question ``position`` (the one after the session's current); False: lost."""
        with self._transaction() as session:
            moved = rowcount(session, update(LiveSessionRow).where(
                LiveSessionRow.id == session_id, LiveSessionRow.current == position - 1,
                LiveSessionRow.status.in_((LiveStatus.LOBBY.value, LiveStatus.RUNNING.value)),
                LiveSessionRow.question_count > position,
            ).values(current=position, status=LiveStatus.RUNNING.value))
            if not moved:
                return False
            session.execute(update(LiveQuestionRow).where(
                LiveQuestionRow.session_id == session_id, LiveQuestionRow.position == position,
            ).values(opened_at=opened_at, closes_at=closes_at))
            return True

    def close_live_question(self, session_id: int, position: int, at: dt.datetime) -> bool:
        """Close an open question for its reveal; False when it was closed already."""
        with self._transaction() as session:
            return rowcount(session, update(LiveQuestionRow).where(
                LiveQuestionRow.session_id == session_id, LiveQuestionRow.position == position,
                LiveQuestionRow.opened_at.is_not(None), LiveQuestionRow.closed_at.is_(None),
            ).values(closed_at=at)) > 0

    def hurry_live(self, session_id: int, at: dt.datetime) -> bool:
        """Bring the lobby's end, or the open question's deadline, forward to ``at``."""
        with self._transaction() as session:
            row = session.scalars(select(LiveSessionRow).where(
                LiveSessionRow.id == session_id).with_for_update()).one_or_none()
            if row is None:
                return False
            if row.status == LiveStatus.LOBBY.value:
                row.lobby_ends_at = min(row.lobby_ends_at, at)
                return True
            if row.status != LiveStatus.RUNNING.value:
                return False
            return rowcount(session, update(LiveQuestionRow).where(
                LiveQuestionRow.session_id == session_id,
                LiveQuestionRow.position == row.current,
                LiveQuestionRow.opened_at.is_not(None), LiveQuestionRow.closed_at.is_(None),
                LiveQuestionRow.closes_at > at,
            ).values(closes_at=at)) > 0

    def pause_live(self, session_id: int, at: dt.datetime) -> bool:
        """Stop the open question's clock, keeping its time left; False: nothing to pause."""
        with self._transaction() as session:
            row = self._locked(session, session_id)
            if row is None or row.status != LiveStatus.RUNNING.value:
                return False
            question = session.scalars(select(LiveQuestionRow).where(
                LiveQuestionRow.session_id == session_id,
                LiveQuestionRow.position == row.current).with_for_update()).one()
            if question.closed_at is not None or question.closes_at is None \
                    or question.closes_at <= at:
                return False
            row.status = LiveStatus.PAUSED.value
            row.paused_at = at
            row.paused_left_ms = int((question.closes_at - at).total_seconds() * 1000)
            return True

    def resume_live(self, session_id: int, at: dt.datetime) -> bool:
        """Start the paused question's clock again with its time left; False: not paused."""
        with self._transaction() as session:
            row = self._locked(session, session_id)
            if row is None or row.status != LiveStatus.PAUSED.value:
                return False
            closes_at = at + dt.timedelta(milliseconds=row.paused_left_ms or 0)
            session.execute(update(LiveQuestionRow).where(
                LiveQuestionRow.session_id == session_id,
                LiveQuestionRow.position == row.current).values(closes_at=closes_at))
            row.status = LiveStatus.RUNNING.value
            row.paused_at = None
            row.paused_left_ms = None
            return True

    @staticmethod
    def _locked(session: Session, session_id: int) -> LiveSessionRow | None:
        return session.scalars(select(LiveSessionRow).where(
            LiveSessionRow.id == session_id).with_for_update()).one_or_none()

    def request_live_end(self, session_id: int) -> bool:
        """Mark a session to end at its next advance; False when it is ending already."""
        with self._transaction() as session:
            return rowcount(session, update(LiveSessionRow).where(
                LiveSessionRow.id == session_id,
                LiveSessionRow.status.in_((LiveStatus.LOBBY.value, LiveStatus.RUNNING.value,
                                           LiveStatus.PAUSED.value)),
            ).values(status=LiveStatus.ENDING.value)) > 0

    def finish_live(self, session_id: int, at: dt.datetime, counted: bool,
                    on_board: bool = False) -> bool:
        """End the session (its channel may open another); False when it had ended.

        ``on_board``: add each player's points to the channel's weekly totals, in the week
        (in the channel's zone) of each answer, in this transaction: the ending that wins adds
        them once. A few statements whatever the number of players or answers; the boards'
        reads stay as they are.
        """
        with self._transaction() as session:
            ended = session.execute(update(LiveSessionRow).where(
                LiveSessionRow.id == session_id, LiveSessionRow.status.in_(_NOT_ENDED),
            ).values(status=LiveStatus.ENDED.value, active_channel_id=None, ended_at=at,
                     counted=counted, on_board=on_board)
                .returning(LiveSessionRow.channel_id)).first()
            if ended is None:
                return False
            if on_board:
                self._add_to_weeks(session, session_id, ended.channel_id)
            return True

    def _add_to_weeks(self, session: Session, session_id: int, channel_id: int) -> None:
        """Add the session's points to the weekly totals, as the answers' weeks hold them."""
        # As record_answer: a change of zone (which recounts the week) waits for this one, and
        # the zone is read after the lock.
        lock_channel_answers_shared(session, channel_id)
        rows = session.execute(
            select(ChannelRow.timezone, LiveAnswerRow.user_id, LiveAnswerRow.points,
                   LiveAnswerRow.answered_at)
            .join(LiveSessionRow, LiveSessionRow.channel_id == ChannelRow.id)
            .join(LiveAnswerRow, LiveAnswerRow.session_id == LiveSessionRow.id)
            .where(LiveSessionRow.id == session_id, LiveAnswerRow.points > 0)).all()
        added: dict[tuple[int, dt.datetime], int] = {}
        for zone, user_id, points, answered_at in rows:
            key = (user_id, week_of(answered_at, zone))
            added[key] = added.get(key, 0) + points
        if not added:
            return
        stmt = self._upsert(WeekTotalRow)
        session.execute(
            stmt.on_conflict_do_update(
                index_elements=["channel_id", "week_start", "user_id"],
                set_={"points": WeekTotalRow.points + stmt.excluded.points}),
            [{"channel_id": channel_id, "week_start": week, "user_id": user_id,
              "points": points, "solved": 0, "first_try": 0, "attempted": 0,
              "last_solved_at": None}
             for (user_id, week), points in sorted(added.items())])
