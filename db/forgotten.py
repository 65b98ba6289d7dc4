"""A forgotten member's tries at a round still open: anonymous facts that keep the round fair.

When a member asks to be forgotten, their tries at open rounds are not deleted but cut from
them (``answers.user_id`` null), so the round's first-try figures hold; each carries a one-way
mark of the round and the person until the round closes, so that the same person, back under a
new member row, goes on from their next try instead of starting the round over. The reads of a
member's tries (``former_tries``) count those marked tries as theirs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy import ColumnElement, case, select, update
from sqlalchemy.orm import Session

from bot.core.kernel.models import AnswerMode, Member, RoundStatus
from db.store_base import rowcount
from db.tables import AnswerRow, PendingAnswerRow, RoundRow, UserRow


def forgotten_mark(round_id: int, platform: str, external_id: str) -> str:
    """Return the mark a forgotten member's tries at an open round carry until it closes.

    A one-way hash of the round and the person: it tells whether someone who answers is the
    person who left those tries, and nothing else. Salted by the round, so two rounds' marks of
    one person cannot be linked; it is erased when the round closes (``clear_forgotten_marks``).
    """
    return hashlib.sha256(f"{round_id}\0{platform}\0{external_id}".encode()).hexdigest()


def former_tries(session: Session, round_id: int, user_id: int) -> ColumnElement[bool]:
    """Return the condition that picks the member's tries at the round, forgotten ones too."""
    member = session.execute(select(UserRow.platform, UserRow.external_id)
                             .where(UserRow.id == user_id)).one_or_none()
    mine = AnswerRow.user_id == user_id
    if member is None:
        return mine
    mark = forgotten_mark(round_id, member.platform, member.external_id)
    return mine | (AnswerRow.forgotten_mark == mark)


def clear_forgotten_marks(session: Session) -> None:
    """Erase the marks of closed rounds, once no code answer of theirs waits to be graded.

    A code answer kept pending is graded after the close and counts as the try it was, so the
    mark stays until it is: the person's earlier tries still number it.
    """
    session.execute(
        update(AnswerRow)
        .where(AnswerRow.forgotten_mark.is_not(None),
               AnswerRow.round_id.in_(select(RoundRow.id).where(
                   RoundRow.status == RoundStatus.CLOSED.value)),
               AnswerRow.round_id.not_in(select(PendingAnswerRow.round_id)))
        .values(forgotten_mark=None)
    )


def anonymise_open_tries(session: Session, member: Member, round_ids: Sequence[int]) -> int:
    """Cut the member from their tries at these open rounds; return how many tries stay.

    What stays is the fact of each try (attempt, right or wrong, points, time) and a chosen
    option's key; a typed text or code, which may say who wrote it, is blanked.
    """
    kept = 0
    for round_id in round_ids:
        kept += rowcount(session, update(AnswerRow).where(
            AnswerRow.round_id == round_id, AnswerRow.user_id == member.id,
        ).values(
            user_id=None,
            forgotten_mark=forgotten_mark(round_id, member.platform, member.external_id),
            response=case((AnswerRow.mode == AnswerMode.BUTTON.value, AnswerRow.response),
                          else_=""),
        ))
    return kept
