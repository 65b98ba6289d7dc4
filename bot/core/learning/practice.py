"""Practice for /quiz: the choice of the next question, judging it, and moving its FSRS card."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.core.kernel.errors import GradingUnavailable
from bot.core.kernel.i18n import t
from bot.core.kernel.matching import fold
from bot.core.kernel.messages import (
    Button,
    Form,
    Message,
    Tone,
    practice_action,
    practice_form_action,
    practice_report_action,
    practice_skip_action,
)
from bot.core.kernel.models import AnswerMode, ItemResult, Member, PracticeSession, Review
from bot.core.kernel.ports import Clock, Executor
from bot.core.learning.store import PracticeStore
from bot.core.packs import library_of
from bot.core.questions import (
    MAX_ATTEMPTS,
    ReviewScheduler,
    gradable,
    hidden_test_seed,
    judge,
    posts,
)
from content.loader import Bank
from content.schema import CodeItem, Question
from content.topics import topic_from_name, topic_label

log = logging.getLogger(__name__)

PracticeKind = Literal["review", "new", "ahead"]


@dataclass(frozen=True)
class PracticePick:
    """The next practice item and why it was chosen, for the line above the question.

    ``review``: the member's most overdue card; ``new``: an item never seen, from the member's
    weakest topic (``topic``; ``tried`` says whether they answered anything there yet);
    ``ahead``: nothing is due and nothing is new, so the card due soonest comes early.
    """

    item_id: str
    kind: PracticeKind
    due_at: dt.datetime | None = None
    topic: str = ""
    tried: bool = False


def _digest(salt: str, item_id: str) -> str:
    return hashlib.sha256(f"{salt}|{item_id}".encode()).hexdigest()


def stable_order(salt: str, ids: Iterable[str]) -> list[str]:
    """Order ids by a hash of (salt, id): varied per member and day, identical on every replica."""
    return sorted(ids, key=lambda i: _digest(salt, i))


def weakest_topic(
    candidates: Iterable[str], results: Sequence[ItemResult], topics_of: Mapping[str, Sequence[str]]
) -> tuple[str, bool] | None:
    """Return the candidate topic the member knows least, and whether they tried it at all.

    Accuracy is smoothed ((solved + 1) / (answered + 2)) so one lucky answer does not make a
    topic look mastered; an untried topic counts as 50 %. Ties go to the topic answered least.
    """
    answered: dict[str, int] = {}
    solved: dict[str, int] = {}
    for result in results:
        for topic in topics_of.get(result.item_id, ()):
            answered[topic] = answered.get(topic, 0) + 1
            solved[topic] = solved.get(topic, 0) + int(result.correct)

    def weakness(topic: str) -> tuple[float, int, str]:
        n = answered.get(topic, 0)
        return ((solved.get(topic, 0) + 1) / (n + 2), n, topic)

    ranked = sorted(set(candidates), key=weakness)
    return (ranked[0], ranked[0] in answered) if ranked else None


def pick(
    eligible: Sequence[str], reviews: Sequence[Review], results: Sequence[ItemResult],
    topics_of: Mapping[str, Sequence[str]], now: dt.datetime, salt: str,
    topic: str | None = None,
) -> PracticePick | None:
    """Return the next practice item: the most overdue review, else a new item, else the next.

    New items come from the member's weakest topic among those that still have one, in an
    order varied per member and day and identical on every replica. ``topic``: the member
    asked for it, so a new item is of that topic and says so (not of another topic the item
    also covers).
    """
    allowed = set(eligible)
    mine = [r for r in reviews if r.item_id in allowed]
    due = sorted((r for r in mine if r.due_at <= now), key=lambda r: (r.due_at, r.item_id))
    if due:
        return PracticePick(due[0].item_id, "review", due_at=due[0].due_at)
    seen = {r.item_id for r in mine}
    fresh = [i for i in eligible if i not in seen]
    candidates = {tp for i in fresh for tp in topics_of[i]}
    if topic is not None:
        candidates = {tp for tp in candidates if fold(tp) == fold(topic)} or candidates
    weakest = weakest_topic(candidates, results, topics_of)
    if weakest is not None:
        topic, tried = weakest
        in_topic = stable_order(salt, (i for i in fresh if topic in topics_of[i]))
        return PracticePick(in_topic[0], "new", topic=topic, tried=tried)
    upcoming = sorted(mine, key=lambda r: (r.due_at, r.item_id))
    if upcoming:
        return PracticePick(upcoming[0].item_id, "ahead", due_at=upcoming[0].due_at)
    return None


def span(locale: str, delta: dt.timedelta) -> str:
    """Return a duration as people say it: "2 days", "3 hours", "10 minutes" (rounded down)."""
    seconds = max(0, int(delta.total_seconds()))
    unit, n = next(((unit, seconds // size) for unit, size in (("day", 86_400), ("hour", 3600))
                    if seconds >= size), ("minute", max(1, seconds // 60)))
    return t(locale, f"time.{unit}") if n == 1 else t(locale, f"time.{unit}s", n=n)


def why_this(chosen: PracticePick, now: dt.datetime, locale: str) -> str:
    """Return the line that says why this question came: a review due since when, or new."""
    if chosen.kind == "review" and chosen.due_at is not None:
        if now - chosen.due_at < dt.timedelta(minutes=1):
            return t(locale, "practice.kind.review_now")
        return t(locale, "practice.kind.review", since=span(locale, now - chosen.due_at))
    if chosen.kind == "new":
        key = "practice.kind.new_weak" if chosen.tried else "practice.kind.new_untried"
        return t(locale, key, topic=topic_label(chosen.topic or "", locale))
    due = chosen.due_at or now
    return t(locale, "practice.kind.ahead", when=span(locale, due - now))


def daily_pick(
    eligible: Sequence[str], used: dict[str, dt.date], salt: str,
    first: Collection[str] = (),
) -> str | None:
    """Return the item a channel gets next: never used first, else the least recently used.

    ``first``: items that come before every other until each was posted once in the channel
    (a team pack's among the shipped bank's: 5 new items in 270 would otherwise take months
    to appear); after that, the usual draw over all.

    Among the never-used items, one hash of ``salt`` (channel and date) draws the item, by
    its place among them sorted (the same whatever order ``eligible`` comes in). A
    minute in which 10,000 channels are due picks 10,000 times: one hash each, where a hash per
    eligible item (a sorted draw) cost 100 times as much (bench core's fan-out).
    """
    if first and (ahead := [i for i in eligible if i in first and i not in used]):
        return _drawn(salt, ahead)
    if never := [i for i in eligible if i not in used] if used else list(eligible):
        return _drawn(salt, never)
    # Every item was used: the one whose last round is oldest (one item per round and date,
    # so no two share a date; the id only makes the rule total).
    return min(eligible, key=lambda i: (used[i], i)) if eligible else None


def _drawn(salt: str, ids: Sequence[str]) -> str:
    """Return the item of ``ids`` that ``salt`` draws: uniform, and the same on every replica."""
    n = int.from_bytes(hashlib.sha256(salt.encode()).digest()[:8], "big")
    # Sorted: ids already in order (the draw's, see _Picker) cost one pass.
    return sorted(ids)[n % len(ids)]


def session_seed(session: PracticeSession) -> int:
    """Return a practice session's seed (hidden tests, option order): new for every session.

    It depends only on what the session stored, so showing an open session again keeps it.
    """
    return hidden_test_seed("practice", session.user_id, session.item_id, session.started_at)


class PracticeService:
    """Private, unscored practice: pick from what the member missed, judge, reschedule."""

    def __init__(
        self,
        store: PracticeStore,
        bank: Bank,
        clock: Clock,
        executor: Executor | None = None,
        reviews: ReviewScheduler | None = None,
    ) -> None:
        self.store = store
        self.bank = library_of(bank)
        self.clock = clock
        self.executor = executor
        self.reviews = reviews or ReviewScheduler()

    def topics(self, scope: str | None = None, *, check: bool = True) -> list[str]:
        """Return every topic some question the workspace ``scope`` sees covers."""
        return self.bank.view(scope, check=check).topics

    def _eligible(self, topic: str | None, scope: str | None,
                  packs: Collection[str] | None = None) -> list[str]:
        wanted = fold(topic) if topic else ""
        return [
            q.id for q in self.bank.view(scope, packs).questions
            if (not wanted or any(fold(tp) == wanted for tp in q.topics))
            and gradable(q, self.executor)
        ]

    def start(self, member: Member, topic: str | None, locale: str, *,
              scope: str | None = None, packs: Collection[str] | None = None,
              workspace: str = "", preview: str | None = None) -> Message:
        """Show the member's open practice question again, or pick the next one.

        ``scope``: the asking workspace, whose packs only are drawn (None: the shipped bank
        and the packs shared with every workspace). ``packs``: without a topic, new questions
        come from these (the channel's choice), when they leave any; a due review of anything
        the workspace still sees comes first either way (a removed pack's do not).
        ``workspace``: the platform's id of the asking workspace; the items of the rounds open
        there (and wherever the member answered before) are held back until they close.

        An open question comes back as it was (its tries, its option order) unless the member
        asks for a topic it does not cover: then the new question says what it replaced.
        ``preview``: a pack id (the desk checked it is the workspace's own and the member an
        admin); questions come from that pack only, its due reviews too, and never an open
        round's (as ever).
        """
        topic = topic_from_name(topic) if topic else topic
        now = self.clock.now()
        session, held, cards = self.store.practice_state(member.id, member.platform, workspace)
        known: list[Review] | None = cards  # None once a card moved: _next reads them anew
        notes: list[str] = []
        if session is not None:
            item = self.bank.question(session.item_id)
            if session.item_id in held:
                notes.append(self._drop_for_round(member, session, locale))
            elif self._wanted(item, topic, scope, preview):
                left = MAX_ATTEMPTS[item.kind] - session.attempts
                return self._question(item, session, locale,
                                      t(locale, "practice.still_open", left=left),
                                      topic=topic, preview=preview)
            elif session.attempts == 0:
                # Nothing was tried and nothing shown beyond the question: it is only set aside.
                self.store.finish_practice(member.id, item.id)
                notes.append(t(locale, "practice.replaced", topic=topic_label(item.topic, locale)))
            else:
                # Tried and left: a miss, as a skip is, so a new topic never buys fresh tries.
                known = None
                notes.extend(self._close_as_miss(member, session, item, locale, now,
                                                 "practice.replaced_missed"))
        return self._next(member, topic, locale, scope, packs, held, now, notes,
                          avoid=session.item_id if session is not None else None,
                          reviews=known, preview=preview)

    def _wanted(self, item: Question, topic: str | None, scope: str | None,
                preview: str | None) -> bool:
        """Say whether an open question answers what the member asked for now."""
        if preview is not None:
            return item.id in self.bank.view(scope, (preview,)).ids
        return not topic or any(fold(tp) == fold(topic) for tp in item.topics)

    def skip(self, member: Member, locale: str, *, item_id: str | None = None,
             scope: str | None = None, packs: Collection[str] | None = None,
             workspace: str = "") -> Message:
        """Close the member's open practice question as a miss, show its answer, serve the next.

        ``item_id``: the question the Skip button was shown with (None: whatever is open).
        """
        session = self.store.current_practice(member.id)
        if session is None or (item_id is not None and item_id != session.item_id):
            return Message(body=t(locale, "practice.nothing_pending"), tone=Tone.WARNING)
        now = self.clock.now()
        held = self.store.open_round_items(member.id, member.platform, workspace)
        item = self.bank.question(session.item_id)
        if session.item_id in held:
            notes = [self._drop_for_round(member, session, locale)]
        else:
            notes = self._close_as_miss(member, session, item, locale, now, "practice.skipped")
            if not notes:  # a second click, or an answer that finished it meanwhile
                return Message(body=t(locale, "practice.nothing_pending"), tone=Tone.WARNING)
        return self._next(member, None, locale, scope, packs, held, now, notes, avoid=item.id)

    def _drop_for_round(self, member: Member, session: PracticeSession, locale: str) -> str:
        # The question is a daily round's now: ended unjudged, nothing moves and no answer
        # shows, so nobody who can still score learns it here.
        self.store.finish_practice(member.id, session.item_id)
        return t(locale, "practice.moved_to_round")

    def _close_as_miss(self, member: Member, session: PracticeSession, item: Question,
                       locale: str, now: dt.datetime, head: str) -> list[str]:
        """End the session as a miss and return the lines that say so and reveal the answer.

        Returns no lines when the session was no longer open (finishing is the claim).
        """
        if not self.store.finish_practice(member.id, item.id):
            return []
        if session.attempts == 0:
            # A miss is Again, as a wrong answer is; after a wrong try the card holds it already.
            review = self.reviews.review(self.store.get_review(member.id, item.id), member.id,
                                         item.id, False, 0, now)
            self.store.save_review(review)
        self.store.record_practice_result(member.id, item.id, item.version, False, now)
        lines = [t(locale, head, topic=topic_label(item.topic, locale)),
                 t(locale, "reveal.answer",
                   answer=posts.answer_text(item, locale, seed=session_seed(session))),
                 item.explanation.get(locale)]
        if isinstance(item, CodeItem) and self.bank.shows_solution(item.id):
            # The next question may bring code of its own: this solution goes in the text.
            lines.append("```python\n" + item.code.solution.rstrip("\n") + "\n```")
        return [*lines, ""]

    def _next(self, member: Member, topic: str | None, locale: str, scope: str | None,
              packs: Collection[str] | None, held: Collection[str], now: dt.datetime,
              notes: Sequence[str], avoid: str | None = None,
              reviews: Sequence[Review] | None = None, preview: str | None = None) -> Message:
        """Pick, open and show the member's next practice question (``notes`` go above it)."""
        if preview is not None:
            # From that pack only: no fallback to the bank, no review of anything else.
            eligible = self._eligible(None, scope, (preview,))
            reviewable = set(eligible)
        else:
            eligible = self._eligible(topic, scope, None if topic else packs)
            if not eligible and not topic and packs is not None:
                eligible = self._eligible(None, scope)
            reviewable = set(eligible if topic or packs is None
                             else self._eligible(None, scope))
        # An open round's question waits for its reveal: one who can still score must not
        # meet it here, nor one who could pass its answer on.
        was_eligible = bool(eligible)
        eligible = [i for i in eligible if i not in held]
        reviewable -= set(held)
        if avoid is not None and len(eligible) > 1:
            eligible = [i for i in eligible if i != avoid]  # what was just closed comes later
        cards = self.store.reviews(member.id) if reviews is None else reviews
        reviews = [r for r in cards if r.item_id in reviewable]
        # A due review comes first whatever the member's results: read those (every answer
        # they gave, the slow read at a million answers) only to find a weakest topic.
        due = any(r.due_at <= now for r in reviews)
        results = [] if due else self.store.item_results(member.id)
        if due:  # a review due of any pack the workspace sees, whatever the channel draws
            drawn = set(eligible)
            eligible = [*eligible, *sorted(i for i in reviewable if i not in drawn)]
        chosen = pick(eligible, reviews, results, self.bank.topics_of(), now,
                      salt=f"{member.id}|{now.date().isoformat()}", topic=topic)
        if chosen is None:
            if preview is not None:
                refusal = t(locale, "practice.preview.none", pack=preview)
            elif topic and was_eligible:
                refusal = t(locale, "practice.held", topic=topic_label(topic, locale))
            else:
                refusal = t(locale, "practice.none", topic=topic or "",
                            topics=", ".join(self.topics(scope)))
            return Message(body="\n".join((*notes, refusal)), tone=Tone.WARNING)
        item = self.bank.question(chosen.item_id)
        session = PracticeSession(member.id, item.id, item.version, now)
        self.store.start_practice(session)
        why = why_this(chosen, now, locale)
        if preview is not None:
            why = t(locale, "practice.preview.why", pack=preview)
        return self._question(item, session, locale, why, notes, topic=topic, preview=preview)

    def _question(self, item: Question, session: PracticeSession, locale: str, why: str,
                  notes: Sequence[str] = (), *, topic: str | None = None,
                  preview: str | None = None) -> Message:
        """Return the practice question of ``session`` with its Skip button.

        Its title names the topic the member asked for (as the item spells it), else the
        item's first topic; a preview's names the pack.
        """
        # The seed comes from the stored session, so the question shows its options in the
        # same order every time it is shown, and its answer reads the letters in that order.
        seed = session_seed(session)
        body, code = posts.question_body(item, locale, seed=seed)
        hint = t(locale, "practice.code_hint") if isinstance(item, CodeItem) else ""
        lines = [*notes, why + "\n", body, "", t(locale, "practice.how", code_hint=hint)]
        asked = next((tp for tp in item.topics if topic and fold(tp) == fold(topic)), item.topic)
        title = (t(locale, "practice.preview.title", pack=preview) if preview is not None
                 else t(locale, "practice.title", topic=topic_label(asked, locale)))
        return Message(
            title=title,
            body="\n".join(lines),
            code=code,
            buttons=(*posts.choice_buttons(item, practice_action(item.id, "{key}"), seed=seed),
                     self._skip_button(item.id, locale)),
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
        workspace: str = "",
    ) -> Message:
        """Judge an answer to the member's current practice question.

        A question that has become an open round's (``workspace``: as for :meth:`start`) is
        ended unjudged: its feedback would tell the round's answer.
        """
        session = self.store.current_practice(member.id)
        if session is None or (item_id is not None and item_id != session.item_id):
            return Message(body=t(locale, "practice.nothing_pending"), tone=Tone.WARNING)
        if session.item_id in self.store.open_round_items(member.id, member.platform, workspace):
            self.store.finish_practice(member.id, session.item_id)
            return Message(body=t(locale, "practice.moved_to_round_answer"), tone=Tone.WARNING)
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
        now = self.clock.now()
        # Every judged answer moves the card: a miss now is Again, a later success Hard.
        review = self.reviews.review(self.store.get_review(member.id, item.id), member.id,
                                     item.id, judgement.correct, session.attempts, now)
        self.store.save_review(review)
        if not judgement.correct:
            tries = self.store.bump_practice_attempts(member.id, item.id)
            if tries < limit:
                head = t(locale, "practice.wrong", left=limit - tries)
                return Message(body="\n".join((head, *judgement.lines)), tone=Tone.WARNING,
                               detail=judgement.detail, output=judgement.output or None,
                               buttons=(self._skip_button(item.id, locale),
                                        self._report_button(item.id, locale)))
        if not self.store.finish_practice(member.id, item.id):
            return Message(body=t(locale, "practice.nothing_pending"), tone=Tone.WARNING)
        self.store.record_practice_result(
            member.id, item.id, item.version, judgement.correct, now,
            first_try=judgement.correct and session.attempts == 0)
        if judgement.correct:
            head = t(locale, "practice.correct", when=span(locale, review.due_at - now))
        else:
            head = t(locale, "practice.wrong_final")
        lines = [head, *judgement.lines, "",
                 t(locale, "reveal.answer",
                   answer=posts.answer_text(item, locale, seed=session_seed(session))),
                 item.explanation.get(locale)]
        return Message(
            body="\n".join(lines),
            # Shown once the question is over (solved, or its tries spent), unless its pack
            # keeps its solutions to itself.
            code=(item.code.solution if isinstance(item, CodeItem)
                  and self.bank.shows_solution(item.id) else None),
            detail=judgement.detail,
            output=judgement.output or None,
            tone=Tone.SUCCESS if judgement.correct else Tone.WARNING,
            buttons=(self._report_button(item.id, locale),),
        )

    @staticmethod
    def _skip_button(item_id: str, locale: str) -> Button:
        """Return the Skip button of an open practice question."""
        return Button(practice_skip_action(item_id), t(locale, "practice.skip.button"))

    @staticmethod
    def _report_button(item_id: str, locale: str) -> Button:
        """Return the Report button of the feedback on a judged practice answer."""
        return Button(practice_report_action(item_id), t(locale, "report.button"))
