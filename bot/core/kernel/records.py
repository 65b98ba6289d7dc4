"""Values of members and what they leave besides answers: reminders, own data, reports.

Frozen and platform-neutral like the rest of bot.core.kernel.models, which re-exports
them, so every value is still imported from one place.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.core.kernel.messages import Message


@dataclass(frozen=True)
class Member:
    """A person on one platform, as the quiz knows them."""

    id: int
    platform: str
    external_id: str
    display_name: str
    hidden: bool = False  # kept off public boards, weekly posts and charts (still scored)


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
    # Tries at those open rounds kept without the member, so that the rounds stay fair.
    kept_anonymous: int = 0


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


@dataclass(frozen=True)
class WebGrant:
    """Who a web sign-in (a one-time link, then a session) is for, as chat established it.

    The platform's own ids: the workspace (server, team) every page is scoped to, the member,
    the channel the link was asked in (the page opens there), the member's language, and the
    admin right the platform's server reported when the link was asked for.
    """

    platform: str
    workspace: str
    user: str
    display_name: str
    channel: str = ""
    locale: str = "en"
    is_admin: bool = False


@dataclass(frozen=True)
class WebSession:
    """A signed-in browser, kept server-side: its grant, its CSRF token and when it ends."""

    id: int
    grant: WebGrant
    csrf: str
    created_at: dt.datetime
    expires_at: dt.datetime


@dataclass(frozen=True)
class AnsweredTry:
    """One of a member's tries at a channel's round, as their history on the web page lists it."""

    round_id: int
    local_date: dt.date
    item_id: str
    attempt: int
    response: str
    correct: bool
    round_open: bool  # the round is still open: its answer and whys are not shown yet
    submitted_at: dt.datetime
