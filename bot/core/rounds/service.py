"""The daily quiz flow: post a round, take answers, close and reveal.

scheduler -> post_round -> adapter renders -> member answers -> adapter -> submit_answer
-> judge (executor for code) -> store records -> tally; close_due_rounds -> reveal.
When no executor can grade a code answer, submit_answer keeps it as pending; the scheduler's
grade_pending sweep (bot/core/rounds/pending.py) grades it later and returns PrivateDeliveries.
Practice, explain, leaderboards and setup live in sibling modules; bot/core/quiz.py gathers
them with this service into the one Quiz object an adapter holds.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar
from zoneinfo import ZoneInfo

from bot.core.kernel.errors import GradingUnavailable, NotFound
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import (
    Audience,
    Form,
    Message,
    Tone,
    answer_action,
    form_action,
)
from bot.core.kernel.models import (
    RELEASED,
    Actor,
    AnswerDraft,
    AnswerMode,
    ChannelDefaults,
    ChannelSettings,
    Member,
    PendingDraft,
    PrivateDelivery,
    Reveal,
    Round,
    RoundClaim,
    RoundPost,
    RoundStatus,
    Tally,
)
from bot.core.kernel.ports import Clock, Executor
from bot.core.learning import daily_pick
from bot.core.packs import DEFAULT_PACKS, SHIPPED, channel_scope, library_of
from bot.core.questions import MAX_ATTEMPTS, ReviewScheduler, gradable, judge, posts, round_seed
from bot.core.rounds.pending import PendingGrader
from bot.core.rounds.recording import STORED_RESPONSE_CHARS, AnswerRecorder
from bot.core.rounds.schedule import Missed, missed_post
from bot.core.rounds.store import RoundStore
from bot.core.speed import SPEED_TRIES, SpeedService, Where, speed_points, speed_round
from content.loader import Bank
from content.packs import pack_of
from content.schema import Question, SpeedItem

log = logging.getLogger(__name__)

__all__ = ["AnswerOutcome", "PrivateDelivery", "QuizService", "Reveal", "RoundPost", "round_seed"]
# How long a replica's claim to post a round holds before another may post it instead (it
# crashed, or the platform refused the post or did not answer in time). A post taken over
# this way may have reached the platform already, so the publisher looks for it first
# (RoundPost.repost); the settings can shorten it (TORCHQUIZ_POST_LEASE_S).
POST_LEASE = dt.timedelta(minutes=2)


@dataclass(frozen=True)
class AnswerOutcome:
    """The private reply to an answer, and whether the round's tally changed."""

    reply: Message
    recorded: bool
    round_id: int | None = None
    tally_changed: bool = False  # the round's channel post shows a new tally: redraw it once


# The store a QuizService is built over: RoundStore at least (quiz.py passes the whole store).
S = TypeVar("S", bound=RoundStore)


class QuizService(Generic[S]):
    """Run the daily rounds of every channel: claim, post, judge, record, close, reveal.

    Generic in its store, so that whoever built it with the whole store reads back the whole
    store from ``store``; the service itself uses only what RoundStore names.
    """

    def __init__(
        self,
        store: S,
        bank: Bank,
        clock: Clock,
        executor: Executor | None = None,
        reviews: ReviewScheduler | None = None,
        post_lease: dt.timedelta = POST_LEASE,
        speed: SpeedService | None = None,
    ) -> None:
        self.store = store
        self.bank = library_of(bank)
        self.clock = clock
        self.executor = executor
        # Times a daily speed round's tries (None: no channel draws a speed challenge).
        self.speed = speed
        self.post_lease = post_lease
        self._recorder = AnswerRecorder(store, self.bank, clock, reviews)
        self._pending = PendingGrader(store, self.bank, clock, executor, self._recorder)

    # ---------------------------------------------------------------- channels and members
    def channel(
        self,
        platform: str,
        external_id: str,
        workspace_external_id: str = "",
        defaults: ChannelDefaults | None = None,
    ) -> ChannelSettings:
        """Return the channel, registering it with default settings when first seen."""
        return self.store.ensure_channel(
            platform, external_id, workspace_external_id, defaults or ChannelDefaults()
        )

    def member(self, platform: str, external_id: str, display_name: str) -> Member:
        """Return the member, registering them when first seen."""
        return self.store.ensure_member(platform, external_id, display_name)

    def find_channel(self, platform: str, external_id: str) -> ChannelSettings | None:
        """Return the channel if it has a quiz (was set up), without creating it."""
        return self.store.find_channel(platform, external_id)

    def workspace_channels(self, platform: str, workspace: str) -> list[ChannelSettings]:
        """Return the channels with a quiz in one workspace (server, team), in id order."""
        return [c for c in self.store.list_channels(enabled_only=False)
                if c.platform == platform and c.workspace_external_id == workspace]

    def get_channel(self, channel_id: int) -> ChannelSettings:
        """Return a channel or raise NotFound."""
        channel = self.store.get_channel(channel_id)
        if channel is None:
            raise NotFound(f"channel {channel_id}")
        return channel

    # ---------------------------------------------------------------- rounds
    def local_date(self, channel: ChannelSettings, now: dt.datetime | None = None) -> dt.date:
        """Return the channel's local date at ``now``."""
        return (now or self.clock.now()).astimezone(ZoneInfo(channel.timezone)).date()

    def eligible_items(
        self, channel: ChannelSettings, paused: Collection[tuple[str, int]] | None = None
    ) -> list[str]:
        """Return the ids this channel may get: its packs, topics and difficulties, runnable here.

        The channel's workspace sees the shipped bank and its own packs only; among those, the
        channel draws from the packs it chose (``channel.packs``). When the chosen packs leave
        nothing (a removed pack, topics no chosen pack covers), it draws from the shipped bank
        with the same filters, and says so in the log and in its settings.
        A version paused as ``suspect_key`` (bot/core/quality/insights.py) is left out;
        ``paused`` is the set read once for a whole batch of channels (None: read it now).
        """
        if paused is None:
            paused = self.store.paused_items()
        found = self._eligible(channel, channel.packs, paused)
        if found or tuple(channel.packs) == DEFAULT_PACKS:
            return found
        log.warning("channel=%s: its packs %s leave no question; drawing from the shipped bank",
                    channel.id, ",".join(channel.packs))
        return self._eligible(channel, DEFAULT_PACKS, paused)

    def _eligible(self, channel: ChannelSettings, packs: Collection[str],
                  paused: Collection[tuple[str, int]]) -> list[str]:
        view = self.bank.view(channel_scope(channel), packs)
        items: list[Question | SpeedItem] = [q for q in view.questions if q.kind in channel.kinds]
        if "speed" in channel.kinds and SHIPPED in packs and self._times_speed():
            # Shipped speed challenges only: the timer knows no pack's (as /quiz speed).
            items += [s for s in self.bank.speed.values()
                      if s.id.startswith("speed.") and not s.speed.requires]
        return [
            q.id for q in items
            if (not channel.topics or set(q.topics) & set(channel.topics))
            and (not channel.difficulties or q.difficulty in channel.difficulties)
            and (q.id, q.version) not in paused
            and (isinstance(q, SpeedItem) or gradable(q, self.executor))
        ]

    def _times_speed(self) -> bool:
        return self.speed is not None and self.speed.executor is not None

    def item(self, item_id: str) -> Question | SpeedItem:
        """Return a round's item: a question, or a shipped speed challenge (KeyError: neither)."""
        found = self.bank.questions.get(item_id)
        return found if found is not None else self.bank.speed[item_id]

    def packs_leave_nothing(self, channel: ChannelSettings) -> bool:
        """Say whether the channel's chosen packs and filters leave no question to draw."""
        return (tuple(channel.packs) != DEFAULT_PACKS
                and not self._eligible(channel, channel.packs, ()))

    def post_round(self, channel_id: int) -> RoundPost | None:
        """Claim today's round for the channel and return the post; None if already posted.

        Claim first, post second: the unique (channel, date) key decides which replica posts.
        """
        self.get_channel(channel_id)  # NotFound for a channel that does not exist
        posts = self.post_rounds([channel_id])
        return posts[0] if posts else None

    def post_rounds(self, channel_ids: Sequence[int]) -> list[RoundPost]:
        """Claim today's round for each channel and return the posts this replica won.

        The channels due in one minute are claimed together, a chunk at a time: per chunk of
        up to CLAIM_CHUNK channels, which of them have a round already, the items they used,
        and one INSERT; plus one read of the channels and one of the paused items for the whole
        call, instead of five store calls per channel (10,000 channels due at 09:00 took up to
        two minutes that way). Picking a question is the CPU of a claim: a replica picks only
        for the channels of a chunk that no replica has claimed yet, and replicas start at
        different chunks, so that they share the minute's picks instead of each making them
        all. A channel that does not exist is logged and skipped.
        """
        channels = self.store.get_channels(channel_ids)
        now = self.clock.now()
        order = []
        for channel_id in dict.fromkeys(channel_ids):
            if channel_id in channels:
                order.append(channel_id)
            else:
                log.warning("round not posted: no channel %s", channel_id)
        chunks = [order[n:n + CLAIM_CHUNK] for n in range(0, len(order), CLAIM_CHUNK)]
        if len(chunks) > 1:
            # Not a secret: where this replica starts, so that replicas seldom meet.
            turn = random.randrange(len(chunks))  # noqa: S311
            chunks = chunks[turn:] + chunks[:turn]
        picker = _Picker(self)
        posts = []
        for chunk in chunks:
            claims = picker.claims([channels[c] for c in chunk], now)
            for claimed in self.store.claim_rounds(claims) if claims else ():
                channel = channels[claimed.channel_id]
                log.info("round claimed channel=%s round=%s item=%s", channel.id, claimed.id,
                         claimed.item_id)
                # A round this call just created has no answers yet: no tally query per channel.
                message = self.round_message(claimed, channel, Tally(solved=0, attempted=0))
                posts.append(RoundPost(channel, claimed, message))
        return posts

    def platform_channels(self, platform: str) -> list[ChannelSettings]:
        """Return the enabled channels on ``platform``, in id order (what a scheduler runs)."""
        return [c for c in self.store.list_channels() if c.platform == platform]

    def catch_up(self, platform: str, grace: dt.timedelta) -> list[RoundPost]:
        """Claim today's post of each channel whose post time passed while no bot ran.

        A post missed by at most ``grace`` is claimed now (once, like any post); a later one
        is skipped and logged, unless the day's round exists already.
        """
        now = self.clock.now()
        due, late = [], []
        for channel in self.platform_channels(platform):
            decision = missed_post(channel, now, grace)
            if decision is Missed.POST:
                due.append(channel.id)
            elif decision is Missed.SKIP:
                late.append(channel)
        if late:
            posted = self.store.rounds_exist([(c.id, self.local_date(c, now)) for c in late])
            for channel in late:
                if (channel.id, self.local_date(channel, now)) not in posted:
                    log.warning("missed post skipped channel=%s (more than %s late)",
                                channel.id, grace)
        return self.post_rounds(due) if due else []

    def unposted_rounds(self, platform: str) -> list[RoundPost]:
        """Claim and return open rounds whose post never went out, so they are posted once.

        A round is claimed, then posted; a crash (or a platform outage) in between leaves it
        claimed and unposted. Once the claim's lease has run out, the first replica to ask
        takes it over and posts it, after looking for the earlier attempt's post.
        """
        now = self.clock.now()
        stale = self.store.unposted_rounds(now, now - self.post_lease)
        if not stale:
            return []
        channels = self.store.get_channels(sorted({rnd.channel_id for rnd in stale}))
        posts = []
        for rnd in stale:
            channel = channels.get(rnd.channel_id)
            if channel is None or channel.platform != platform:
                continue
            if not self.store.claim_round_post(rnd.id, rnd.post_claimed_at, now):
                continue  # another replica took it over first
            log.warning("round %s of channel %s was never posted; posting it now", rnd.id,
                        channel.id)
            claimed = replace(rnd, post_claimed_at=now)
            posts.append(RoundPost(channel, claimed, self.round_message(claimed, channel),
                                   repost=True))
        return posts

    def post_for(self, round_id: int) -> tuple[ChannelSettings, str, Message] | None:
        """Return a posted round's channel, message ref and post as it should look now."""
        rnd = self.store.get_round(round_id)
        if rnd is None or rnd.message_ref is None:
            return None
        channel = self.get_channel(rnd.channel_id)
        return channel, rnd.message_ref, self.round_message(rnd, channel)

    def round_posted(self, round_id: int, message_ref: str) -> None:
        """Remember where a round was posted, for edits and the reveal thread."""
        self.store.set_round_message(round_id, message_ref)

    def latest_post(self, channel_id: int) -> Message | None:
        """Return the channel's latest round as it looks now (None before the first one)."""
        rnd = self.store.latest_round(channel_id)
        return self.round_message(rnd) if rnd is not None else None

    def now(self) -> dt.datetime:
        """Return the core's current time (the clock the composition root gave it)."""
        return self.clock.now()

    def round_message(
        self, rnd: Round, channel: ChannelSettings | None = None, tally: Tally | None = None
    ) -> Message:
        """Return the channel post of a round with its current tally (``tally``: known already)."""
        channel = channel or self.get_channel(rnd.channel_id)
        item = self.item(rnd.item_id)
        locale = channel.locale
        closes = rnd.closes_at.astimezone(ZoneInfo(channel.timezone)).strftime("%Y-%m-%d %H:%M")
        action = answer_action(rnd.id, "{key}")
        is_open = rnd.status is RoundStatus.OPEN
        if isinstance(item, SpeedItem):
            return speed_round.round_post(
                item, locale, title=t(locale, "round.title", date=rnd.local_date.isoformat()),
                closes=closes, tally=self._tally_line(rnd.id, locale, tally), round_id=rnd.id,
                form=speed_round.round_form(item, locale, form_action(rnd.id)) if is_open
                else None, closed=not is_open)
        seed = round_seed(rnd)  # the round's own option order, the same on every replica
        return posts.round_post(
            item, locale,
            title=t(locale, "round.title", date=rnd.local_date.isoformat()),
            closes=closes, tally=self._tally_line(rnd.id, locale, tally), round_id=rnd.id,
            buttons=posts.choice_buttons(item, action, seed=seed) if is_open else (), seed=seed,
            form=posts.answer_form(item, locale, form_action(rnd.id)) if is_open else None,
            closed=not is_open,
        )

    def answer_form(self, round_id: int, locale: str) -> Form | None:
        """Return the answer form of a round that still takes answers, else None."""
        rnd = self.store.get_round(round_id)
        if rnd is None or not self._is_open(rnd):
            return None
        item = self.item(rnd.item_id)
        if isinstance(item, SpeedItem):
            return speed_round.round_form(item, locale, form_action(rnd.id))
        return posts.answer_form(item, locale, form_action(rnd.id))

    def _is_open(self, rnd: Round) -> bool:
        return self._recorder.is_open(rnd)

    def _tally_line(self, round_id: int, locale: str, tally: Tally | None = None) -> str:
        if tally is None:
            tally = self.store.tally(round_id)
        return t(locale, "round.tally", solved=tally.solved, attempted=tally.attempted)

    def close_due_rounds(self, platform: str | None = None) -> list[Reveal]:
        """Close rounds past their time (on ``platform``, or all) and return each reveal once."""
        reveals = []
        for rnd in self.store.due_rounds(self.clock.now()):
            if platform is not None and self.get_channel(rnd.channel_id).platform != platform:
                continue  # that platform's bot closes it, so its reveal can be posted there
            reveal = self._close(rnd)
            if reveal is not None:
                reveals.append(reveal)
        return reveals

    def reveal_now(self, channel_id: int, actor: Actor) -> Reveal | Message:
        """Close the channel's open round early (admins only) and return its reveal."""
        channel = self.get_channel(channel_id)
        locale = actor.locale or channel.locale
        if not actor.is_admin:
            return Message(body=t(locale, "settings.denied"), tone=Tone.WARNING)
        rnd = self.store.latest_round(channel_id)
        if rnd is None or rnd.status is RoundStatus.CLOSED:
            return Message(body=t(locale, "answer.no_round"), tone=Tone.WARNING)
        return self._close(rnd) or Message(body=t(locale, "answer.closed"), tone=Tone.WARNING)

    def _close(self, rnd: Round) -> Reveal | None:
        if not self.store.close_round(rnd.id, self.clock.now()):
            return None  # another replica closed it and posts the reveal
        channel = self.get_channel(rnd.channel_id)
        closed = self.store.get_round(rnd.id) or rnd
        item = self.item(rnd.item_id)
        if isinstance(item, SpeedItem):
            message = speed_round.reveal(
                item, channel.locale,
                title=t(channel.locale, "reveal.title", date=rnd.local_date.isoformat()),
                tally=self._tally_line(rnd.id, channel.locale), round_id=rnd.id,
                board=self.store.round_speed_board(rnd.id, speed_round.ROUND_BOARD_ROWS))
            log.info("speed round closed channel=%s round=%s", channel.id, rnd.id)
            return Reveal(channel, closed, message, self.round_message(closed, channel))
        message = posts.reveal(
            item, channel.locale,
            title=t(channel.locale, "reveal.title", date=rnd.local_date.isoformat()),
            tally=self._tally_line(rnd.id, channel.locale), round_id=rnd.id,
            seed=round_seed(rnd), tries=self.store.first_tries(rnd.id),
            solution=self.bank.shows_solution(item.id),
        )
        log.info("round closed channel=%s round=%s", channel.id, rnd.id)
        return Reveal(channel, closed, message, self.round_message(closed, channel))

    # ---------------------------------------------------------------- answers
    def answer_round(
        self, round_id: int, actor: Actor, response: str, mode: AnswerMode = AnswerMode.TEXT
    ) -> AnswerOutcome:
        """Answer the round a button or form names, wherever its channel is."""
        rnd = self.store.get_round(round_id)
        if rnd is None:
            return self._private(t(actor.locale or "en", "answer.no_round"), Tone.WARNING)
        return self.answer(rnd, self.get_channel(rnd.channel_id), actor, response, mode)

    def submit_answer(
        self,
        channel_id: int,
        actor: Actor,
        response: str,
        mode: AnswerMode = AnswerMode.TEXT,
    ) -> AnswerOutcome:
        """Answer the channel's latest round (the console's /answer: no button names a round)."""
        channel = self.get_channel(channel_id)
        rnd = self.store.latest_round(channel_id)
        if rnd is None:
            locale = actor.locale or channel.locale
            return self._private(t(locale, "answer.no_round"), Tone.WARNING)
        return self.answer(rnd, channel, actor, response, mode)

    def answer(
        self,
        rnd: Round,
        channel: ChannelSettings,
        actor: Actor,
        response: str,
        mode: AnswerMode = AnswerMode.TEXT,
    ) -> AnswerOutcome:
        """Judge and record a member's answer to a round already looked up; reply privately.

        Storage: the member's earlier tries and FSRS card (one read), then the answer with
        its totals and the card's update (one write). No lock is held while judging (the
        executor's call): a second try racing this one is told apart by the answer's unique
        (round, member, attempt) when it is written.
        """
        locale = actor.locale or channel.locale
        if not self._is_open(rnd):
            return self._private(t(locale, "answer.closed"), Tone.WARNING, rnd.id)
        found = self.item(rnd.item_id)
        if isinstance(found, SpeedItem):
            return self._speed_answer(rnd, channel, actor, found, response, locale)
        item = found
        member = actor.member
        tries, card = self.store.answer_state(rnd.id, member.id, item.id)
        if tries.solved:
            return self._private(t(locale, "answer.already_solved"), Tone.INFO, rnd.id)
        limit = MAX_ATTEMPTS[item.kind]
        if tries.tried + tries.waiting >= limit:
            return self._private(t(locale, "answer.no_tries"), Tone.INFO, rnd.id)
        if tries.waiting and mode is AnswerMode.CODE:
            # Graded in the order sent: behind the member's answers that already wait.
            return self._defer(rnd, member, response, mode, locale)
        try:
            judgement = judge(item, response, mode, locale, self.executor, round_seed(rnd))
        except GradingUnavailable:
            return self._defer(rnd, member, response, mode, locale)
        except Exception:
            log.exception("judging failed channel=%s round=%s user=%s item=%s",
                          channel.id, rnd.id, member.id, item.id)
            return self._private(t(locale, "error.internal"), Tone.ERROR, rnd.id)
        if not judgement.counts:
            return AnswerOutcome(Message(body="\n".join(judgement.lines), detail=judgement.detail,
                                         tone=Tone.WARNING), False, rnd.id)
        reply = self._recorder.record(rnd, member, judgement, response, mode, locale,
                                      tries.tried + 1, self.clock.now(), card=card)
        if reply is None:
            # The same try arrived twice (a double click, a retried webhook): keep the first.
            return self._private(t(locale, "answer.duplicate"), Tone.INFO, rnd.id)
        return AnswerOutcome(reply, True, rnd.id, tally_changed=True)

    def _speed_answer(self, rnd: Round, channel: ChannelSettings, actor: Actor, item: SpeedItem,
                      code: str, locale: str) -> AnswerOutcome:
        """Time a try at a daily speed round; keep its verdict and answer once; reply privately.

        The try is timed by the speed executor (seconds: the front acknowledged first). A
        released faster verdict earns its score band's points (speed_points), less what the
        member's earlier tries at this round earned already: the round counts a member's
        best once. A held verdict earns nothing until an admin releases it (SpeedService.review
        then adds its answer in the release's own transaction).
        """
        member = actor.member
        speed = self.speed
        if speed is None:
            return self._private(t(locale, "speed.unavailable"), Tone.WARNING, rnd.id)
        earlier = self.store.answers_for(rnd.id, member.id)
        if len(earlier) >= SPEED_TRIES:
            return self._private(t(locale, "speed.round.no_tries", tries=SPEED_TRIES),
                                 Tone.INFO, rnd.id)
        timed = speed.time(member, item, code, locale)
        if isinstance(timed, Message):
            return AnswerOutcome(timed, False, rnd.id)
        attempt = max((a.attempt for a in earlier), default=0) + 1
        where = Where(channel.platform, channel.workspace_external_id, channel_scope(channel),
                      channel.id)
        record, message = speed.assess(member, where, item, timed, locale, round_id=rnd.id,
                                       attempt=attempt)
        if record is None:  # a fault or a refused run: no try spent
            return AnswerOutcome(message, False, rnd.id)
        best = sum(a.points for a in earlier)
        counted = record.faster and record.status == RELEASED
        points = max(0, speed_points(item.difficulty, record.score) - best) if counted else 0
        draft = AnswerDraft(
            round_id=rnd.id, user_id=member.id, attempt=attempt, mode=AnswerMode.CODE,
            response=code[:STORED_RESPONSE_CHARS], correct=counted, points=points,
            submitted_at=record.created_at, verdict_status=timed.status)
        if self.store.record_speed_answer(record, draft) is None:
            return self._private(t(locale, "answer.duplicate"), Tone.INFO, rnd.id)
        log.info("speed try recorded channel=%s round=%s user=%s attempt=%s faster=%s held=%s",
                 channel.id, rnd.id, member.id, attempt, record.faster, record.held)
        line = (t(locale, "speed.round.held") if record.held
                else speed_round.points_line(locale, points, best, counted))
        reply = replace(message, body=f"{message.body}\n{line}", audience=Audience.PRIVATE)
        return AnswerOutcome(reply, True, rnd.id, tally_changed=True)

    def tally_line(self, round_id: int, locale: str) -> str:
        """Return a round's tally as the channel sees it ("3 solved · 5 answered")."""
        return self._tally_line(round_id, locale)

    def _defer(
        self, rnd: Round, member: Member, response: str, mode: AnswerMode, locale: str
    ) -> AnswerOutcome:
        """Keep a code answer no executor can grade now; it is graded by grade_pending."""
        pending = self.store.add_pending(PendingDraft(
            round_id=rnd.id, user_id=member.id, mode=mode, response=response, locale=locale,
            submitted_at=self.clock.now(),
        ))
        log.warning("grading unavailable: answer kept pending=%s channel=%s round=%s user=%s",
                    pending.id, rnd.channel_id, rnd.id, member.id)
        return AnswerOutcome(Message(body=t(locale, "code.pending"), tone=Tone.INFO), False,
                             rnd.id)

    def grade_pending(self, platform: str | None = None) -> list[PrivateDelivery]:
        """Grade code answers that waited for an executor; return the results to deliver.

        Each is recorded exactly once, with the time it was sent: an answer sent in time
        counts even if its round closed since. Call it from one periodic job per platform.
        """
        return self._pending.grade(platform)

    @staticmethod
    def _private(text: str, tone: Tone, round_id: int | None = None) -> AnswerOutcome:
        return AnswerOutcome(Message(body=text, tone=tone), False, round_id)


# Channels claimed per chunk by post_rounds: the storage's batch (db.store_base.BATCH), so
# that a chunk costs one statement of each kind.
CLAIM_CHUNK = 500


class _Picker:
    """Pick today's question of channels, a chunk at a time, for one post_rounds call.

    What the picks of one call share is read or worked out once: the paused items (read when
    the first chunk needs a pick), and per choice of workspace, packs, topics and difficulties
    the eligible items and the team's own among them (a thousand channels on the defaults cost
    one filter of the bank).
    """

    def __init__(self, service: QuizService[Any]) -> None:
        self.service = service
        self.draws: dict[tuple[object, ...], _Draw] = {}
        self.paused: Collection[tuple[str, int]] | None = None

    def claims(self, chunk: Sequence[ChannelSettings], now: dt.datetime) -> list[RoundClaim]:
        """Return the claims of the chunk's channels that have no round for today yet."""
        store = self.service.store
        days = {c.id: self.service.local_date(c, now) for c in chunk}
        # Another replica usually got there first: skip picking a question for those.
        taken = store.rounds_exist(list(days.items()))
        free = [c for c in chunk if (c.id, days[c.id]) not in taken]
        if not free:
            return []
        used = store.used_items_of([c.id for c in free])
        if self.paused is None:
            self.paused = store.paused_items()
        claims = []
        for channel in free:
            today = days[channel.id]
            draw = self._draw(channel)
            # A team's own items first, until each was posted once here (docs/authoring.md).
            item_id = daily_pick(draw.items, used[channel.id],
                                 salt=f"{channel.id}|{today.isoformat()}", first=draw.first)
            if item_id is None:
                log.warning("no eligible item for channel=%s date=%s", channel.id, today)
                continue
            item = self.service.item(item_id)
            claims.append(RoundClaim(channel.id, today, item.id, item.version, now,
                                     now + dt.timedelta(hours=channel.round_hours),
                                     post_claimed_at=now))  # claimed with the round: one write
        return claims

    def _draw(self, channel: ChannelSettings) -> _Draw:
        choice = (channel_scope(channel), tuple(channel.packs),
                  frozenset(channel.topics), frozenset(channel.difficulties))
        draw = self.draws.get(choice)
        if draw is None:
            # Sorted once here: daily_pick sorts what it draws from, and a sorted list is one pass.
            items = sorted(self.service.eligible_items(channel, self.paused))
            draw = self.draws[choice] = _Draw(
                items, frozenset(i for i in items if pack_of(i) is not None))
        return draw


@dataclass(frozen=True)
class _Draw:
    """The items channels of one choice draw from, and the team's own among them."""

    items: list[str]
    first: frozenset[str]
