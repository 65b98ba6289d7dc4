"""Store code answers that wait for an executor, and hand each to one grader at a time."""

from __future__ import annotations

import datetime as dt
import logging
import secrets

from sqlalchemy import Engine, and_, delete, exists, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from bot.core.kernel.models import AnswerDraft, AnswerMode, PendingAnswer, PendingDraft
from db.retry import retry_on_disconnect, run_retrying
from db.store_answers import AnswerStore
from db.store_base import rowcount
from db.tables import ChannelRow, PendingAnswerRow, RoundRow

log = logging.getLogger(__name__)

_CANDIDATES = 8  # heads of queues looked at per claim; another replica may take some first


def _pending(row: PendingAnswerRow) -> PendingAnswer:
    """Return the pending answer row as the core's value."""
    return PendingAnswer(
        id=row.id,
        round_id=row.round_id,
        user_id=row.user_id,
        mode=AnswerMode(row.mode),
        response=row.response,
        locale=row.locale,
        submitted_at=row.submitted_at,
        claim=row.claim,
    )


class _AlreadyRecorded(Exception):
    """The attempt a pending answer was graded as is already stored: roll back, keep it."""


class PendingStore(AnswerStore):
    """Pending answers of the QuizStore port: add, claim, release, resolve.

    An AnswerStore: a resolved pending answer is recorded as every answer is, totals included.
    """

    def add_pending(self, draft: PendingDraft) -> PendingAnswer:
        """Store a code answer to grade later."""
        stmt = (
            insert(PendingAnswerRow)
            .values(
                round_id=draft.round_id,
                user_id=draft.user_id,
                mode=draft.mode.value,
                response=draft.response,
                locale=draft.locale,
                submitted_at=draft.submitted_at,
            )
            .returning(PendingAnswerRow)
        )
        with self._transaction() as session:
            return _pending(session.scalars(stmt).one())

    def _done_before(self, session: Session, pending_id: int, draft: AnswerDraft | None) -> bool:
        """Return whether this resolution's first try committed: the row gone, the answer in.

        Only our claim could delete the row in the seconds a retry takes (another replica
        reclaims a pending answer only once its claim is stale, minutes later).
        """
        if session.get(PendingAnswerRow, pending_id) is not None:
            return False
        return draft is None or self.stored_as(draft) is not None

    @retry_on_disconnect
    def pending_for(self, round_id: int, user_id: int) -> list[PendingAnswer]:
        """Return a member's pending answers to a round, oldest first."""
        stmt = (
            select(PendingAnswerRow)
            .where(PendingAnswerRow.round_id == round_id, PendingAnswerRow.user_id == user_id)
            .order_by(PendingAnswerRow.id)
        )
        with self._transaction() as session:
            return [_pending(row) for row in session.scalars(stmt)]

    def claim_pending(
        self, platform: str | None, now: dt.datetime, stale_before: dt.datetime
    ) -> PendingAnswer | None:
        """Claim the oldest pending answer that is first in its member's queue."""
        free = or_(PendingAnswerRow.claim.is_(None), PendingAnswerRow.claimed_at < stale_before)
        earlier = aliased(PendingAnswerRow)
        head_of_queue = ~exists().where(
            earlier.round_id == PendingAnswerRow.round_id,
            earlier.user_id == PendingAnswerRow.user_id,
            earlier.id < PendingAnswerRow.id,
        )
        candidates = (
            select(PendingAnswerRow.id)
            .join(RoundRow, RoundRow.id == PendingAnswerRow.round_id)
            .join(ChannelRow, ChannelRow.id == RoundRow.channel_id)
            .where(free, head_of_queue)
            .order_by(PendingAnswerRow.id)
            .limit(_CANDIDATES)
        )
        if platform is not None:
            candidates = candidates.where(ChannelRow.platform == platform)
        token = secrets.token_hex(16)
        with self._transaction() as session:
            for pending_id in session.scalars(candidates).all():
                # The conditional update is the claim: of two replicas, one changes the row.
                claimed = rowcount(session, update(PendingAnswerRow)
                                   .where(PendingAnswerRow.id == pending_id, free)
                                   .values(claim=token, claimed_at=now))
                if claimed == 1:
                    row = session.get_one(PendingAnswerRow, pending_id)
                    session.refresh(row)
                    return _pending(row)
        return None

    @retry_on_disconnect
    def release_pending(self, pending_id: int, claim: str) -> None:
        """Give a claimed pending answer back, to be graded on a later sweep."""
        with self._transaction() as session:
            rowcount(session, update(PendingAnswerRow)
                     .where(PendingAnswerRow.id == pending_id, PendingAnswerRow.claim == claim)
                     .values(claim=None, claimed_at=None))

    def resolve_pending(self, pending_id: int, claim: str, draft: AnswerDraft | None) -> bool:
        """Remove a claimed pending answer and record ``draft`` (if any) in one transaction.

        Retried once when the connection drops (db.retry): a first try that committed
        unseen is recognised by its work being done (see _done_before), not taken for
        another replica's.
        """
        return run_retrying(
            self._engine, "resolve_pending",
            lambda retried: self._resolve(pending_id, claim, draft, retried),
        )

    def _resolve(
        self, pending_id: int, claim: str, draft: AnswerDraft | None, retried: bool
    ) -> bool:
        ours = and_(PendingAnswerRow.id == pending_id, PendingAnswerRow.claim == claim)
        try:
            with self._transaction() as session:
                if rowcount(session, delete(PendingAnswerRow).where(ours)) != 1:
                    if retried and self._done_before(session, pending_id, draft):
                        log.info("pending answer %s was resolved before the connection dropped",
                                 pending_id)
                        return True
                    log.info("pending answer %s was resolved by another claim", pending_id)
                    return False
                # The answer is recorded with its totals, as record_answer does; a duplicate
                # undoes the deletion too, as before.
                if draft is not None and self._record(session.connection(), draft) is None:
                    raise _AlreadyRecorded
        except (IntegrityError, _AlreadyRecorded):
            # That attempt was recorded meanwhile: nothing changed; the claim lapses and the
            # answer is graded again, as the member's next attempt.
            log.warning("pending answer %s: attempt %s already recorded", pending_id,
                        draft.attempt if draft else None)
            return False
        return True


def count_pending(engine: Engine, platform: str) -> int:
    """Return the platform's pending answers, read straight from the tables (no retry).

    The chat processes' health check: a trivial query that needs the real schema, so a SQLite
    file that vanished (and came back empty) fails it as surely as a PostgreSQL that went away.
    """
    query = (select(func.count()).select_from(PendingAnswerRow)
             .join(RoundRow, RoundRow.id == PendingAnswerRow.round_id)
             .join(ChannelRow, ChannelRow.id == RoundRow.channel_id)
             .where(ChannelRow.platform == platform))
    with engine.connect() as connection:
        return int(connection.execute(query).scalar_one())
