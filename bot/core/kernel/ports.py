"""The core's ports: what it needs from storage, the executor, the clock, the platforms and charts.

db/ implements QuizStore, executors/ implements Executor, each chat adapter a Publisher,
bot/charts.py the ChartRenderer, bot/pack_source.py the PackSource; the composition root
passes them in.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.core.kernel.messages import Message
from bot.core.kernel.models import (
    AnswerDraft,
    AnswerRecord,
    Attempts,
    ChannelDefaults,
    ChannelSettings,
    ChannelUpdate,
    Chart,
    DueReminder,
    FirstTries,
    ForgetReport,
    ItemResult,
    ItemTally,
    LeaderboardRow,
    Member,
    MemberData,
    Nudge,
    PendingAnswer,
    PendingDraft,
    PracticeSession,
    PrivateDelivery,
    Reminder,
    ReminderClaim,
    Report,
    ReportCounts,
    ReportDraft,
    Resolved,
    Reveal,
    Review,
    Round,
    RoundClaim,
    RoundPost,
    ScoreRow,
    Tally,
    TopicMastery,
)
from content.loader import Question
from content.schema import ExplainCard


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
        """Return the first failing case, explained (empty when passed)."""
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


class QuizStore(Protocol):
    """Persist channels, members, rounds, answers and practice state.

    Every method is its own transaction. Methods that claim something (a round for a date, an
    answer attempt, the closing of a round) return None or False when another caller got there
    first, so any number of bot replicas can run against one database.
    """

    # channels
    def ensure_channel(
        self, platform: str, external_id: str, workspace_external_id: str, defaults: ChannelDefaults
    ) -> ChannelSettings:
        """Return the channel, creating it with ``defaults`` when first seen."""
        ...

    def get_channel(self, channel_id: int) -> ChannelSettings | None:
        """Return the channel with this id, if any."""
        ...

    def get_channels(self, channel_ids: Sequence[int]) -> dict[int, ChannelSettings]:
        """Return the channels among these ids that exist, by id, in a few queries at most."""
        ...

    def find_channel(self, platform: str, external_id: str) -> ChannelSettings | None:
        """Return the channel known by this platform id, if any."""
        ...

    def list_channels(self, *, enabled_only: bool = True) -> list[ChannelSettings]:
        """Return channels in id order."""
        ...

    def update_channel(self, channel_id: int, update: ChannelUpdate) -> ChannelSettings:
        """Apply the non-None fields of ``update`` and return the new settings."""
        ...

    # requests: what a chat request reads first, in one transaction each
    def resolve(
        self,
        platform: str,
        user_external_id: str,
        display_name: str,
        channel_external_id: str = "",
        round_id: int | None = None,
    ) -> Resolved:
        """Return the member (created or renamed), the channel and the round, in one transaction.

        With ``round_id`` the channel is the round's own; otherwise the channel known by
        ``channel_external_id`` on ``platform`` (None in both cases when there is none).
        """
        ...

    def attempts(self, round_id: int, user_id: int) -> Attempts:
        """Return the member's recorded tries at a round and how many code answers still wait."""
        ...

    # members
    def ensure_member(self, platform: str, external_id: str, display_name: str) -> Member:
        """Return the member, creating it or refreshing its display name."""
        ...

    def get_member(self, member_id: int) -> Member | None:
        """Return the member with this id, if any."""
        ...

    def set_hidden(self, user_id: int, hidden: bool) -> None:
        """Keep the member off every public board (True), or show them again (False)."""
        ...

    # rounds
    def claim_round(
        self,
        channel_id: int,
        local_date: dt.date,
        item_id: str,
        item_version: int,
        opened_at: dt.datetime,
        closes_at: dt.datetime,
    ) -> Round | None:
        """Create the round for (channel, date); return None when it already exists."""
        ...

    def rounds_exist(self, keys: Sequence[tuple[int, dt.date]]) -> set[tuple[int, dt.date]]:
        """Return which of these (channel_id, local_date) keys have a round, in a few queries."""
        ...

    def claim_rounds(self, claims: Sequence[RoundClaim]) -> list[Round]:
        """Create every claimed round whose (channel, date) has none yet; return those created.

        One statement per few hundred claims, so a minute in which thousands of channels are
        due costs a handful of round trips; a round another replica created is left alone.
        """
        ...

    def set_round_message(self, round_id: int, message_ref: str) -> None:
        """Remember where the round was posted (ending its post claim), for edits and reveal."""
        ...

    def claim_round_post(
        self, round_id: int, expected: dt.datetime | None, claimed_at: dt.datetime
    ) -> bool:
        """Move the unposted round's post claim from ``expected`` to ``claimed_at`` atomically.

        Return False when another caller moved it first, or the round was posted meanwhile:
        the claim that makes re-posting after a crash happen once across replicas.
        """
        ...

    def unposted_rounds(self, now: dt.datetime, stale_before: dt.datetime) -> list[Round]:
        """Return unposted open rounds, unclaimed or claimed before ``stale_before``."""
        ...

    def get_round(self, round_id: int) -> Round | None:
        """Return the round with this id, if any."""
        ...

    def round_for_date(self, channel_id: int, local_date: dt.date) -> Round | None:
        """Return the channel's round for that local date, if any."""
        ...

    def latest_round(self, channel_id: int) -> Round | None:
        """Return the channel's most recent round, open or closed."""
        ...

    def due_rounds(self, now: dt.datetime) -> list[Round]:
        """Return open rounds whose closing time has passed."""
        ...

    def close_round(self, round_id: int, closed_at: dt.datetime) -> bool:
        """Close an open round; return False when it was already closed."""
        ...

    def used_items(self, channel_id: int) -> dict[str, dt.date]:
        """Return each item the channel has had, with the last date it was posted."""
        ...

    def used_items_of(self, channel_ids: Sequence[int]) -> dict[int, dict[str, dt.date]]:
        """Return ``used_items`` of every channel among these ids, in a few queries at most."""
        ...

    def round_dates(self, channel_id: int) -> list[dt.date]:
        """Return the local dates of the channel's rounds, oldest first."""
        ...

    # answers
    def record_answer(self, draft: AnswerDraft) -> AnswerRecord | None:
        """Store the answer; return None when that attempt was already recorded."""
        ...

    def answers_for(self, round_id: int, user_id: int) -> list[AnswerRecord]:
        """Return a member's answers to a round, by attempt."""
        ...

    def tally(self, round_id: int) -> Tally:
        """Return how many members solved and attempted the round."""
        ...

    def scores(self, channel_id: int, since: dt.datetime | None = None) -> list[ScoreRow]:
        """Return every member's points in the channel, for answers at or after ``since``.

        Recounted from every answer: the reference for checks and tools, too slow for a board
        of a big channel (use top_scores there).
        """
        ...

    def top_scores(
        self, channel_id: int, week_start: dt.datetime | None, limit: int | None
    ) -> list[ScoreRow]:
        """Return the leaderboard's visible members with points, from totals kept with answers.

        ``week_start`` is models.week_start of now in the channel's zone for the weekly board,
        None for all time; the rows equal ``scores`` for that period, limited to members whose
        competition rank (points, then solved, then earliest last solve) is within ``limit``,
        so a tie at the cut comes whole. None means every member with points. Hidden members
        are left out and rank among nobody: the visible ones rank among themselves.
        """
        ...

    def member_score(self, channel_id: int, user_id: int) -> ScoreRow | None:
        """Return the member's all-time totals in the channel (None if they never answered)."""
        ...

    def hidden_with_points(self, channel_id: int, week_start: dt.datetime | None) -> int:
        """Return how many hidden members have points on the board of that period."""
        ...

    def member_rank(
        self, channel_id: int, user_id: int, week_start: dt.datetime | None
    ) -> tuple[int, int] | None:
        """Return (competition rank, of how many) among the visible members with points.

        Ranks as ``top_scores`` orders (hidden members never shift a visible one); a hidden
        member gets the place they would take and counts in "of". None without points.
        """
        ...

    def due_review_items(self, user_id: int, now: dt.datetime) -> list[str]:
        """Return the items whose FSRS card is due for the member at ``now``, soonest first."""
        ...

    def channel_item_results(self, channel_id: int) -> list[tuple[str, int, int]]:
        """Return (item, member-rounds answered, solved) per item of the channel's rounds."""
        ...

    def solved_dates(self, channel_id: int, user_id: int) -> list[dt.date]:
        """Return the local dates of rounds the member solved, oldest first."""
        ...

    def recent_solved_dates(
        self, channel_id: int, user_ids: Collection[int], since: dt.date | None
    ) -> dict[int, list[dt.date]]:
        """Return, per member, the dates of rounds from ``since`` on they solved, in few queries.

        Members who solved none of them are absent; None means every round.
        """
        ...

    def item_results(self, user_id: int, channel_id: int | None = None) -> list[ItemResult]:
        """Return the member's final outcome per daily round and practice answer."""
        ...

    # pending answers: code answers that wait for an executor
    def add_pending(self, draft: PendingDraft) -> PendingAnswer:
        """Store a code answer to grade later."""
        ...

    def pending_for(self, round_id: int, user_id: int) -> list[PendingAnswer]:
        """Return a member's pending answers to a round, oldest first."""
        ...

    def claim_pending(
        self, platform: str | None, now: dt.datetime, stale_before: dt.datetime
    ) -> PendingAnswer | None:
        """Claim the oldest pending answer that is first in its member's queue.

        Only a member's oldest pending answer to a round can be claimed, so their answers are
        graded in the order they were sent, whichever replica grades them. A claim made before
        ``stale_before`` was abandoned (its replica died) and may be taken over. None when
        nothing (on ``platform``'s channels, or anywhere for None) is free to grade.
        """
        ...

    def release_pending(self, pending_id: int, claim: str) -> None:
        """Give a claimed pending answer back, to be graded on a later sweep."""
        ...

    def resolve_pending(self, pending_id: int, claim: str, draft: AnswerDraft | None) -> bool:
        """Remove a claimed pending answer and record ``draft`` (if any) in one transaction.

        Return False, recording nothing, when the claim is no longer ours or the attempt was
        recorded meanwhile: the answer is then graded once, by whoever holds it.
        """
        ...

    # practice
    def start_practice(self, session: PracticeSession) -> None:
        """Make ``session`` the member's current practice question (replacing any)."""
        ...

    def current_practice(self, user_id: int) -> PracticeSession | None:
        """Return the member's current practice question, if any."""
        ...

    def finish_practice(self, user_id: int, item_id: str) -> bool:
        """End the practice session on ``item_id``; False when it was not current any more."""
        ...

    def record_practice_result(
        self, user_id: int, item_id: str, item_version: int, correct: bool, at: dt.datetime
    ) -> None:
        """Store the outcome of a finished practice question (feeds per-topic mastery)."""
        ...

    def bump_practice_attempts(self, user_id: int, item_id: str) -> int:
        """Count one more wrong try on the current practice item and return the count."""
        ...

    def get_review(self, user_id: int, item_id: str) -> Review | None:
        """Return the member's review state for an item, if any."""
        ...

    def save_review(self, review: Review) -> None:
        """Insert or replace the review state of (user, item)."""
        ...

    def reviews(self, user_id: int) -> list[Review]:
        """Return all the member's review states, soonest due first."""
        ...

    # reminders (/quiz-remind)
    def save_reminder(self, reminder: Reminder) -> Reminder:
        """Insert or replace the member's reminder setting."""
        ...

    def get_reminder(self, user_id: int) -> Reminder | None:
        """Return the member's reminder setting, if any."""
        ...

    def due_reminders(self, platform: str, now: dt.datetime, limit: int,
                      hidden: Collection[str] = ()) -> list[DueReminder]:
        """Return up to ``limit`` enabled reminders on ``platform`` due at ``now``, in one query.

        Each comes with the member's count of reviews due at ``now`` (leaving out the items in
        ``hidden``, no longer served) and the channel where they opted in; soonest due first.
        """
        ...

    def claim_reminders(self, claims: Sequence[ReminderClaim], now: dt.datetime) -> set[int]:
        """Move each claimed reminder still due at ``now`` on; return the members moved.

        One UPDATE per batch: a reminder another replica moved first is left alone, so every
        nudge is claimed (then sent) once across replicas.
        """
        ...

    def stop_reminder(self, user_id: int, reason: str | None = None) -> bool:
        """Turn the member's reminder off; with ``reason`` they are told once, later."""
        ...

    def take_reminder_notice(self, platform: str, member_external_id: str) -> str | None:
        """Return why the member's reminder was turned off, once; None when nothing to tell."""
        ...

    # a member's own data: export and forget (bot/core/people/service.py)
    def member_data(
        self, platform: str, external_id: str, workspace: str | None = None
    ) -> MemberData | None:
        """Return everything stored about the member, section by section; None if unknown.

        ``workspace`` narrows the sections tied to channels to that workspace's channels (None
        when the platform has no such workspace); the others belong to the member wherever
        they are.
        """
        ...

    def forget_member(self, platform: str, external_id: str) -> ForgetReport | None:
        """Delete the member and every row about them in one transaction; None if unknown.

        The channels' kept totals stay equal to a recount of the answers that remain.
        """
        ...

    # reports of faulty questions (bot/core/quality/reports.py) and the answer counts shown
    # beside them
    def add_report(self, draft: ReportDraft) -> Report | None:
        """Store the report; None when the member already reported this item version."""
        ...

    def reports(
        self, *, status: str | None = "open", platform: str | None = None,
        workspace: str | None = None, limit: int | None = None,
    ) -> list[Report]:
        """Return reports, oldest first: open ones by default, of one workspace if named."""
        ...

    def count_reports(self, *, platform: str | None = None, workspace: str | None = None) -> int:
        """Return how many open reports there are (of one workspace if named)."""
        ...

    def close_report(
        self, report_id: int, reason: str, at: dt.datetime, *,
        platform: str | None = None, workspace: str | None = None,
    ) -> Report | None:
        """Close an open report with a reason; None when there is no such open report (there)."""
        ...

    def open_reports(self, item_id: str | None = None) -> list[ReportCounts]:
        """Return the open reports per item version (of ``item_id`` only if named), by reason."""
        ...

    def first_tries(self, round_id: int) -> list[FirstTries]:
        """Return how many members gave each response on their first try at the round."""
        ...

    def week_first_tries(
        self, channel_id: int, since: dt.date, until: dt.date
    ) -> list[FirstTries]:
        """Return ``first_tries`` of the channel's closed rounds from ``since`` to ``until``.

        ``until`` is excluded; rounds still open are left out, so nothing is spoiled.
        """
        ...

    # item analytics (bot/core/quality/insights.py)
    def item_tallies(self, since: dt.date | None = None) -> list[ItemTally]:
        """Return the sums of each answered item version's first tries at daily rounds.

        One aggregate statement whatever the number of answers: per member and version, then
        per member, then per version. ``since``: only rounds dated that day or later.
        """
        ...

    def paused_items(self) -> set[tuple[str, int]]:
        """Return the (item id, version) keys no daily pick may choose (one small read)."""
        ...

    def pause_items(
        self, keys: Collection[tuple[str, int]], reason: str, at: dt.datetime
    ) -> list[tuple[str, int]]:
        """Pause these item versions unless paused (or unpaused) before; return those paused now.

        An admin's unpause is kept: the same version is not paused again by the same evidence.
        """
        ...

    def unpause_item(self, item_id: str, at: dt.datetime) -> list[int]:
        """Unpause every paused version of ``item_id``; return the versions unpaused."""
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


class PackSource(Protocol):
    """Where the team packs of every workspace are stored (db/store_packs.py behind it)."""

    def stamp(self) -> object:
        """Return a cheap token that changes whenever a pack is added or removed (one query)."""
        ...

    def load(self) -> list[ScopedPack]:
        """Return every stored pack, removed ones too, loaded and ready to draw from."""
        ...


# ---------------------------------------------------------------- team packs from chat
# (bot/core/desk_packs.py; implemented in bot/pack_tools.py, wired by bot/bootstrap.py)


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
