"""Record a judged answer to a daily round and word the member's reply.

One place for both ways an answer is recorded: at once (submit_answer) and later, when a
pending code answer is finally graded (bot.core.rounds.pending), so scoring and replies cannot
drift.
"""

from __future__ import annotations

import datetime as dt
import logging

from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Audience, Message, Tone
from bot.core.kernel.models import (
    AnswerDraft,
    AnswerMode,
    Member,
    PendingAnswer,
    Review,
    Round,
    RoundStatus,
)
from bot.core.kernel.ports import Clock
from bot.core.questions import MAX_ATTEMPTS, Judgement, ReviewScheduler, points_for
from bot.core.rounds.store import AnswerStore
from content.loader import Bank

log = logging.getLogger(__name__)

STORED_RESPONSE_CHARS = 2000


class AnswerRecorder:
    """Turn a judgement into a stored answer, an FSRS card update and the private reply."""

    def __init__(self, store: AnswerStore, bank: Bank, clock: Clock,
                 reviews: ReviewScheduler | None = None) -> None:
        self.store = store
        self.bank = bank
        self.clock = clock
        self.reviews = reviews or ReviewScheduler()

    def is_open(self, rnd: Round) -> bool:
        """Return whether the round still takes answers now."""
        return rnd.status is RoundStatus.OPEN and rnd.closes_at > self.clock.now()

    def record(
        self, rnd: Round, member: Member, judgement: Judgement, response: str, mode: AnswerMode,
        locale: str, attempt: int, submitted_at: dt.datetime,
        pending: PendingAnswer | None = None, card: Review | None = None,
    ) -> Message | None:
        """Record a judged answer and return the member's reply; None if it was a duplicate.

        With ``pending``, the pending answer is resolved in the same transaction, so an
        answer that waited is recorded exactly once whichever replica grades it. Otherwise
        ``card`` is the member's FSRS card of the item as read before judging, and its update
        is saved in the answer's own transaction.
        """
        item = self.bank.question(rnd.item_id)
        limit = MAX_ATTEMPTS[item.kind]
        points = points_for(item.difficulty, attempt, judgement.correct)
        draft = AnswerDraft(
            round_id=rnd.id, user_id=member.id, attempt=attempt, mode=mode,
            response=(judgement.chosen or response)[:STORED_RESPONSE_CHARS],
            correct=judgement.correct, points=points, submitted_at=submitted_at,
            verdict_status=judgement.verdict.status if judgement.verdict else None,
        )
        # Every answer moves the member's card: earlier tries at this round were all misses.
        if pending is not None:
            if not self.store.resolve_pending(pending.id, pending.claim or "", draft):
                return None
            self._remember(member.id, item.id, judgement.correct, attempt - 1)
        else:
            moved = self.reviews.review(card, member.id, item.id, judgement.correct,
                                        attempt - 1, self.clock.now())
            if self.store.record_answer(draft, moved) is None:
                return None
        log.info("answer recorded channel=%s round=%s user=%s attempt=%s correct=%s",
                 rnd.channel_id, rnd.id, member.id, attempt, judgement.correct)
        return self._reply(judgement, locale, points, attempt, limit, closed=not self.is_open(rnd))

    def _remember(self, user_id: int, item_id: str, correct: bool, earlier_misses: int) -> None:
        previous = self.store.get_review(user_id, item_id)
        self.store.save_review(self.reviews.review(previous, user_id, item_id, correct,
                                                   earlier_misses, self.clock.now()))

    @staticmethod
    def _reply(
        judgement: Judgement, locale: str, points: int, attempt: int, limit: int, *, closed: bool
    ) -> Message:
        if judgement.correct:
            bonus = t(locale, "answer.first_try") if attempt == 1 else ""
            head, tone = t(locale, "answer.correct", points=points, bonus=bonus), Tone.SUCCESS
        elif closed:  # a pending answer graded after its round closed: no tries are left
            head, tone = t(locale, "answer.wrong_closed"), Tone.WARNING
        elif attempt >= limit:
            head, tone = t(locale, "answer.wrong_final"), Tone.WARNING
        else:
            head, tone = t(locale, "answer.wrong", left=limit - attempt), Tone.WARNING
        return Message(
            body="\n".join((head, *judgement.lines)),
            detail=judgement.detail,
            output=judgement.output or None,
            tone=tone,
            audience=Audience.PRIVATE,
        )
