"""Answer the reads a chat request starts with in one transaction each.

A click on a round's button needs the member (registered or renamed), the round and the
round's channel; the answer then needs the member's earlier tries. Asked one by one those were
five transactions before any judging; here they are two.
"""

from __future__ import annotations

from sqlalchemy import String, Table, and_, bindparam, case, func, or_, select
from sqlalchemy.orm import Session

from bot.core.kernel.models import Attempts, Resolved, Review
from db.forgotten import forgotten_mark, former_tries
from db.retry import retry_on_disconnect
from db.store_base import StoreBase
from db.store_channels import _channels, upsert_member
from db.store_practice import _review
from db.store_rounds import _round
from db.tables import AnswerRow, ChannelRow, PendingAnswerRow, ReviewRow, RoundRow, UserRow


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
        # Two prebuilt statements on a Core connection (four through the ORM before): the
        # member with their card, then their tries with those waiting. Every answer asks.
        with self._reading() as connection:
            who = connection.execute(_MEMBER_CARD, {"user_id": user_id, "item_id": item_id}
                                     ).first()
            mark = forgotten_mark(round_id, who.platform, who.external_id) if who else None
            tried, solved, waiting = connection.execute(
                _TRIES, {"round_id": round_id, "user_id": user_id, "mark": mark}).one()
        card = _review(who) if who is not None and who.item_id is not None else None
        return Attempts(solved=bool(solved), tried=int(tried), waiting=int(waiting)), card


_REVIEWS = Table("reviews", ReviewRow.metadata)
_ANSWERS = Table("answers", AnswerRow.metadata)
_PENDING = Table("pending_answers", PendingAnswerRow.metadata)
_USERS = Table("users", UserRow.metadata)
# The member's platform ids (for the mark of their forgotten tries) and their card of the item.
_MEMBER_CARD = (
    select(_USERS.c.platform, _USERS.c.external_id, *_REVIEWS.c)
    .outerjoin(_REVIEWS, and_(_REVIEWS.c.user_id == _USERS.c.id,
                              _REVIEWS.c.item_id == bindparam("item_id")))
    .where(_USERS.c.id == bindparam("user_id"))
)
# The member's tries at the round (forgotten ones, marked, too: db/forgotten.py), whether one
# was right, and how many of their code answers still wait to be graded.
_TRIES = select(
    func.count(),
    func.coalesce(func.max(case((_ANSWERS.c.correct, 1), else_=0)), 0),
    select(func.count()).select_from(_PENDING)
    .where(_PENDING.c.round_id == bindparam("round_id"),
           _PENDING.c.user_id == bindparam("user_id"))
    .scalar_subquery(),
).where(
    _ANSWERS.c.round_id == bindparam("round_id"),
    or_(_ANSWERS.c.user_id == bindparam("user_id"),
        _ANSWERS.c.forgotten_mark == bindparam("mark", type_=String)),
)


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
