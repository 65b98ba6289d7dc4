"""Spaced repetition for /quiz: Leitner boxes and the choice of the next practice question."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from collections.abc import Iterable, Sequence

from bot.core import posts
from bot.core.answers import gradable, hidden_test_seed, judge
from bot.core.errors import GradingUnavailable
from bot.core.i18n import t
from bot.core.matching import fold
from bot.core.messages import Form, Message, Tone, practice_action, practice_form_action
from bot.core.models import AnswerMode, Member, PracticeSession, Review
from bot.core.ports import Clock, Executor, QuizStore
from bot.core.scoring import MAX_ATTEMPTS
from content.loader import Bank
from content.schema import CodeItem

log = logging.getLogger(__name__)

MAX_BOX = 5
# Box n comes back after 2**(n-1) days; a miss comes back within the hour, while it still stings.
RETRY_AFTER_MISS = dt.timedelta(hours=1)


def after_answer(
    previous: Review | None, user_id: int, item_id: str, correct: bool, now: dt.datetime
) -> Review:
    """Return the review state after an answer: up one box when right, back to box 1 when wrong."""
    if not correct:
        return Review(user_id, item_id, 1, now + RETRY_AFTER_MISS, False, now)
    box = min(MAX_BOX, (previous.box if previous else 1) + 1)
    return Review(user_id, item_id, box, now + interval(box), True, now)


def interval(box: int) -> dt.timedelta:
    """Return how long an item in ``box`` waits before it is due again."""
    return dt.timedelta(days=2 ** (box - 1))


def _digest(salt: str, item_id: str) -> str:
    return hashlib.sha256(f"{salt}|{item_id}".encode()).hexdigest()


def stable_order(salt: str, ids: Iterable[str]) -> list[str]:
    """Order ids by a hash of (salt, id): varied per member and day, identical on every replica."""
    return sorted(ids, key=lambda i: _digest(salt, i))


def pick(
    eligible: Sequence[str], reviews: Sequence[Review], now: dt.datetime, salt: str
) -> tuple[str, bool] | None:
    """Return the next practice item and whether it is a review of an earlier miss.

    Due reviews come first (lowest box, then longest overdue), then items never seen, then the
    review that is due soonest, so practice never runs dry.
    """
    allowed = set(eligible)
    mine = [r for r in reviews if r.item_id in allowed]
    due = sorted((r for r in mine if r.due_at <= now), key=lambda r: (r.box, r.due_at, r.item_id))
    if due:
        return due[0].item_id, not due[0].last_correct
    seen = {r.item_id for r in mine}
    fresh = stable_order(salt, (i for i in eligible if i not in seen))
    if fresh:
        return fresh[0], False
    upcoming = sorted(mine, key=lambda r: (r.due_at, r.item_id))
    if upcoming:
        return upcoming[0].item_id, not upcoming[0].last_correct
    return None


def daily_pick(
    eligible: Sequence[str], used: dict[str, dt.date], salt: str
) -> str | None:
    """Return the item a channel gets next: never used first, else the least recently used."""
    never = stable_order(salt, (i for i in eligible if i not in used))
    if never:
        return never[0]
    by_age = sorted((i for i in eligible if i in used), key=lambda i: (used[i], _digest(salt, i)))
    return by_age[0] if by_age else None


def session_seed(session: PracticeSession) -> int:
    """Return a practice session's seed (hidden tests, option order): new for every session."""
    return hidden_test_seed("practice", session.user_id, session.item_id, session.started_at)


class PracticeService:
    """Private, unscored practice: pick from what the member missed, judge, reschedule."""

    def __init__(
        self,
        store: QuizStore,
        bank: Bank,
        clock: Clock,
        executor: Executor | None = None,
    ) -> None:
        self.store = store
        self.bank = bank
        self.clock = clock
        self.executor = executor

    def topics(self) -> list[str]:
        """Return every topic some question covers."""
        return sorted({topic for q in self.bank.questions.values() for topic in q.topics})

    def _eligible(self, topic: str | None) -> list[str]:
        wanted = fold(topic) if topic else ""
        return [
            q.id for q in self.bank.questions.values()
            if (not wanted or any(fold(tp) == wanted for tp in q.topics))
            and gradable(q, self.executor)
        ]

    def start(self, member: Member, topic: str | None, locale: str) -> Message:
        """Pick the member's next practice question and show it privately."""
        now = self.clock.now()
        eligible = self._eligible(topic)
        chosen = pick(eligible, self.store.reviews(member.id), now,
                      salt=f"{member.id}|{now.date().isoformat()}")
        if chosen is None:
            return Message(
                body=t(locale, "practice.none", topic=topic or "", topics=", ".join(self.topics())),
                tone=Tone.WARNING,
            )
        item_id, is_review = chosen
        item = self.bank.question(item_id)
        session = PracticeSession(member.id, item.id, item.version, now)
        self.store.start_practice(session)
        # The session's seed is derived from what was just stored, so its answer reads the
        # letters in this same order.
        seed = session_seed(session)
        body, code = posts.question_body(item, locale, seed=seed)
        hint = t(locale, "practice.code_hint") if isinstance(item, CodeItem) else ""
        lines = [body, "", t(locale, "practice.how", code_hint=hint)]
        if is_review:
            lines.insert(0, t(locale, "practice.review") + "\n")
        return Message(
            title=t(locale, "practice.title", topic=item.topic),
            body="\n".join(lines),
            code=code,
            buttons=posts.choice_buttons(item, practice_action(item.id, "{key}"), seed=seed),
            form=posts.answer_form(item, locale, practice_form_action(item.id)),
        )

    def answer_form(self, member: Member, item_id: str, locale: str) -> Form | None:
        """Return the answer form of the member's current practice question, if it is this one."""
        session = self.store.current_practice(member.id)
        if session is None or session.item_id != item_id:
            return None
        item = self.bank.question(item_id)
        return posts.answer_form(item, locale, practice_form_action(item.id))

    def answer(
        self,
        member: Member,
        response: str,
        locale: str,
        mode: AnswerMode = AnswerMode.TEXT,
        item_id: str | None = None,
    ) -> Message:
        """Judge an answer to the member's current practice question."""
        session = self.store.current_practice(member.id)
        if session is None or (item_id is not None and item_id != session.item_id):
            return Message(body=t(locale, "practice.nothing_pending"), tone=Tone.WARNING)
        item = self.bank.question(session.item_id)
        try:
            judgement = judge(item, response, mode, locale, self.executor, session_seed(session))
        except GradingUnavailable:
            # Practice is unscored and private: nothing to keep, the member just sends it again.
            return Message(body=t(locale, "code.busy_practice"), tone=Tone.WARNING)
        except Exception:
            log.exception("practice judging failed user=%s item=%s", member.id, item.id)
            return Message(body=t(locale, "error.internal"), tone=Tone.ERROR)
        if not judgement.counts:
            return Message(body="\n".join(judgement.lines), detail=judgement.detail,
                           tone=Tone.WARNING)
        limit = MAX_ATTEMPTS[item.kind]
        if not judgement.correct:
            tries = self.store.bump_practice_attempts(member.id, item.id)
            if tries < limit:
                head = t(locale, "practice.wrong", left=limit - tries)
                return Message(body="\n".join((head, *judgement.lines)), tone=Tone.WARNING,
                               detail=judgement.detail, output=judgement.output or None)
        if not self.store.finish_practice(member.id, item.id):
            return Message(body=t(locale, "practice.nothing_pending"), tone=Tone.WARNING)
        now = self.clock.now()
        self.store.record_practice_result(member.id, item.id, item.version, judgement.correct, now)
        review = after_answer(self.store.get_review(member.id, item.id), member.id, item.id,
                              judgement.correct, now)
        self.store.save_review(review)
        if judgement.correct:
            head = t(locale, "practice.correct", days=interval(review.box).days)
        else:
            head = t(locale, "practice.wrong_final")
        lines = [head, *judgement.lines, "",
                 t(locale, "reveal.answer",
                   answer=posts.answer_text(item, locale, seed=session_seed(session))),
                 item.explanation.get(locale)]
        return Message(
            body="\n".join(lines),
            code=item.code.solution if isinstance(item, CodeItem) else None,
            detail=judgement.detail,
            output=judgement.output or None,
            tone=Tone.SUCCESS if judgement.correct else Tone.WARNING,
        )
