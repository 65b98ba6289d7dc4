"""The web page at the desk: /quiz-web's one-time link, and what each page reads.

The page (bot/adapters/web) is one more front end: it turns a session's grant into an
Identity and asks here. Every read is scoped to the session's workspace: a channel of another
workspace (or platform) is not found, whatever id the browser sends.
"""

from __future__ import annotations

import datetime as dt
import math
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from zoneinfo import ZoneInfo

from bot.core.audit import AdminChange
from bot.core.boards import BoardView, CalendarDay
from bot.core.channels import KEYS, MAX_SETUP_CHARS, typed_values
from bot.core.desk.admins import close_reports, pause_item, unpause_clicked
from bot.core.desk.base import DeskBase
from bot.core.desk.members import forget_me
from bot.core.kernel.commands import Command
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Message, Tone
from bot.core.kernel.models import (
    Actor,
    ChannelSettings,
    Identity,
    LeaderboardRow,
    Member,
    Report,
    Stats,
    WebGrant,
)
from bot.core.kernel.replies import Reply
from bot.core.quality import ItemStats, worst_first
from bot.core.signin import LINK_TTL, LINK_WINDOW, LINKS_PER_WINDOW, SESSION_TTL
from content.schema import ChoiceItem
from content.topics import topic_label

BOARD_PAGE_ROWS = 50
BOARD_MAX_ROWS = 500  # the top of the board the page lists, 50 rows a page
BOARD_PERIODS = ("week", "all")
ITEMS_SHOWN = 500  # the item statistics page: the worst first, as /quiz-insights orders them
HISTORY_ROWS = 20  # tries a page of my answers' history lists
HISTORY_PAGES = 500  # pages of history a link may ask for (older tries: the export has them)
PROMPT_CHARS = 120
PUBLIC_TOKEN_BYTES = 32  # a published board's link: 256 random bits, unguessable
PUBLIC_PATH = "/boards/"
REPORTS_SHOWN = 200  # the reports queue: the oldest open reports first


def web(desk: DeskBase, who: Identity, _argument: str, _whom: Identity | None) -> Reply:
    """Reply privately with a one-time sign-in link bound to ``who`` (and their admin right)."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    # The page speaks the member's own chat language when the platform says it, else the
    # channel's (as the link's reply does).
    page_locale = page_language(who.locale) or locale
    grant = WebGrant(platform=who.platform, workspace=who.workspace, user=who.user,
                     display_name=found.member.display_name, channel=who.channel,
                     locale=page_locale, is_admin=who.is_admin)
    url = desk.quiz.signin.link(grant)
    if url is None:
        return desk.warning(locale, "web.too_many", count=LINKS_PER_WINDOW,
                            minutes=int(LINK_WINDOW.total_seconds() // 60))
    return Reply(locale, Message(
        title=t(locale, "web.link.title"),
        body=t(locale, "web.link", url=url, minutes=int(LINK_TTL.total_seconds() // 60),
               hours=int(SESSION_TTL.total_seconds() // 3600))))


def page_language(locale: str | None) -> str | None:
    """Return the page's language for a member's chat language (None: not known)."""
    if not locale:
        return None
    return "zh-CN" if locale.lower().startswith("zh") else "en"


WEB = Command(
    "web", help_key="help.web", handler=web,
    describe={"discord": "A private sign-in link to the team's web page",
              "slack": "A private sign-in link to the team's web page"},
    usage={"slack": "", "home": "", "console": ""})


@dataclass(frozen=True)
class BoardLine:
    """One row of the web board: the ranked row, its accuracy, and whether it is the viewer's."""

    row: LeaderboardRow
    accuracy: int | None  # percent of the rounds answered that were solved
    mine: bool


@dataclass(frozen=True)
class BoardPage:
    """One page of a channel's board as the web page shows it."""

    channel: ChannelSettings
    period: str
    page: int
    pages: int  # this page, plus one when a next page exists (the total is never read)
    lines: tuple[BoardLine, ...]
    hidden: int
    updated_at: dt.datetime  # in the channel's zone
    topic: str = ""  # the per-topic board's topic ("": this week or all time)
    topics: tuple[tuple[str, str], ...] = ()  # (topic, label) the topic selector offers

    @property
    def topic_label(self) -> str:
        """Return the per-topic board's topic as the selector labels it ("": none)."""
        return next((label for name, label in self.topics if name == self.topic), "")


@dataclass(frozen=True)
class TopicLine:
    """One topic of a member's mastery, labelled in their language."""

    label: str
    percent: int
    first_try: int
    solved: int
    attempted: int
    due: int


@dataclass(frozen=True)
class HistoryLine:
    """One of my tries: the round's date, the item, what I answered and why it was wrong.

    ``why`` is the chosen wrong option's own explanation, as chat's verdict gave it; the concept
    cards are linked once the round closed (``in_play``: still open), as the reveal links them.
    """

    day: dt.date
    item_id: str
    prompt: str
    attempt: int
    answer: str
    correct: bool
    in_play: bool
    why: str
    cards: tuple[str, ...]  # the concept cards the item links to (/explain's ids)


@dataclass(frozen=True)
class Progress:
    """A member's own numbers in one channel, for the page only they see."""

    channel: ChannelSettings
    member: Member
    stats: Stats
    topics: tuple[TopicLine, ...]
    calendar: tuple[tuple[CalendarDay, ...], ...] = ()
    history: tuple[HistoryLine, ...] = ()
    page: int = 1
    more: bool = False  # a next page of history exists


@dataclass(frozen=True)
class ReportLine:
    """One open report of the queue with its item version's numbers (None: none yet)."""

    report: Report
    stats: ItemStats | None


def identity(grant: WebGrant) -> Identity:
    """Return the Identity a session acts as: what chat established when the link was asked."""
    return Identity(platform=grant.platform, workspace=grant.workspace, channel=grant.channel,
                    user=grant.user, display_name=grant.display_name, locale=grant.locale,
                    is_admin=grant.is_admin)


class WebDesk:
    """What the web page reads, each read scoped to the session's workspace."""

    def __init__(self, desk: DeskBase) -> None:
        self.desk = desk
        self.quiz = desk.quiz

    def channels(self, grant: WebGrant) -> list[ChannelSettings]:
        """Return the quiz channels of the session's workspace."""
        return self.quiz.rounds.workspace_channels(grant.platform, grant.workspace)

    def channel(self, grant: WebGrant, channel_id: int) -> ChannelSettings | None:
        """Return the channel if it belongs to the session's workspace, else None (a 404)."""
        channel = self.desk.store.get_channel(channel_id)
        if (channel is None or channel.platform != grant.platform
                or channel.workspace_external_id != grant.workspace):
            return None
        return channel

    def _member(self, grant: WebGrant) -> Member:
        return self.desk.member(identity(grant))

    def board(self, grant: WebGrant, channel_id: int, period: str,
              page: int, topic: str = "", locale: str | None = None) -> BoardPage | None:
        """Return one page of the channel's board (None: no such channel in the workspace).

        ``period`` week or all (anything else reads as week); ``topic`` one of the workspace's
        topics makes it the all-time board of that topic (any other is ignored); ``page`` is
        clamped to the pages there are. Hidden members never appear; they are counted, as in
        chat. ``locale``: the topics' labels' language (the session's by default).
        """
        channel = self.channel(grant, channel_id)
        if channel is None:
            return None
        # Only to mark the viewer's row: a read (a page view registers nobody, takes no lock).
        viewer = self.desk.store.find_member(grant.platform, grant.user)
        return self._board_page(channel, period, page, viewer.id if viewer is not None else None,
                                topic, locale or grant.locale)

    def _board_page(self, channel: ChannelSettings, period: str, page: int,
                    me: int | None, topic: str = "", locale: str = "en") -> BoardPage:
        board = self.quiz.board
        known = board.board_topics(channel)
        topic = topic if topic in known else ""
        period = "topic" if topic else period if period in BOARD_PERIODS else "week"
        # Read down to this page's last row and one more (is there a next page?), never the
        # whole top 500: each row read costs its streak and rank, and page 1 is what people open.
        page = min(max(page, 1), BOARD_MAX_ROWS // BOARD_PAGE_ROWS)
        wanted = page * BOARD_PAGE_ROWS + 1
        view: BoardView = (board.topic_board(channel, topic, wanted) if topic
                           else board.board(channel, period, wanted))
        last = max(1, math.ceil(min(len(view.rows), BOARD_MAX_ROWS) / BOARD_PAGE_ROWS))
        page = min(page, last)  # past the end: the last page there is
        more = len(view.rows) > page * BOARD_PAGE_ROWS and page * BOARD_PAGE_ROWS < BOARD_MAX_ROWS
        pages = page + 1 if more else page  # pages known so far: this one, and a next if any
        shown = view.rows[(page - 1) * BOARD_PAGE_ROWS:page * BOARD_PAGE_ROWS]
        lines = tuple(BoardLine(row, _percent(row.solved, view.attempted.get(row.user_id, 0)),
                                row.user_id == me) for row in shown)
        updated = view.as_of.astimezone(ZoneInfo(channel.timezone))
        topics = tuple((name, topic_label(name, locale)) for name in known)
        return BoardPage(channel, period, page, pages, lines, view.hidden, updated, topic, topics)

    # ------------------------------------------------------------ the board at a public link
    def board_link(self, grant: WebGrant, channel_id: int) -> str | None:
        """Return the path the channel's board is published at ("" : not published), admins.

        None for a member (they are not shown it) or a channel not in the workspace.
        """
        channel = self.channel(grant, channel_id)
        if channel is None or not grant.is_admin:
            return None
        token = self.quiz.board.store.board_token(channel.id)
        return "" if token is None else PUBLIC_PATH + token

    def publish(self, grant: WebGrant, channel_id: int) -> str | None:
        """Publish the channel's board at a new unguessable link (admins); return its path.

        Publishing again replaces the link (the old one then finds nothing). The audit log
        keeps who did it. None: no such channel in the workspace; AdminOnly for a member.
        """
        channel = self.channel(grant, channel_id)
        if channel is None:
            return None
        if not grant.is_admin:
            raise AdminOnly(channel_id)
        token = secrets.token_urlsafe(PUBLIC_TOKEN_BYTES)
        old = self.quiz.board.store.publish_board(channel.id, token, self.quiz.audit.clock.now())
        self._audit(grant, channel, "publish_board", "private" if old is None else "published",
                    "published" if old is None else "published at a new link")
        return PUBLIC_PATH + token

    def withdraw(self, grant: WebGrant, channel_id: int) -> bool | None:
        """Withdraw the channel's published board (admins); its link then answers 404.

        Returns whether one was published; None: no such channel in the workspace.
        """
        channel = self.channel(grant, channel_id)
        if channel is None:
            return None
        if not grant.is_admin:
            raise AdminOnly(channel_id)
        old = self.quiz.board.store.withdraw_board(channel.id)
        if old is not None:
            self._audit(grant, channel, "withdraw_board", "published", "private")
        return old is not None

    def public_board(self, token: str, period: str, page: int, topic: str = "",
                     locale: str = "en") -> BoardPage | None:
        """Return a page of the board published at ``token``; None for any other token.

        No viewer: no row is anybody's. Hidden members never appear, as on every board.
        """
        channel_id = self.quiz.board.store.published_channel(token)
        channel = None if channel_id is None else self.desk.store.get_channel(channel_id)
        if channel is None:
            return None
        return self._board_page(channel, period, page, None, topic, locale)

    def _audit(self, grant: WebGrant, channel: ChannelSettings, action: str, before: str,
               after: str) -> None:
        self.quiz.audit.record(platform=grant.platform, workspace=grant.workspace,
                               actor=grant.user, actor_name=grant.display_name, action=action,
                               target=channel.name or channel.external_id, before=before,
                               after=after)

    def progress(self, grant: WebGrant, channel_id: int,
                 locale: str | None = None, page: int = 1) -> Progress | None:
        """Return the member's own numbers in the channel (None: not in the workspace).

        ``locale``: the page's language (the session's by default), for the topics' labels;
        ``page``: the page of the history of my answers (clamped to 1..HISTORY_PAGES).
        The streak calendar and the history are read in a constant number of statements.
        """
        channel = self.channel(grant, channel_id)
        if channel is None:
            return None
        language = locale or grant.locale
        # A read, as the board's viewer is: a page view takes no write lock. Signing in
        # registered the member; one forgotten since (a race) is registered as chat would.
        member = self.desk.store.find_member(grant.platform, grant.user) or self._member(grant)
        board = self.quiz.board
        stats = board.stats(channel, member)
        topics = tuple(TopicLine(topic_label(m.topic, language),
                                 round(m.ratio * 100),
                                 m.first_try, m.solved, m.attempted, m.due)
                       for m in stats.mastery)
        calendar = board.streak_calendar(channel, member)
        page = min(max(page, 1), HISTORY_PAGES)
        tries, more = board.answer_history(channel, member, page, HISTORY_ROWS)
        history = tuple(self._history_line(a.local_date, a.item_id, a.attempt, a.response,
                                           a.correct, a.round_open, language) for a in tries)
        return Progress(channel, member, stats, topics, calendar, history, page, more)

    def _history_line(self, day: dt.date, item_id: str, attempt: int, response: str,
                      correct: bool, in_play: bool, locale: str) -> HistoryLine:
        item = self.quiz.insights.bank.questions.get(item_id)
        if item is None:  # a pack since removed: the try stays, its words are gone
            return HistoryLine(day, item_id, "", attempt, response, correct, in_play, "", ())
        prompt = " ".join(item.prompt.get(locale).split())
        if len(prompt) > PROMPT_CHARS:
            prompt = prompt[:PROMPT_CHARS - 1].rstrip() + "…"
        answer, why = response, ""
        if isinstance(item, ChoiceItem):
            chosen = next((c for c in item.choices if c.key == response), None)
            if chosen is not None:
                answer = f"{chosen.key}. {chosen.text.get(locale)}"
                # A choice is final: chat's verdict gave this why at once, open round or not.
                if not chosen.correct and chosen.why is not None:
                    why = chosen.why.get(locale)
        return HistoryLine(day, item_id, prompt, attempt, answer, correct, in_play, why,
                           tuple(item.explain_links))

    # ------------------------------------------------------------ my data: export, forget
    def export(self, grant: WebGrant) -> dict[str, Any] | None:
        """Return everything stored about the member, as the export's JSON object.

        The same data /quiz-forget-me deletes (every workspace); None when nothing is kept.
        """
        return self.desk.people.export(identity(grant))

    def forget_preview(self, grant: WebGrant, locale: str) -> Message:
        """Return what forgetting the member would delete, as /quiz-forget-me shows it."""
        return replace(self.desk.people.preview(identity(grant), locale), buttons=())

    def forget(self, grant: WebGrant) -> Message:
        """Forget the member exactly as chat's confirm button does, then end their sessions.

        Through the registry's own handler (``forget_me``, confirmed): the same deletion, the
        same reply; then every web session of the member ends, this one with them.
        """
        reply = forget_me(self.desk, identity(grant), confirmed=True)
        self.quiz.signin.end_all(grant.platform, grant.user)
        return reply.message or Message(body="")  # forget_me always says what went

    def settings(self, grant: WebGrant, channel_id: int,
                 locale: str | None = None) -> Message | None:
        """Return the channel's settings as /quiz-settings shows them, for admins only.

        The right is the session's (chat's, when the link was asked), checked on every call:
        raises AdminOnly for a member. None: no such channel in the workspace.
        """
        channel = self.channel(grant, channel_id)
        if channel is None:
            return None
        if not grant.is_admin:
            raise AdminOnly(channel_id)
        actor = Actor(self._member(grant), is_admin=True, locale=locale or grant.locale)
        return self.quiz.setup.apply(channel, actor, {})

    def settings_values(self, grant: WebGrant, channel_id: int) -> dict[str, str] | None:
        """Return the channel's settings as an admin types them, for the form (admins only)."""
        channel = self.channel(grant, channel_id)
        if channel is None:
            return None
        if not grant.is_admin:
            raise AdminOnly(channel_id)
        return typed_values(channel)

    def change_settings(self, grant: WebGrant, channel_id: int, form: Mapping[str, str],
                        locale: str) -> Message | None:
        """Apply the form's changed values through /quiz-settings' own service (admins only).

        Only the settings whose value differs from the stored one are sent on, so a form
        saved unchanged changes (and logs) nothing; validation, messages, the audit log and
        the rescheduling are the setup service's, as in chat. None: not in the workspace.
        """
        channel = self.channel(grant, channel_id)
        if channel is None:
            return None
        if not grant.is_admin:
            raise AdminOnly(channel_id)
        current = typed_values(channel)
        changes = {key: form[key].strip() for key in KEYS
                   if key in form and form[key].strip() != current[key]}
        typed = sum(len(k) + len(v) + 2 for k, v in changes.items())
        if typed > MAX_SETUP_CHARS:
            return Message(body=t(locale, "settings.error.line_long", limit=MAX_SETUP_CHARS,
                                  given=typed), tone=Tone.WARNING)
        if not changes:
            return Message(body=t(locale, "web.settings.unchanged"))
        actor = Actor(self._member(grant), is_admin=True, locale=locale)
        return self.quiz.setup.apply(channel, actor, changes)

    def audit(self, grant: WebGrant) -> list[AdminChange]:
        """Return the workspace's latest admin changes (admins only: AdminOnly otherwise)."""
        if not grant.is_admin:
            raise AdminOnly(0)
        return self.quiz.audit.latest(grant.platform, grant.workspace)

    def items(self, grant: WebGrant) -> list[ItemStats]:
        """Return /quiz-insights' table for the items the workspace sees, worst first (admins)."""
        if not grant.is_admin:
            raise AdminOnly(0)
        scope = self.desk.scope(identity(grant))
        insights = self.quiz.insights
        return worst_first([s for s in insights.stats()
                            if insights.bank.visible(s.item_id, scope)])[:ITEMS_SHOWN]

    def unpause(self, grant: WebGrant, item_id: str) -> Message | None:
        """Unpause an item as chat's button does, through the registry (admins only).

        None: an item the workspace does not see (a 404).
        """
        if not grant.is_admin:
            raise AdminOnly(0)
        who = identity(grant)
        insights = self.quiz.insights
        known = item_id in insights.bank.questions or any(
            paused == item_id for paused, _ in insights.store.paused_items())
        if not known or not insights.bank.visible(item_id, self.desk.scope(who)):
            return None
        # The registry's own handler of chat's unpause button.
        return unpause_clicked(self.desk, who, "unpause", item_id, "item").message

    def pause(self, grant: WebGrant, item_id: str) -> Message | None:
        """Pause an item by hand as chat's ``/quiz-insights pause ID`` does (admins only).

        None: an item the workspace does not see (a 404).
        """
        if not grant.is_admin:
            raise AdminOnly(0)
        who = identity(grant)
        bank = self.quiz.insights.bank
        if item_id not in bank.questions or not bank.visible(item_id, self.desk.scope(who)):
            return None
        return pause_item(self.desk, who, item_id).message

    def reports(self, grant: WebGrant) -> list[ReportLine]:
        """Return the workspace's open reports, oldest first, with their item's numbers.

        Admins only (AdminOnly otherwise); the numbers are /quiz-insights' for the reported
        version. A constant number of reads: the reports, then the insights' three.
        """
        if not grant.is_admin:
            raise AdminOnly(0)
        found = self.quiz.reports.store.reports(platform=grant.platform,
                                                workspace=grant.workspace,
                                                limit=REPORTS_SHOWN)
        if not found:
            return []
        stats = {(s.item_id, s.version): s for s in self.quiz.insights.stats()}
        return [ReportLine(r, stats.get((r.item_id, r.item_version))) for r in found]

    def close_reports(self, grant: WebGrant, report_ids: Sequence[int], reason: str,
                      locale: str) -> Message:
        """Close open reports of the workspace with one reason, as chat closes one (admins).

        Each closed report is written to the audit log; another workspace's ids close nothing.
        """
        if not grant.is_admin:
            raise AdminOnly(0)
        return close_reports(self.desk, identity(grant), report_ids, reason, locale)

    def cards(self, grant: WebGrant, locale: str) -> list[tuple[str, str]]:
        """Return (id, title) of every concept card the workspace sees: shipped and its packs'."""
        index = self.quiz.explain.index_for(self.desk.scope(identity(grant)))
        return [(card_id, index.card(card_id).title.get(locale)) for card_id in index.topics()]

    def card(self, grant: WebGrant, card_id: str, locale: str) -> Message | None:
        """Return one card as /explain shows it; None for an id the workspace does not see."""
        shown = self.quiz.explain.share(card_id, locale, self.desk.scope(identity(grant)))
        return None if shown is None else replace(shown, buttons=())

    def mastery_chart(self, grant: WebGrant, channel_id: int) -> Message | None:
        """Return the member's stats message with its mastery chart (PNG and alt text)."""
        channel = self.channel(grant, channel_id)
        if channel is None:
            return None
        return self.quiz.board.stats_message(channel, self._member(grant), grant.locale)


class AdminOnly(Exception):
    """Raised when a session without the admin right asks for an admin's page (a 403)."""


def _percent(solved: int, attempted: int) -> int | None:
    return round(100 * solved / attempted) if attempted else None
