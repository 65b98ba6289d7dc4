"""What every part of the core's front desk shares: the reply model, resolving, the refusals.

bot/core/desk.py is the desk itself (buttons, forms, commands, settings); the members' own
requests (privacy, reminders, forgetting) and the admins' (reports, question quality) live in
bot/core/desk_members.py and bot/core/desk_admins.py, on this base.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Form, Message, Tone
from bot.core.kernel.models import Actor, ChannelSettings, Identity, Member, Resolved
from bot.core.kernel.ports import PackTools
from bot.core.packs import workspace_scope
from bot.core.people import PeopleService
from bot.core.quality import InsightsService, ReportService
from bot.core.quiz import Quiz

COMMAND_CHARS = 500  # a topic, a period or a member: anything longer is a paste gone wrong


@dataclass(frozen=True)
class Reply:
    """What a chat request comes to: a message to show, or a form to open.

    ``public`` asks the adapter to post for the whole channel (a shared card); otherwise the
    message is private to the member. ``redraw_round`` names a round whose channel post shows a
    new tally: the adapter asks for the post once (coalesced) and edits it.
    """

    locale: str
    message: Message | None = None
    form: Form | None = None
    public: bool = False
    redraw_round: int | None = None


@dataclass(frozen=True)
class SettingsView:
    """A channel's settings as an admin's form would start from, or the member's refusal."""

    locale: str
    channel: ChannelSettings | None
    may_change: bool
    refusal: Message | None = None


@dataclass(frozen=True)
class Home:
    """A member's overview across a workspace: their numbers in each quiz channel."""

    locale: str
    sections: tuple[tuple[str, Message], ...] = field(default_factory=tuple)
    reviews: str = ""  # the member's due reviews, in a line


class DeskBase:
    """The desk's state and the steps every request takes: who and where, and the refusals."""

    def __init__(self, quiz: Quiz, packs: PackTools | None = None) -> None:
        self.quiz = quiz
        self.pack_tools = packs  # /quiz-pack's checker and shelf; None: packs are off
        self.store = quiz.rounds.store
        self.people = PeopleService(self.store)
        rounds = quiz.rounds
        self.reports = ReportService(self.store, rounds.bank, rounds.clock)
        self.insights = InsightsService(self.store, rounds.bank, rounds.clock)

    # ------------------------------------------------------------ resolving
    def _resolve(self, who: Identity, round_id: int | None = None) -> tuple[Resolved, Actor]:
        found = self.store.resolve(who.platform, who.user, who.display_name,
                                   channel_external_id=who.channel, round_id=round_id)
        # Private replies speak the channel's language; outside a quiz channel, the member's.
        locale = found.channel.locale if found.channel is not None else who.locale or "en"
        return found, Actor(found.member, is_admin=who.is_admin, locale=locale)

    @staticmethod
    def _scope(who: Identity) -> str:
        """Return the workspace a request comes from, as packs are scoped (``PLATFORM:ID``)."""
        return workspace_scope(who.platform, who.workspace)

    def _member(self, who: Identity) -> Member:
        return self.store.ensure_member(who.platform, who.user, who.display_name)

    @staticmethod
    def _warning(locale: str, key: str, **values: object) -> Reply:
        return Reply(locale, Message(body=t(locale, key, **values), tone=Tone.WARNING))

    @staticmethod
    def apology(who: Identity) -> Message:
        """Return the apology for a failure on our side, built without storage (it may be down)."""
        return Message(body=t(who.locale or "en", "error.internal"), tone=Tone.ERROR)

    def _locale_without_member(self, who: Identity) -> str:
        # As _resolve decides, without registering the member: forgetting must not create one.
        channel = self.store.find_channel(who.platform, who.channel) if who.channel else None
        return channel.locale if channel is not None else who.locale or "en"

    @staticmethod
    def command_too_long(argument: str, locale: str) -> Reply | None:
        """Return the refusal of a command text over the length rule, or None when it fits.

        A platform may apply it before it looks anyone up, so a huge paste costs nothing.
        """
        if len(argument) <= COMMAND_CHARS:
            return None
        return DeskBase._warning(locale, "command.too_long", size=len(argument),
                                 limit=COMMAND_CHARS)

    def _practice(self, who: Identity, topic: str, _whom: Identity | None) -> Reply:
        # /quiz, and a reminder's Start button: the most overdue review, else a new item.
        # Without a topic, new questions come from the packs the channel chose.
        found, actor = self._resolve(who)
        locale = actor.locale or "en"
        packs = found.channel.packs if found.channel is not None else None
        return Reply(locale, self.quiz.practice.start(found.member, topic or None, locale,
                                                      scope=self._scope(who), packs=packs))
