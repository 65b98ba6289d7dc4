"""Answer the reads a chat request starts with in one transaction each.

A click on a round's button needs the member (registered or renamed), the round and the
round's channel; the answer then needs the member's earlier tries. Asked one by one those were
five transactions before any judging; here they are two.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bot.core.kernel.models import Attempts, Resolved, Review
from db.forgotten import former_tries
from db.retry import retry_on_disconnect
from db.store_base import StoreBase
from db.store_channels import _channels, upsert_member
from db.store_practice import _review
from db.store_rounds import _round
from db.tables import AnswerRow, ChannelRow, PendingAnswerRow, ReviewRow, RoundRow


class RequestStore(StoreBase):
    """Resolve who and where a request comes from, and what the member tried before."""

    @retry_on_disconnect  # an upsert and reads: the same result when run twice
    def resolve(
        self,
        platform: str,
        user_external_id: str,
        display_name: str,
        channel_external_id: str = "",
        round_id: int | None = None,
    ) -> Resolved:
        """Return the member (created or renamed), the channel and the round, in one transaction.

        With ``round_id`` the channel is the round's own (a button names its round, wherever it
        was clicked); otherwise the channel known by ``channel_external_id`` on ``platform``.
        """
        with self._transaction() as session:
            member = upsert_member(self, session, platform, user_external_id, display_name)
            rnd = None
            if round_id is not None:
                row = session.execute(select(RoundRow.__table__).where(
                    RoundRow.id == round_id)).first()
                rnd = _round(row) if row is not None else None
            if rnd is not None:
                found = _channels(session, ChannelRow.id == rnd.channel_id)
            elif channel_external_id and round_id is None:
                found = _channels(session, ChannelRow.platform == platform,
                                  ChannelRow.external_id == channel_external_id)
            else:
                found = []
            return Resolved(member, found[0] if found else None, rnd)

    @retry_on_disconnect
    def attempts(self, round_id: int, user_id: int) -> Attempts:
        """Return the member's recorded answers to the round and how many still wait.

        Tries the same person left before asking to be forgotten count as theirs (db/forgotten).
        """
        with self._read() as session:
            return _attempts(session, round_id, user_id)

    @retry_on_disconnect
    def answer_state(self, round_id: int, user_id: int, item_id: str
                     ) -> tuple[Attempts, Review | None]:
        """Return ``attempts`` and the member's FSRS card of the item, in one transaction.

        What judging and recording an answer read: with ``resolve`` before and the answer's
        write after, an answer is three transactions.
        """
        with self._read() as session:
            card = session.get(ReviewRow, (user_id, item_id))
            return _attempts(session, round_id, user_id), (_review(card) if card else None)


def _attempts(session: Session, round_id: int, user_id: int) -> Attempts:
    """Return the member's tries at the round (forgotten ones too) and how many wait."""
    answers = session.scalars(
        select(AnswerRow)
        .where(AnswerRow.round_id == round_id, former_tries(session, round_id, user_id))
        .order_by(AnswerRow.attempt)
    ).all()
    waiting = session.scalar(
        select(func.count()).select_from(PendingAnswerRow).where(
            PendingAnswerRow.round_id == round_id, PendingAnswerRow.user_id == user_id)
    ) or 0
    return Attempts(
        solved=any(a.correct for a in answers), tried=len(answers), waiting=int(waiting)
    )
