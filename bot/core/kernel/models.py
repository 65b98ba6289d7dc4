"""Values that flow between the core, storage and adapters: frozen, platform-neutral dataclasses."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.core.kernel.messages import Message

SUPPORTED_LOCALES: tuple[str, ...] = ("en", "zh-CN")


def week_start(now: dt.datetime, timezone: str) -> dt.datetime:
    """Return Monday 00:00 of the week holding ``now`` in the channel's zone, as UTC.

    The core's weekly leaderboard starts there, and storage keeps its weekly totals under that
    instant, so this one rule serves both sides of the port.
    """
    local = now.astimezone(ZoneInfo(timezone))
    monday = local.date() - dt.timedelta(days=local.weekday())
    start = dt.datetime.combine(monday, dt.time(0, 0), tzinfo=ZoneInfo(timezone))
    return start.astimezone(dt.UTC)


class RoundStatus(StrEnum):
    """Whether a daily round still takes answers."""

    OPEN = "open"
    CLOSED = "closed"


class AnswerMode(StrEnum):
    """How a member answered: a button, a short text or a code submission."""

    BUTTON = "button"
    TEXT = "text"
    CODE = "code"


@dataclass(frozen=True)
class ChannelSettings:
    """A team channel and the schedule, language and content it chose."""

    id: int
    platform: str
    external_id: str
    workspace_external_id: str
    name: str
    post_time: dt.time = dt.time(9, 0)
    timezone: str = "UTC"
    locale: str = "en"
    topics: tuple[str, ...] = ()  # empty: every topic
    difficulties: tuple[int, ...] = ()  # empty: every difficulty
    packs: tuple[str, ...] = ("bank",)  # the packs it draws from; "bank": the shipped bank
    enabled: bool = True
    leaderboard_weekday: int = 4  # Monday is 0; Friday by default
    leaderboard_hour: int = 16
    round_hours: int = 23  # a round closes this long after it opens, before the next one


@dataclass(frozen=True)
class ChannelDefaults:
    """Settings a channel starts with when it is first seen."""

    name: str = ""
    post_time: dt.time = dt.time(9, 0)
    timezone: str = "UTC"
    locale: str = "en"


@dataclass(frozen=True)
class ChannelUpdate:
    """A partial change of channel settings; None leaves a field as it is."""

    post_time: dt.time | None = None
    timezone: str | None = None
    locale: str | None = None
    topics: tuple[str, ...] | None = None
    difficulties: tuple[int, ...] | None = None
    packs: tuple[str, ...] | None = None
    enabled: bool | None = None
    leaderboard_weekday: int | None = None
    leaderboard_hour: int | None = None


@dataclass(frozen=True)
class Member:
    """A person on one platform, as the quiz knows them."""

    id: int
    platform: str
    external_id: str
    display_name: str
    hidden: bool = False  # kept off public boards, weekly posts and charts (still scored)


@dataclass(frozen=True)
class Round:
    """One channel's question for one local date; (channel_id, local_date) is unique."""

    id: int
    channel_id: int
    local_date: dt.date
    item_id: str
    item_version: int
    status: RoundStatus
    opened_at: dt.datetime
    closes_at: dt.datetime
    message_ref: str | None = None  # where the platform shows the post, once it went out
    # When a replica claimed the post (null once posted): a claim older than the post lease
    # was abandoned, and the post may or may not have reached the platform.
    post_claimed_at: dt.datetime | None = None


@dataclass(frozen=True)
class RoundClaim:
    """A round to create for (channel_id, local_date) unless one exists: what replicas race for."""

    channel_id: int
    local_date: dt.date
    item_id: str
    item_version: int
    opened_at: dt.datetime
    closes_at: dt.datetime
    post_claimed_at: dt.datetime | None = None  # the post is claimed with the round


@dataclass(frozen=True)
class AnswerDraft:
    """An answer about to be recorded; (round_id, user_id, attempt) is unique."""

    round_id: int
    user_id: int
    attempt: int
    mode: AnswerMode
    response: str  # what the member sent, truncated for storage
    correct: bool
    points: int
    submitted_at: dt.datetime
    verdict_status: str | None = None  # the executor's status, for code answers


@dataclass(frozen=True)
class AnswerRecord:
    """An answer as stored."""

    id: int
    round_id: int
    user_id: int
    attempt: int
    mode: AnswerMode
    response: str
    correct: bool
    points: int
    submitted_at: dt.datetime
    verdict_status: str | None = None


@dataclass(frozen=True)
class PendingDraft:
    """A code answer to keep until an executor can grade it."""

    round_id: int
    user_id: int
    mode: AnswerMode
    response: str  # the whole code: it must be graded as it was sent
    locale: str  # the language the member will read the result in
    submitted_at: dt.datetime  # recorded as the answer's time once graded


@dataclass(frozen=True)
class PendingAnswer:
    """A stored pending answer; ``claim`` is set while one bot replica grades it."""

    id: int
    round_id: int
    user_id: int
    mode: AnswerMode
    response: str
    locale: str
    submitted_at: dt.datetime
    claim: str | None = None


@dataclass(frozen=True)
class Tally:
    """How a round is going, without spoiling the answer."""

    solved: int
    attempted: int


@dataclass(frozen=True)
class ScoreRow:
    """One member's points in a channel over a period."""

    user_id: int
    display_name: str
    points: int
    solved: int
    first_try: int
    last_solved_at: dt.datetime | None
    attempted: int = 0  # rounds the member answered at all, solved or not


@dataclass(frozen=True)
class ItemResult:
    """A member's outcome on one item (daily or practice), for per-topic mastery."""

    item_id: str
    correct: bool
    answered_at: dt.datetime


@dataclass(frozen=True)
class Review:
    """One member's FSRS card for one item: its memory state and when it is due again.

    ``state`` is FSRS's (1 learning, 2 review, 3 relearning); ``step`` the learning step while
    learning; ``stability`` (days until recall drops to 90 %) and ``difficulty`` (1-10) are
    None until the first review has set them.
    """

    user_id: int
    item_id: str
    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due_at: dt.datetime
    reviewed_at: dt.datetime | None
    last_correct: bool


@dataclass(frozen=True)
class PracticeSession:
    """The practice question a member is currently answering."""

    user_id: int
    item_id: str
    item_version: int
    started_at: dt.datetime
    attempts: int = 0


@dataclass(frozen=True)
class LeaderboardRow:
    """A ranked line of a leaderboard."""

    rank: int
    user_id: int
    display_name: str
    points: int
    solved: int
    streak: int
    freezes: int = 0  # streak freezes held now (shown on the boards as ❄)


@dataclass(frozen=True)
class TopicMastery:
    """How well a member (or a team) knows one topic, and how many of its reviews are due."""

    topic: str
    attempted: int
    solved: int
    due: int = 0

    @property
    def ratio(self) -> float:
        """Return the share of attempted items solved (0 when none attempted)."""
        return self.solved / self.attempted if self.attempted else 0.0


@dataclass(frozen=True)
class Actor:
    """Who issues a command, with the permission the platform reported for them."""

    member: Member
    is_admin: bool = False
    locale: str | None = None  # the member's own language, when the platform knows it


@dataclass(frozen=True)
class Stats:
    """A member's numbers in a channel."""

    points: int
    solved: int
    attempted: int
    streak: int
    best_streak: int
    mastery: tuple[TopicMastery, ...] = field(default_factory=tuple)
    freezes: int = 0  # streak freezes held now
    reviews_due: int = 0  # FSRS cards due now, every topic
    rank_week: Rank | None = None  # None: no points in that period
    rank_all: Rank | None = None


@dataclass(frozen=True)
class Rank:
    """A member's place on a board: ``rank`` among ``of`` visible members with points."""

    rank: int
    of: int


@dataclass(frozen=True)
class Identity:
    """Who acts and where, as a chat platform reported it: the one input of every chat request.

    Every field was parsed and bounded at the platform's boundary. ``is_admin`` is what the
    platform's server said of the member (Discord's permissions, Slack's users.info), never a
    claim of the client. ``locale`` is the member's own client language, when known.
    """

    platform: str
    workspace: str
    channel: str
    user: str
    display_name: str
    locale: str | None = None
    is_admin: bool = False
    channel_name: str = ""


@dataclass(frozen=True)
class Resolved:
    """What one storage call found for a request: the member, the channel, the round."""

    member: Member
    channel: ChannelSettings | None
    round: Round | None = None


@dataclass(frozen=True)
class Attempts:
    """A member's tries at a round so far: recorded ones and code answers still waiting."""

    solved: bool
    tried: int
    waiting: int


@dataclass(frozen=True)
class RoundPost:
    """A round that was just claimed and must now be posted by the adapter.

    ``repost`` says an earlier claim of this round ran out: that attempt may have reached the
    platform (a crash or a client timeout after the platform accepted it), so the publisher
    must look for the round's own post before posting it again.
    """

    channel: ChannelSettings
    round: Round
    message: Message
    repost: bool = False


@dataclass(frozen=True)
class Reveal:
    """A round that was just closed, with the reveal to post in its thread."""

    channel: ChannelSettings
    round: Round
    message: Message


@dataclass(frozen=True)
class BoardPost:
    """A channel's weekly leaderboard post, for the adapter to publish."""

    channel: ChannelSettings
    message: Message


@dataclass(frozen=True)
class PrivateDelivery:
    """A private message for one member, sent later (the result of a pending answer).

    The ids are the platform's own, so the adapter of ``platform`` can deliver it without
    asking the core anything else.
    """

    platform: str
    channel_external_id: str
    member_external_id: str
    message: Message
    round_id: int


@dataclass(frozen=True)
class Chart:
    """A rendered chart image and the file name to attach it under."""

    png: bytes
    name: str


@dataclass(frozen=True)
class Reminder:
    """A member's opt-in to one private nudge a day when reviews are due (/quiz-remind).

    ``at`` is the local time of day in ``timezone`` (the zone of the channel where they opted
    in, kept with the setting); ``next_at`` the instant of the next nudge, which claiming a
    nudge moves on; ``last_sent`` and ``snoozed_until`` are local dates. ``stopped`` says why a
    reminder was turned off by us (``"dm_closed"``); ``notice`` that the member still has to
    be told so.
    """

    user_id: int
    platform: str
    member_external_id: str
    channel_id: int
    at: dt.time
    timezone: str
    enabled: bool
    next_at: dt.datetime
    last_sent: dt.date | None = None
    snoozed_until: dt.date | None = None
    stopped: str | None = None
    notice: bool = False


@dataclass(frozen=True)
class DueReminder:
    """A reminder whose time came, with the member's due reviews and where they opted in."""

    reminder: Reminder
    due_reviews: int
    channel_external_id: str
    workspace_external_id: str
    locale: str


@dataclass(frozen=True)
class ReminderClaim:
    """Move a due reminder on to ``next_at``; ``sent_on`` is the local date of a nudge sent now.

    ``sent_on`` is None for a member with nothing due: their reminder moves on unsent.
    """

    user_id: int
    next_at: dt.datetime
    sent_on: dt.date | None


@dataclass(frozen=True)
class Nudge:
    """A reminder to deliver privately: the platform's own ids, never a public channel's."""

    platform: str
    user_id: int
    member_external_id: str
    workspace_external_id: str
    locale: str
    message: Message


# A member's own data (bot/core/people/service.py): what storage holds about them, as plain values.
Value = str | int | float | bool | None | dt.datetime | dt.date
Row = Mapping[str, Value]


@dataclass(frozen=True)
class DataSection:
    """One kind of row stored about a member; ``by_workspace``: tied to channels, so scopable."""

    name: str
    rows: tuple[Row, ...]
    by_workspace: bool = False


@dataclass(frozen=True)
class MemberData:
    """Everything stored about a member (``workspace``: channel sections narrowed to it)."""

    member: Member
    sections: tuple[DataSection, ...]
    workspace: str | None = None

    def counts(self) -> dict[str, int]:
        """Return how many rows each section holds."""
        return {s.name: len(s.rows) for s in self.sections}


@dataclass(frozen=True)
class ForgetReport:
    """What forgetting a member deleted: rows per section, and the rounds whose tally changed."""

    member: Member
    deleted: tuple[tuple[str, int], ...]
    open_rounds: tuple[int, ...] = ()  # open rounds the member had answered: redraw their tally


# Reports of faulty questions (bot/core/quality/reports.py): one per member per item version.
REPORT_REASONS: tuple[str, ...] = (
    "incorrect", "ambiguous", "several_correct", "outdated", "translation", "other",
)


@dataclass(frozen=True)
class ReportDraft:
    """A member's report of a question version, about to be stored.

    ``note`` is the member's own words (already capped): every front end shows it only
    through ``safetext.inert``. ``platform``/``workspace`` say where it was filed, so a chat
    admin lists only their own workspace's reports.
    """

    user_id: int
    item_id: str
    item_version: int
    reason: str
    note: str
    platform: str
    workspace: str
    created_at: dt.datetime
    round_id: int | None = None


@dataclass(frozen=True)
class Report:
    """A stored report; ``status`` is open until an admin closes it with a reason."""

    id: int
    user_id: int
    item_id: str
    item_version: int
    reason: str
    note: str
    platform: str
    workspace: str
    created_at: dt.datetime
    status: str = "open"
    round_id: int | None = None
    closed_at: dt.datetime | None = None
    close_reason: str = ""


@dataclass(frozen=True)
class ReportCounts:
    """The open reports of one item version, counted by reason (what item analytics read)."""

    item_id: str
    item_version: int
    by_reason: tuple[tuple[str, int], ...]

    @property
    def total(self) -> int:
        """Return how many open reports the version has."""
        return sum(n for _, n in self.by_reason)

    def count(self, reason: str) -> int:
        """Return how many open reports give ``reason``."""
        return dict(self.by_reason).get(reason, 0)


@dataclass(frozen=True)
class FirstTries:
    """How many members answered ``response`` on their first try at a round.

    ``response`` is what storage keeps: a choice option's stored key, or folded text.
    """

    round_id: int
    item_id: str
    item_version: int
    response: str
    correct: bool
    count: int


@dataclass(frozen=True)
class ItemTally:
    """What the store sums for one item version over its answerers (one per member).

    ``x`` is a member's share right among their first tries at this version (0 or 1 unless they
    met it in several rounds), ``y`` their share right on first tries at every other item.
    ``answered`` and ``sum_x`` cover every answerer; the rest cover the ``rested`` answerers
    who have a rest score (they answered some other item too).
    """

    item_id: str
    version: int
    answered: int
    sum_x: float
    rested: int = 0
    rest_sum_x: float = 0.0
    rest_sum_xx: float = 0.0
    sum_y: float = 0.0
    sum_yy: float = 0.0
    sum_xy: float = 0.0
