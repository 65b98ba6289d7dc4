"""Live sessions: a quiz for the team meeting, advanced by deadlines stored in the database.

A host opens a session in a channel (a lobby post with a Join button); at the lobby's end the
first question is posted; each question closes at its deadline or once every player answered,
is revealed, and the next one is posted; after the last, the final board. Nothing waits in
memory: :meth:`LiveService.advance` compares the stored deadlines with the clock and makes
each due transition through a conditional write (bot/core/live/store.py), so the console's
tick, the bot's scheduler, another replica or a restarted process all move a session on, and
each post, reveal and answer happens once.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Audience, Form, Message, Tone, live_form_action
from bot.core.kernel.models import (
    Actor,
    AnswerMode,
    ChannelSettings,
    LiveAnswer,
    LiveDraft,
    LiveQuestion,
    LiveSession,
    LiveStatus,
    Member,
    PrivateDelivery,
    RoundStatus,
)
from bot.core.kernel.ports import Clock, Executor
from bot.core.live import compose
from bot.core.live.rules import (
    CODE_KINDS,
    DEFAULT_SECONDS,
    IDLE_QUESTIONS,
    KINDS,
    MAX_PAUSE_S,
    MIN_PLAYERS_TO_COUNT,
    LiveOptions,
    live_points,
)
from bot.core.live.store import LiveStore
from bot.core.packs import channel_scope, library_of
from bot.core.questions import (
    ReviewScheduler,
    check_input,
    gradable,
    judge,
    posts,
    syntax_problem,
)
from content.loader import Bank
from content.schema import CodeItem, Question

log = logging.getLogger(__name__)

MAX_RESPONSE_CHARS = 200


@dataclass(frozen=True)
class LivePost:
    """A post a session is due to make in its channel (a question, a reveal, the final board)."""

    channel: ChannelSettings
    message: Message
    session_id: int
    # Where it goes: the session's thread (its questions, reveals and final board), or the
    # channel; the lobby post starts the thread (``open_thread``).
    thread: str | None = None
    open_thread: bool = False
    # Not for the channel: one player's own code verdict, said to them privately (a DM on
    # Discord, an ephemeral message on Slack) as the daily rounds' late results are.
    private: PrivateDelivery | None = None


class LiveService:
    """Open, join, answer, skip, end and advance live sessions."""

    def __init__(self, store: LiveStore, bank: Bank, clock: Clock,
                 reviews: ReviewScheduler | None = None,
                 executor: Executor | None = None) -> None:
        self.store = store
        self.bank = library_of(bank)
        self.clock = clock
        self.reviews = reviews or ReviewScheduler()
        # Grades code answers, as in the daily rounds: the sandbox, never this process.
        self.executor = executor

    # ---------------------------------------------------------------- the host
    def start(self, channel: ChannelSettings, actor: Actor, options: LiveOptions) -> Message:
        """Open a session in ``channel``; say so (or why not) privately.

        The lobby post goes out with the session's next advance, like every other post of
        the session: through the publisher (or the console's tick), claimed once.
        """
        locale = actor.locale or channel.locale
        # Admins host; anyone may where the channel's admin allows it (live_hosts=anyone).
        if not actor.is_admin and not channel.live_anyone:
            return _warning(locale, "live.denied")
        if self.store.active_live(channel.id) is not None:
            return _warning(locale, "live.running")
        if options.code and self.executor is None:
            return _warning(locale, "live.no_code")
        now = self.clock.now()
        eligible = self._eligible(channel, options.topics, CODE_KINDS if options.code else KINDS)
        if not eligible:
            return _warning(locale, "live.no_questions.code" if options.code
                            else "live.no_questions")
        # Not a secret: a draw that differs per session (S311 is about cryptography).
        drawn = random.Random(f"live|{channel.id}|{now.isoformat()}").sample(  # noqa: S311
            eligible, min(options.questions, len(eligible)))
        draft = LiveDraft(
            channel_id=channel.id, host_id=actor.member.id, created_at=now,
            lobby_ends_at=now + dt.timedelta(seconds=options.lobby),
            questions=tuple((q.id, q.version, options.seconds or DEFAULT_SECONDS[q.kind])
                            for q in drawn),
            topics=options.topics)
        session = self.store.create_live(draft)
        if session is None:  # another replica (or a double click) opened one first
            return _warning(locale, "live.running")
        log.info("live session opened: session=%s channel=%s questions=%s",
                 session.id, channel.id, len(drawn))
        return Message(body=t(locale, "live.opened", questions=len(drawn)), tone=Tone.SUCCESS)

    def _eligible(self, channel: ChannelSettings, topics: Collection[str],
                  kinds: Collection[str] = KINDS) -> list[Question]:
        """Return what the session may draw: the channel's packs, topics and difficulties."""
        paused = self.store.paused_items()
        # The channel's open daily question stays out: a reveal here would give it away.
        daily = self.store.latest_round(channel.id)
        held = daily.item_id if daily is not None and daily.status == RoundStatus.OPEN else None
        wanted = set(topics or channel.topics)
        view = self.bank.view(channel_scope(channel), channel.packs)
        return [q for q in view.questions
                if q.kind in kinds and gradable(q, self.executor)
                and (not wanted or wanted & set(q.topics))
                and (not channel.difficulties or q.difficulty in channel.difficulties)
                and (q.id, q.version) not in paused and q.id != held]

    def skip(self, channel: ChannelSettings, actor: Actor) -> Message:
        """Close the open question now (or end the lobby): the host's or an admin's."""
        return self._steer(channel, actor, self.store.hurry_live, "live.skipped",
                           "live.nothing_to_skip")

    def pause(self, channel: ChannelSettings, actor: Actor) -> Message:
        """Stop the open question's clock (the host's or an admin's); answers wait."""
        return self._steer(channel, actor, self.store.pause_live, "live.paused_now",
                           "live.nothing_to_pause")

    def resume(self, channel: ChannelSettings, actor: Actor) -> Message:
        """Start a paused question's clock again, with the time it had left."""
        return self._steer(channel, actor, self.store.resume_live, "live.resumed",
                           "live.not_paused")

    def _steer(self, channel: ChannelSettings, actor: Actor,
               change: Callable[[int, dt.datetime], bool], done: str, refused: str) -> Message:
        locale = actor.locale or channel.locale
        session = self.store.active_live(channel.id)
        if session is None or session.status is LiveStatus.ENDING:
            return _warning(locale, "live.none")
        if not self._may_steer(session, actor):
            return _warning(locale, "live.not_host")
        if not change(session.id, self.clock.now()):
            return _warning(locale, refused)
        return Message(body=t(locale, done), tone=Tone.SUCCESS)

    def end(self, channel: ChannelSettings, actor: Actor) -> Message:
        """End the session at once, with its final board: the host's or any admin's."""
        return self._steer(channel, actor, lambda session_id, _now: self.store.request_live_end(
            session_id), "live.ending", "live.none")

    def _may_steer(self, session: LiveSession, actor: Actor) -> bool:
        # A host who left does not strand a session: any admin may steer it too.
        return actor.is_admin or any(p.host and p.user_id == actor.member.id
                                     for p in self.store.live_players(session.id))

    # ---------------------------------------------------------------- players
    def join(self, channel: ChannelSettings | None, member: Member, locale: str,
             session_id: int | None = None) -> Message:
        """Add the member to the channel's session (or the one a Join button names)."""
        session = self._session(channel, session_id)
        if session is None or session.status in (LiveStatus.ENDING, LiveStatus.ENDED):
            return _warning(locale, "live.over" if session_id else "live.none")
        if not self.store.join_live(session.id, member.id, self.clock.now()):
            return _warning(locale, "live.joined_already")
        return Message(body=t(locale, "live.joined"), tone=Tone.SUCCESS)

    def answer(self, channel: ChannelSettings | None, member: Member, response: str,
               mode: AnswerMode, locale: str, session_id: int | None = None,
               position: int | None = None) -> Message:
        """Lock in the member's one answer to the open question; say so privately at once.

        Without ``session_id`` it is the open question of the channel's session (a typed
        answer); a button names its session and question, so an old one is told it closed.
        """
        session = self._session(channel, session_id)
        if session is not None and session.status is LiveStatus.PAUSED:
            return _warning(locale, "live.paused")
        if session is None or session.status is not LiveStatus.RUNNING:
            return _warning(locale, "live.over" if session_id else "live.no_question")
        questions = self.store.live_questions(session.id)
        if position is None:
            position = session.current
        if not 0 <= position < len(questions) or position != session.current:
            return _warning(locale, "live.closed")
        question = questions[position]
        now = self.clock.now()
        if (question.opened_at is None or question.closes_at is None
                or question.closed_at is not None or now >= question.closes_at):
            return _warning(locale, "live.closed")
        item = self.bank.question(question.item_id)
        elapsed_ms = max(0, int((now - question.opened_at).total_seconds() * 1000))
        if isinstance(item, CodeItem):
            return self._lock_code(session, question, item, member, response, mode, locale,
                                   now, elapsed_ms)
        judgement = judge(item, response, mode, locale, None,
                          compose.question_seed(session.id, question))
        if not judgement.counts:
            return Message(body="\n".join(judgement.lines), tone=Tone.WARNING)
        answer = LiveAnswer(
            session_id=session.id, position=position, user_id=member.id,
            response=judgement.chosen[:MAX_RESPONSE_CHARS], correct=judgement.correct,
            points=live_points(item.difficulty, judgement.correct, elapsed_ms, question.seconds),
            answered_at=now, elapsed_ms=elapsed_ms)
        # Every live answer moves the member's card, as a daily answer does: in the answer's
        # own transaction, so a refused (second) answer moves nothing.
        review = self.reviews.review(self.store.get_review(member.id, item.id), member.id,
                                     item.id, judgement.correct, 0, now)
        if not self.store.record_live_answer(answer, review):
            return _warning(locale, "live.locked_already")
        return Message(body=t(locale, "live.locked", seconds=f"{elapsed_ms / 1000:.1f}"),
                       tone=Tone.SUCCESS)

    def _lock_code(self, session: LiveSession, question: LiveQuestion, item: CodeItem,
                   member: Member, code: str, mode: AnswerMode, locale: str, now: dt.datetime,
                   elapsed_ms: int) -> Message:
        """Keep a code answer at once, pending; the sandbox grades it before the reveal.

        What the trusted side can check without running anything is checked here, as in the
        daily rounds: the size, that it is code naming the function, that it compiles. An
        answer refused so uses nothing: the member may send another.
        """
        problem = check_input(code, AnswerMode.CODE, locale)
        if problem is not None:
            return _warning_text(problem)
        if mode is AnswerMode.BUTTON or item.code.entrypoint not in code:
            return _warning_text(t(locale, "answer.needs_code",
                                   entrypoint=item.code.entrypoint))
        unparsable = syntax_problem(code, locale)
        if unparsable is not None:
            return Message(body="\n".join(unparsable.lines), detail=unparsable.detail,
                           tone=Tone.WARNING)
        answer = LiveAnswer(
            session_id=session.id, position=question.position, user_id=member.id,
            response="", correct=False, points=0, answered_at=now, elapsed_ms=elapsed_ms,
            pending=True, code=code)
        if not self.store.record_live_answer(answer):
            return _warning(locale, "live.locked_already")
        return Message(body=t(locale, "live.locked.code", seconds=f"{elapsed_ms / 1000:.1f}"),
                       tone=Tone.SUCCESS)

    def _grade(self, session: LiveSession, question: LiveQuestion, item: Question,
               channel: ChannelSettings) -> list[LivePost]:
        """Grade the question's pending code answers in the sandbox; each grade recorded once.

        Called at every advance while the question is open (so the close finds little left)
        and at its close, before the reveal reads the answers. The grade is the daily rounds'
        (the same executor and hidden tests, this question's seed); the points are the live
        rule's by the time the answer was locked in. An answer the sandbox could not run (a
        fault) counts as not passed, and says so in the log: the reveal does not wait.

        Returns what to tell each player whose code did not pass, and why (the verdict and
        the sandbox's explanation, as a daily round tells it): the reveal only shows ✗.
        Only the replica whose grade was recorded tells, so a player hears it once.
        """
        if not isinstance(item, CodeItem):
            return []
        told: list[LivePost] = []
        locale = channel.locale
        for answer in self.store.pending_live_answers(session.id, question.position):
            judgement = judge(item, answer.code or "", AnswerMode.CODE, locale, self.executor,
                              compose.question_seed(session.id, question))
            correct = judgement.counts and judgement.correct
            if not judgement.counts:
                log.warning("live code answer not graded: session=%s question=%s user=%s",
                            session.id, question.position, answer.user_id)
            verdict = judgement.verdict
            summary = (f"{verdict.status} {verdict.passed_tests}/{verdict.total_tests}"
                       if verdict is not None else "not graded")
            graded = replace(answer, pending=False, correct=correct, response=summary,
                             points=live_points(item.difficulty, correct, answer.elapsed_ms,
                                                question.seconds))
            now = self.clock.now()
            review = self.reviews.review(self.store.get_review(answer.user_id, item.id),
                                         answer.user_id, item.id, correct, 0, now)
            won = self.store.grade_live_answer(graded, review if judgement.counts else None)
            if won and not correct:
                post = self._verdict_post(session, question, channel, answer.user_id,
                                          judgement.lines, judgement.detail)
                if post is not None:
                    told.append(post)
        return told

    def _verdict_post(self, session: LiveSession, question: LiveQuestion,
                      channel: ChannelSettings, user_id: int, lines: Sequence[str],
                      detail: str) -> LivePost | None:
        member = self.store.get_member(user_id)
        if member is None:
            return None  # forgotten meanwhile: nobody to tell
        locale = channel.locale
        head = t(locale, "live.code_result", position=question.position + 1)
        message = Message(body="\n".join((head, *lines)), detail=detail, tone=Tone.WARNING,
                          audience=Audience.PRIVATE)
        delivery = PrivateDelivery(
            channel.platform, channel.external_id, member.external_id, message, None,
            workspace_external_id=channel.workspace_external_id, locale=locale)
        return LivePost(channel, message, session.id, private=delivery)

    def rank(self, channel: ChannelSettings | None, member: Member, locale: str,
             session_id: int | None) -> Message:
        """Return the member's own rank in the session a reveal's button names, privately.

        Each player gets their place after each reveal without a message per player in the
        channel (the budget is one reveal per question): the reveal carries one button.
        """
        session = self._session(channel, session_id)
        if session is None:
            return _warning(locale, "live.over")
        return compose.own_rank(self.store.live_answers(session.id),
                                self.store.live_players(session.id), member.id, locale)

    def answer_form(self, session_id: int, position: int, locale: str) -> Form | None:
        """Return the answer form of a live text question while it is open, else None."""
        session = self.store.get_live(session_id)
        if session is None or session.status is not LiveStatus.RUNNING:
            return None
        questions = self.store.live_questions(session.id)
        if position != session.current or position >= len(questions):
            return None
        question = questions[position]
        if question.closed_at is not None:
            return None
        item = self.bank.question(question.item_id)
        return posts.answer_form(item, locale, live_form_action(session_id, position))

    def state(self, channel: ChannelSettings, member: Member, locale: str) -> Message:
        """Return where the channel's session stands, privately (or that there is none)."""
        session = self.store.active_live(channel.id)
        if session is None:
            return _warning(locale, "live.none")
        return compose.state(session, self.store.live_questions(session.id),
                             self.store.live_answers(session.id),
                             self.store.live_players(session.id), member.id, channel, locale)

    def _session(self, channel: ChannelSettings | None,
                 session_id: int | None) -> LiveSession | None:
        if channel is None:
            return None
        if session_id is None:
            return self.store.active_live(channel.id)
        session = self.store.get_live(session_id)
        # A button names its session; one of another channel's (a forged id) is no click here.
        return session if session is not None and session.channel_id == channel.id else None

    # ---------------------------------------------------------------- the clock
    def advance(self, platform: str) -> list[LivePost]:
        """Make every due transition of ``platform``'s sessions; return the posts to make."""
        made: list[LivePost] = []
        for session in self.store.active_lives(platform):
            try:
                made += self.advance_session(session)
            except Exception:
                # One broken session must not stop the others; it is tried again next tick.
                log.exception("live session advance failed: session=%s", session.id)
        return made

    def advance_session(self, session: LiveSession) -> list[LivePost]:
        """Make the transitions due for one session now (a reveal, a question, the end)."""
        channel = self.store.get_channel(session.channel_id)
        if channel is None:
            return []
        now = self.clock.now()
        locale = channel.locale
        if session.status is LiveStatus.ENDING:
            return self._finish(session, channel, now)
        if session.status is LiveStatus.PAUSED:
            paused_at = session.paused_at or now
            if (now - paused_at).total_seconds() < MAX_PAUSE_S:
                return []
            return self._finish(session, channel, now, idle=True)
        questions = self.store.live_questions(session.id)
        made: list[LivePost] = []
        if session.status is LiveStatus.LOBBY:
            if not session.lobby_posted and self.store.claim_live_lobby(session.id):
                players = self.store.live_players(session.id)
                made.append(LivePost(channel, compose.lobby(session, channel, players, locale),
                                     session.id, open_thread=True))
            if now < session.lobby_ends_at:
                return made
            return made + self._open(session, channel, questions, 0, now)
        current = questions[session.current]
        answers = self.store.live_answers(session.id)
        players = self.store.live_players(session.id)
        item = self.bank.question(current.item_id)
        if current.closed_at is None:
            made += self._grade(session, current, item, channel)
            answered = {a.user_id for a in answers if a.position == current.position}
            everyone = bool(players) and {p.user_id for p in players} <= answered
            due = current.closes_at is not None and now >= current.closes_at
            if not (due or everyone):
                return made
            if not self.store.close_live_question(session.id, current.position, now):
                return made  # another replica revealed it
            # Grade what came in up to the close, then read again: an answer that landed
            # between the read above and the close is counted in the database, so the reveal
            # must count it too (no answer lands after the close: it waits on the question's
            # row and then sees it closed).
            made += self._grade(session, current, item, channel)
            answers = self.store.live_answers(session.id)
            made.append(LivePost(channel, compose.reveal(
                session, current, item, answers, players, locale), session.id,
                session.thread_ref))
        if _idle(questions, answers, current.position):
            return made + self._finish(session, channel, now, idle=True)
        if current.position + 1 < len(questions):
            return made + self._open(session, channel, questions, current.position + 1, now)
        return made + self._finish(session, channel, now)

    def thread_started(self, session_id: int, ref: str) -> None:
        """Keep the thread the publisher started on the session's lobby: the rest goes there."""
        self.store.set_live_thread(session_id, ref)

    def thread_gone(self, post: LivePost) -> Message | None:
        """Post in the channel from now on: the session's thread is gone; say so once.

        Nothing of the session is lost: every step is stored before it is posted, so the post
        that found the thread gone is made in the channel instead, and so is every later one.
        Returns the notice to post first, or None when another replica dropped the thread.
        """
        if post.thread is None or not self.store.drop_live_thread(post.session_id, post.thread):
            return None
        log.warning("live session thread gone: session=%s channel=%s; posting in the channel",
                    post.session_id, post.channel.id)
        return Message(body=t(post.channel.locale, "live.thread_gone"), tone=Tone.WARNING,
                       audience=Audience.CHANNEL)

    def _open(self, session: LiveSession, channel: ChannelSettings,
              questions: Sequence[LiveQuestion], position: int,
              now: dt.datetime) -> list[LivePost]:
        question = questions[position]
        closes_at = now + dt.timedelta(seconds=question.seconds)
        if not self.store.open_live_question(session.id, position, now, closes_at):
            return []
        posted = LiveQuestion(session.id, position, question.item_id, question.item_version,
                              question.seconds, now, closes_at)
        item = self.bank.question(question.item_id)
        shown = replace(session, current=position, status=LiveStatus.RUNNING)
        return [LivePost(channel, compose.question_post(shown, posted, item, channel,
                                                        channel.locale), session.id,
                         session.thread_ref)]

    def _finish(self, session: LiveSession, channel: ChannelSettings, now: dt.datetime,
                *, idle: bool = False) -> list[LivePost]:
        answers = self.store.live_answers(session.id)
        players = self.store.live_players(session.id)
        # Only who answered counts as playing: a bot cannot click, and a join alone is no play.
        playing = {a.user_id for a in answers}
        counted = len(playing) >= MIN_PLAYERS_TO_COUNT
        # The weekly board takes live points only where the channel's admin turned that on
        # (live_on_board), and never a warm-up's.
        on_board = counted and channel.live_on_board
        if not self.store.finish_live(session.id, now, counted, on_board):
            return []
        log.info("live session ended: session=%s players=%s counted=%s idle=%s",
                 session.id, len(playing), counted, idle)
        questions = self.store.live_questions(session.id)
        return [LivePost(channel, compose.podium(session, questions, self.bank, answers,
                                                 players, counted, channel.locale, idle=idle,
                                                 on_board=on_board),
                         session.id, session.thread_ref)]


def _idle(questions: Sequence[LiveQuestion], answers: Sequence[LiveAnswer],
          position: int) -> bool:
    """Say whether the last IDLE_QUESTIONS questions up to ``position`` had no answer at all."""
    if position + 1 < IDLE_QUESTIONS:
        return False
    recent = {q.position for q in questions[position + 1 - IDLE_QUESTIONS:position + 1]}
    return not any(a.position in recent for a in answers)


def _warning_text(text: str) -> Message:
    return Message(body=text, tone=Tone.WARNING)


def _warning(locale: str, key: str) -> Message:
    return Message(body=t(locale, key), tone=Tone.WARNING)


__all__ = ["LivePost", "LiveService"]
