"""Grade code answers that waited for an executor, and say what to deliver to whom.

When no executor replica can take a code answer, QuizService keeps it as a pending answer in
the database (it survives restarts) and tells the member their result will follow. The
scheduler calls ``grade_pending`` every half minute; each pending answer is claimed, graded
with its round's hidden tests, recorded with the time it was sent, and removed, in the same
transaction as the record: exactly once, whichever bot replica does it. The result comes back
as a PrivateDelivery for the adapter of the platform the answer came from.
"""

from __future__ import annotations

import datetime as dt
import logging

from bot.core.kernel.errors import GradingUnavailable, NotFound
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Audience, Message, Tone
from bot.core.kernel.models import PendingAnswer, PrivateDelivery
from bot.core.kernel.ports import Clock, Executor
from bot.core.questions import MAX_ATTEMPTS, judge, round_seed
from bot.core.rounds.recording import AnswerRecorder
from bot.core.rounds.store import PendingStore
from content.loader import Bank

__all__ = ["PendingGrader", "PrivateDelivery"]
log = logging.getLogger(__name__)

# A replica that claimed a pending answer and died: another takes it over after this long
# (far longer than one grading: the executor client gives up within a few minutes).
PENDING_LEASE = dt.timedelta(minutes=10)
PENDING_PER_SWEEP = 50


class PendingGrader:
    """Claim, grade, record and word the results of pending code answers."""

    def __init__(
        self, store: PendingStore, bank: Bank, clock: Clock, executor: Executor | None,
        recorder: AnswerRecorder,
    ) -> None:
        self.store = store
        self.bank = bank
        self.clock = clock
        self.executor = executor
        self.recorder = recorder

    def grade(self, platform: str | None = None) -> list[PrivateDelivery]:
        """Grade what waits (on ``platform``'s channels, or all); return what to deliver.

        The sweep stops at the first answer that still cannot be graded: the executor is
        still away, and the next sweep tries again.
        """
        if self.executor is None:
            return []  # nothing here could grade them: they wait for a bot with an executor
        deliveries: list[PrivateDelivery] = []
        for _ in range(PENDING_PER_SWEEP):
            now = self.clock.now()
            pending = self.store.claim_pending(platform, now, now - PENDING_LEASE)
            if pending is None:
                break
            try:
                delivery = self._grade_one(pending)
            except GradingUnavailable:
                self.store.release_pending(pending.id, pending.claim or "")
                break
            except Exception:
                # Not an outage: this answer itself failed (a refused request, a bug). Its
                # claim is left to lapse, so the others go on and it is tried again later.
                log.exception("grading a pending answer failed pending=%s round=%s user=%s",
                              pending.id, pending.round_id, pending.user_id)
                continue
            if delivery is not None:
                deliveries.append(delivery)
        return deliveries

    def _grade_one(self, pending: PendingAnswer) -> PrivateDelivery | None:
        rnd = self.store.get_round(pending.round_id)
        member = self.store.get_member(pending.user_id)
        if rnd is None or member is None:
            raise NotFound(f"round {pending.round_id} or member {pending.user_id}")
        channel = self.store.get_channel(rnd.channel_id)
        if channel is None:
            raise NotFound(f"channel {rnd.channel_id}")
        item = self.bank.question(rnd.item_id)
        locale = pending.locale
        # The member's tries, with those they left before asking to be forgotten.
        previous = self.store.attempts(rnd.id, member.id)
        reply: Message | None
        # The same rules as an answer taken at once, except the round's closing: the member
        # answered in time, so their answer counts even if the round closed since.
        if previous.solved:
            reply = self._without_answer(pending, t(locale, "answer.already_solved"))
        elif previous.tried >= MAX_ATTEMPTS[item.kind]:
            reply = self._without_answer(pending, t(locale, "answer.no_tries"))
        else:
            judgement = judge(item, pending.response, pending.mode, locale, self.executor,
                              round_seed(rnd))
            if judgement.counts:
                reply = self.recorder.record(rnd, member, judgement, pending.response,
                                             pending.mode, locale, previous.tried + 1,
                                             pending.submitted_at, pending)
            else:  # refused (rejected code, a fault): nothing is recorded, the member is told
                reply = self._without_answer(pending, "\n".join(judgement.lines),
                                             judgement.detail)
        if reply is None:
            return None  # another replica resolved it, or the attempt was recorded meanwhile
        head = t(locale, "code.pending_result", date=rnd.local_date.isoformat())
        message = Message(body=f"{head}\n{reply.body}", detail=reply.detail, output=reply.output,
                          tone=reply.tone, audience=Audience.PRIVATE, round_id=rnd.id)
        log.info("pending answer graded pending=%s channel=%s round=%s user=%s", pending.id,
                 channel.id, rnd.id, member.id)
        return PrivateDelivery(channel.platform, channel.external_id, member.external_id,
                               message, rnd.id, workspace_external_id=channel.workspace_external_id,
                               locale=channel.locale)

    def _without_answer(
        self, pending: PendingAnswer, text: str, detail: str = ""
    ) -> Message | None:
        if not self.store.resolve_pending(pending.id, pending.claim or "", None):
            return None
        return Message(body=text, detail=detail, tone=Tone.WARNING)
