"""The core's ports: what it needs from storage, the executor, the clock, the platforms and charts.

db/ implements the store ports (bot/core/store.py: QuizStore, the union of every feature's),
executors/ implements Executor, each chat adapter a Publisher,
bot/charts.py the ChartRenderer, bot/pack_source.py the PackSource; the composition root
passes them in.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.core.kernel.messages import Message
from bot.core.kernel.models import (
    AnswerDraft,
    AnswerRecord,
    ChannelSettings,
    Chart,
    LeaderboardRow,
    Nudge,
    PrivateDelivery,
    Reveal,
    RoundPost,
    SpeedVerdictRecord,
    TopicMastery,
)
from content.loader import Question
from content.schema import ExplainCard

# The answer a released speed verdict adds to its daily round, worked out from the member's
# answers there (bot/core/speed: SpeedService; db: stored in the release's transaction).
RoundCount = Callable[[SpeedVerdictRecord, Sequence[AnswerRecord]], AnswerDraft]


class ThreadGone(Exception):
    """A live session's thread no longer takes posts (deleted, or its parent post deleted).

    Raised by ``Publisher.publish_live`` (Discord: 10003 Unknown Channel; Slack:
    thread_not_found, channel_not_found) so that the session goes on in its channel.
    """


class Clock(Protocol):
    """Tell the current time, always as an aware UTC datetime."""

    def now(self) -> dt.datetime:
        """Return the current instant in UTC."""
        ...


class Publisher(Protocol):
    """What a platform adapter offers the scheduler: post into a channel, return a reference.

    Each method sends one thing and raises on failure; the scheduler logs the failure with
    ids and carries on, so one platform error never stops the other channels' jobs.
    """

    async def publish_round(self, post: RoundPost) -> str:
        """Post a new round and return the platform's reference to the message.

        The post carries a marker naming the round (Slack: message metadata; Discord: the
        components' custom ids), so that ``find_round`` can recognise it later.
        """
        ...

    async def find_round(self, post: RoundPost) -> str | None:
        """Return the reference of this round's post if an earlier attempt made it, else None.

        Called before a ``repost``: the bot's own message carrying the round's marker, among
        the channel's messages since the round opened. Raise when the platform cannot be asked
        now (the post is then retried later); answer None where the platform will never tell
        (no permission to read the channel), after logging it.
        """
        ...

    async def publish_reveal(self, reveal: Reveal) -> None:
        """Post the reveal in the round's thread."""
        ...

    async def publish_board(self, channel: ChannelSettings, message: Message) -> None:
        """Post the weekly leaderboard to the channel."""
        ...

    async def publish_live(self, channel: ChannelSettings, message: Message,
                           thread: str | None = None, open_thread: bool = False) -> str | None:
        """Post a live session's lobby, question, reveal or final board, as it is.

        ``thread``: post in the session's thread (raise ThreadGone when it is gone); else in
        the channel. ``open_thread`` (the lobby): start the session's thread on this post
        and return its reference (None when none could be started).
        """
        ...

    async def deliver_private(self, delivery: PrivateDelivery) -> None:
        """Send ``delivery.message`` to the member privately, where they answered.

        ``delivery`` names the platform's own channel and member ids. Show it the way the
        adapter shows a private answer reply (Discord: a DM or an ephemeral follow-up; Slack:
        chat.postEphemeral in the channel), with ``detail`` and ``output`` through the
        sanitiser like any verdict. It is called after the answer was recorded: a failure
        loses the message, never the answer.
        """
        ...

    async def deliver_reminder(self, nudge: Nudge) -> None:
        """Send a review reminder to the member in a direct message, never in a channel.

        Raise bot.core.learning.reminders.MemberUnreachable when the platform says the member takes
        no direct messages (Discord: error 50007): the reminder is then turned off, not retried.
        """
        ...


class ChartRenderer(Protocol):
    """Draw the weekly leaderboard's chart and the per-topic mastery chart as images."""

    def leaderboard(
        self, rows: Sequence[LeaderboardRow], *, title: str, week_start: dt.date, locale: str
    ) -> Chart:
        """Return the top members' points for the week as a PNG, titled with the week."""
        ...

    def mastery(self, topics: Sequence[TopicMastery], *, title: str, locale: str,
                show_due: bool = True) -> Chart:
        """Return per-topic accuracy, answered count and reviews due as a PNG, in this order.

        ``show_due`` False leaves the reviews out (a team's chart: reviews are a member's own).
        """
        ...


class ReasonView(Protocol):
    """Why a code answer failed: a reason code, plain parameters, the sandbox's own words.

    The executor's ``Reason`` satisfies it; its parameters were checked where the verdict
    entered the bot. ``quote`` (an exception's text, a type's name) is untrusted: it is shown
    only through the one sanitiser, never inside a sentence.
    """

    @property
    def code(self) -> str:
        """Return the reason code (executors/grading/reasons.py names them)."""
        ...

    @property
    def params(self) -> Mapping[str, Any]:
        """Return the parameters: numbers, lists of numbers, short words."""
        ...

    @property
    def quote(self) -> str:
        """Return the sandbox's own words, or an empty string."""
        ...


class VerdictView(Protocol):
    """What the core reads of an executor verdict (the executor's Verdict satisfies it)."""

    @property
    def status(self) -> str:
        """Return passed, failed, error, timeout, memory_limit, output_limit or rejected."""
        ...

    @property
    def passed_tests(self) -> int:
        """Return how many hidden tests passed."""
        ...

    @property
    def total_tests(self) -> int:
        """Return how many hidden tests there were."""
        ...

    @property
    def message(self) -> str:
        """Return the first failing case, explained in English (empty when passed)."""
        ...

    @property
    def reason(self) -> ReasonView | None:
        """Return why it failed as a code each channel words in its language (None: passed)."""
        ...

    @property
    def stdout(self) -> str:
        """Return what the submission printed, truncated."""
        ...

    @property
    def duration_ms(self) -> float:
        """Return how long the run took."""
        ...

    @property
    def fault(self) -> bool:
        """Return whether the executor failed on this run (the verdict says nothing of the code)."""
        ...


class Executor(Protocol):
    """Run a code submission against a challenge's hidden tests and grade it."""

    def run(self, challenge_id: str, code: str, *, seed: int | None = None) -> VerdictView:
        """Return the verdict for hidden tests drawn from ``seed`` (None: the fixed ones).

        User failures are verdicts; only infrastructure faults raise. A remote executor that
        no replica can serve raises bot.core.kernel.errors.GradingUnavailable: the core then keeps
        the answer as pending and grades it later.
        """
        ...

    def supports(self, challenge_id: str) -> tuple[bool, str]:
        """Return whether this executor can run the challenge here, and why not."""
        ...


class SpeedVerdictView(VerdictView, Protocol):
    """A speed verdict (the executor's Verdict satisfies it): a verdict plus its timing report.

    ``speed`` is the grader's report as plain data (faster, held, reason, score, shapes with
    speedup, low, high): untrusted until bot.core.speed reads it, once, where it enters.
    """

    @property
    def speed(self) -> Mapping[str, Any] | None:
        """Return the timing report, or None when the code never got timed (wrong, error)."""
        ...


class SpeedExecutor(Protocol):
    """Time a submission against a speed challenge's reference in the sandbox."""

    def speed(self, challenge_id: str, code: str, *, seed: int | None = None
              ) -> SpeedVerdictView:
        """Return the speed verdict of ``code`` (a user failure is a verdict, never raised).

        Raise bot.core.kernel.errors.GradingUnavailable when no timer can take it now.
        """
        ...


@dataclass(frozen=True)
class ScopedPack:
    """A stored pack as the library holds it: its newest version's entries, and its scope.

    ``scope`` is ``PLATFORM:WORKSPACE`` or ``*`` (every workspace). ``history`` holds the
    questions of earlier versions that the newest one dropped: never drawn, still resolvable
    for the rounds and answers that name them. ``removed``: hidden from draws and lists.
    """

    pack_id: str
    version: int
    title: str
    scope: str
    removed: bool
    questions: Mapping[str, Question]
    cards: Mapping[str, ExplainCard]
    history: Mapping[str, Question] = field(default_factory=dict)
    # The header's show_solutions: False, and chat never shows this pack's reference solutions.
    show_solutions: bool = True


class PackSource(Protocol):
    """Where the team packs of every workspace are stored (db/store_packs.py behind it)."""

    def stamp(self) -> object:
        """Return a cheap token that changes whenever a pack is added or removed (one query)."""
        ...

    def load(self) -> list[ScopedPack]:
        """Return every stored pack, removed ones too, loaded and ready to draw from."""
        ...


# ---------------------------------------------------------------- team packs from chat
# (bot/core/desk/packs.py; implemented in bot/pack_tools.py, wired by bot/bootstrap.py)


@dataclass(frozen=True)
class PackCheck:
    """The validation report of one uploaded pack file, as plain data for the desk.

    ``errors`` each start with their place in the file ("line 12, column 3: ..."). When the
    file parsed, ``pack_id``, ``version``, ``title`` and ``locales`` come from its header, and
    ``text`` and ``document`` are what a shelf stores (the YAML, the validated data as JSON).
    Texts here come from a chat member's file: shown only through ``safetext.inert``.
    """

    ok: bool
    errors: tuple[str, ...] = ()
    items: int = 0
    cards: int = 0
    pack_id: str = ""
    version: int = 0
    title: str = ""
    locales: tuple[str, ...] = ()
    text: str = ""
    document: str = ""


@dataclass(frozen=True)
class ShelvedPack:
    """One stored version of a pack, as the desk lists and exports it."""

    pack_id: str
    version: int
    scope: str  # "PLATFORM:WORKSPACE", or "*" for every workspace of the deployment
    title: str
    locales: tuple[str, ...]
    text: str
    removed: bool = False
    created_at: dt.datetime | None = None  # when this version was stored


class PackConflict(ValueError):
    """Raised by a shelf when a pack cannot be stored as asked (its id or version is taken)."""


class PackChecker(Protocol):
    """Validate a pack file as the shipped bank is validated; its code runs only in a sandbox."""

    def check(self, data: bytes) -> PackCheck:
        """Return the report of ``data``; a bad file is errors in the report, never a raise."""
        ...


class PackShelf(Protocol):
    """Where packs are stored: every version, scoped to one workspace or to all of them."""

    def add(self, check: PackCheck, scope: str) -> ShelvedPack:
        """Store a valid pack's new version for ``scope``; raise PackConflict when taken."""
        ...

    def latest(self, workspace: str) -> list[ShelvedPack]:
        """Return the newest version of each pack ``workspace`` sees (its own and shared)."""
        ...

    def versions(self, pack_id: str) -> list[ShelvedPack]:
        """Return every stored version of ``pack_id`` whatever its scope, oldest first."""
        ...

    def remove(self, pack_id: str, workspace: str) -> bool:
        """Hide ``workspace``'s own pack from lists and draws (history stays)."""
        ...


@dataclass(frozen=True)
class PackTools:
    """What the desk needs for /quiz-pack: a checker and a shelf (None: packs are off)."""

    checker: PackChecker
    shelf: PackShelf
