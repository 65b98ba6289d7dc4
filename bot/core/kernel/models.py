"""Values that flow between the core, storage and adapters: frozen, platform-neutral dataclasses."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.core.kernel.live_records import (
    LiveAnswer as LiveAnswer,
)
from bot.core.kernel.live_records import (
    LiveDraft as LiveDraft,
)
from bot.core.kernel.live_records import (
    LivePlayer as LivePlayer,
)
from bot.core.kernel.live_records import (
    LiveQuestion as LiveQuestion,
)
from bot.core.kernel.live_records import (
    LiveSession as LiveSession,
)
from bot.core.kernel.live_records import (
    LiveStatus as LiveStatus,
)
from bot.core.kernel.messages import Message
from bot.core.kernel.records import (
    REPORT_REASONS as REPORT_REASONS,
)

# The second half of the values (kept under 500 lines a file), re-exported from here.
from bot.core.kernel.records import (
    AnsweredTry as AnsweredTry,
)
from bot.core.kernel.records import (
    DataSection as DataSection,
)
from bot.core.kernel.records import (
    DueReminder as DueReminder,
)
from bot.core.kernel.records import (
    FirstTries as FirstTries,
)
from bot.core.kernel.records import (
    ForgetReport as ForgetReport,
)
from bot.core.kernel.records import (
    ItemTally as ItemTally,
)
from bot.core.kernel.records import (
    Member as Member,
)
from bot.core.kernel.records import (
    MemberData as MemberData,
)
from bot.core.kernel.records import (
    Nudge as Nudge,
)
from bot.core.kernel.records import (
    Reminder as Reminder,
)
from bot.core.kernel.records import (
    ReminderClaim as ReminderClaim,
)
from bot.core.kernel.records import (
    Report as Report,
)
from bot.core.kernel.records import (
    ReportCounts as ReportCounts,
)
from bot.core.kernel.records import (
    ReportDraft as ReportDraft,
)
from bot.core.kernel.records import (
    Row as Row,
)
from bot.core.kernel.records import (
    Value as Value,
)
from bot.core.kernel.records import (
    WebGrant as WebGrant,
)
from bot.core.kernel.records import (
    WebSession as WebSession,
)
from bot.core.kernel.speed_records import (
    PENDING as PENDING,
)
from bot.core.kernel.speed_records import (
    REJECTED as REJECTED,
)
from bot.core.kernel.speed_records import (
    RELEASED as RELEASED,
)
from bot.core.kernel.speed_records import (
    HeldSpeed as HeldSpeed,
)
from bot.core.kernel.speed_records import (
    OpenSpeed as OpenSpeed,
)
from bot.core.kernel.speed_records import (
    SpeedBoardEntry as SpeedBoardEntry,
)
from bot.core.kernel.speed_records import (
    SpeedShapeFigure as SpeedShapeFigure,
)
from bot.core.kernel.speed_records import (
    SpeedVerdictRecord as SpeedVerdictRecord,
)

# The streak rule and the stored streak (storage keeps it by the same rule), re-exported here.
from bot.core.kernel.streaks import (
    StreakAnchor as StreakAnchor,
)
from bot.core.kernel.streaks import (
    StreakState as StreakState,
)
from bot.core.kernel.streaks import (
    streak_misses as streak_misses,
)
from bot.core.kernel.streaks import (
    streak_step as streak_step,
)

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


# The kinds of question a daily round may be (the channel's ``kinds`` setting); a speed
# challenge is a round only where a channel chose it.
ROUND_KINDS = ("choice", "text", "code", "speed")
DEFAULT_KINDS = ("choice", "text", "code")


def kinds_of(stored: object) -> tuple[str, ...]:
    """Return the round kinds a stored list names, in ROUND_KINDS order (none known: default)."""
    named = set(stored) if isinstance(stored, list | tuple) else set()
    return tuple(k for k in ROUND_KINDS if k in named) or DEFAULT_KINDS


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
    live_anyone: bool = False  # any member may host a live session (else admins only)
    live_on_board: bool = False  # live sessions' points count on the weekly board too
    kinds: tuple[str, ...] = DEFAULT_KINDS  # the kinds its daily rounds draw (ROUND_KINDS)


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
    live_anyone: bool | None = None
    live_on_board: bool | None = None
    kinds: tuple[str, ...] | None = None
    leaderboard_weekday: int | None = None
    leaderboard_hour: int | None = None


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
    # Right on the first try; None where the tries were not kept (a practice result stored
    # before revision 0014): mastery then counts its outcome.
    first_try: bool | None = None


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
    """How well a member (or a team) knows one topic, and how many of its reviews are due.

    Mastery is the share answered right on the *first* try: a solve after two misses shows
    what feedback taught, not what the member knew, so it counts in ``solved`` only.
    """

    topic: str
    attempted: int
    solved: int  # right in the end, whatever the try
    due: int = 0
    first_try: int = 0  # right on the first try

    @property
    def ratio(self) -> float:
        """Return the share of attempted items right on the first try (0 when none attempted)."""
        return self.first_try / self.attempted if self.attempted else 0.0


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
    """A round that was just closed, with the reveal to post in its thread.

    ``closed_post`` is the round's own post as it reads now (no buttons, the final tally): the
    publisher edits the question into it, asking the core nothing more.
    """

    channel: ChannelSettings
    round: Round
    message: Message
    closed_post: Message


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
    round_id: int | None  # None: a live session's code verdict, not a daily round's result
    workspace_external_id: str  # the channel's workspace (server, team)
    locale: str  # the channel's language, as the message is written in


@dataclass(frozen=True)
class Chart:
    """A rendered chart image and the file name to attach it under."""

    png: bytes
    name: str



@dataclass(frozen=True)
class BoardRead:
    """What a leaderboard reads, in one transaction.

    ``scores`` as ``top_scores`` returns them; ``hidden`` the hidden members with points;
    ``rounds`` how many rounds the channel has and ``latest`` its latest one; ``anchors`` the
    stored streak of every member in ``scores`` who ever solved a round of the channel.
    """

    scores: list[ScoreRow]
    hidden: int
    rounds: int
    latest: Round | None
    anchors: dict[int, StreakAnchor]


@dataclass(frozen=True)
class MemberRead:
    """What /stats reads about one member in one channel, in one transaction.

    ``rank_week`` and ``rank_all`` as ``member_rank`` returns them; ``results`` per item of
    the member's daily rounds in the channel, then per item of their practice: (item, answered,
    solved, right on the first try); ``due_items`` the items whose cards are due now.
    """

    score: ScoreRow | None
    anchor: StreakAnchor | None
    rounds: int
    latest: Round | None
    results: list[tuple[str, int, int, int]]
    due_items: list[str]
    rank_week: tuple[int, int] | None
    rank_all: tuple[int, int] | None


@dataclass(frozen=True)
class AdminChange:
    """One change an admin made: who (platform id and name), what, when, before and after."""

    platform: str
    workspace: str
    actor: str
    actor_name: str
    action: str  # "settings"
    target: str  # what changed: a channel's name
    before: str
    after: str
    at: dt.datetime
