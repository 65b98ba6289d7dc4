"""What every part of the core's front desk shares: the reply model, resolving, the refusals.

bot/core/desk/requests.py is the desk itself (buttons, forms, commands, settings); the members' own
requests (privacy, reminders, forgetting) and the admins' (reports, question quality) live in
bot/core/desk/members.py and bot/core/desk/admins.py, on this base.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from bot.core.kernel.i18n import t
from bot.core.kernel.matching import fold
from bot.core.kernel.messages import Message, Tone
from bot.core.kernel.models import Actor, ChannelSettings, Identity, Member, Resolved
from bot.core.kernel.ports import PackTools
from bot.core.kernel.replies import Reply
from bot.core.packs import workspace_scope
from bot.core.quiz import Quiz

COMMAND_CHARS = 500  # a topic, a period or a member: anything longer is a paste gone wrong


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
        self.people = quiz.people
        self.reports = quiz.reports
        self.insights = quiz.insights

    # ------------------------------------------------------------ resolving
    def resolve(self, who: Identity, round_id: int | None = None) -> tuple[Resolved, Actor]:
        """Return the member, channel and round ``who`` names, in one storage call."""
        found = self.store.resolve(who.platform, who.user, who.display_name,
                                   channel_external_id=who.channel, round_id=round_id)
        # Private replies speak the channel's language; outside a quiz channel, the member's.
        locale = found.channel.locale if found.channel is not None else who.locale or "en"
        return found, Actor(found.member, is_admin=who.is_admin, locale=locale)

    @staticmethod
    def scope(who: Identity) -> str:
        """Return the workspace a request comes from, as packs are scoped (``PLATFORM:ID``)."""
        return workspace_scope(who.platform, who.workspace)

    def member(self, who: Identity) -> Member:
        """Return ``who`` as a stored member (registered on first sight)."""
        return self.store.ensure_member(who.platform, who.user, who.display_name)

    @staticmethod
    def warning(locale: str, key: str, **values: object) -> Reply:
        """Return a private warning: the sentence ``key`` in ``locale``."""
        return Reply(locale, Message(body=t(locale, key, **values), tone=Tone.WARNING))

    @staticmethod
    def apology(who: Identity) -> Message:
        """Return the apology for a failure on our side, built without storage (it may be down)."""
        return Message(body=t(who.locale or "en", "error.internal"), tone=Tone.ERROR)

    def locale_without_member(self, who: Identity) -> str:
        """Return the locale a reply to ``who`` speaks, without registering the member."""
        # As resolve decides, without registering the member: forgetting must not create one.
        channel = self.store.find_channel(who.platform, who.channel) if who.channel else None
        return channel.locale if channel is not None else who.locale or "en"

    @staticmethod
    def command_too_long(argument: str, locale: str) -> Reply | None:
        """Return the refusal of a command text over the length rule, or None when it fits.

        A platform may apply it before it looks anyone up, so a huge paste costs nothing.
        """
        if len(argument) <= COMMAND_CHARS:
            return None
        return DeskBase.warning(locale, "command.too_long", size=len(argument),
                                 limit=COMMAND_CHARS)

    def with_notice(self, who: Identity, reply: Reply) -> Reply:
        """Add the one-time notice that the member's reminders were stopped, if there is one."""
        # Told once, in the next private reply: a member whose reminders we had to stop.
        if reply.message is None or reply.public:
            return reply
        notice = self.quiz.reminders.notice(who.platform, who.user, reply.locale)
        if notice is None:
            return reply
        body = f"{notice}\n\n{reply.message.body}" if reply.message.body else notice
        return replace(reply, message=replace(reply.message, body=body))

    def start_practice(self, who: Identity, topic: str) -> Reply:
        """Serve a practice question: the most overdue review, else a new item (of ``topic``).

        /quiz, and a reminder's Start button. Without a topic, new questions come from the
        packs the channel chose.
        """
        found, actor = self.resolve(who)
        locale = actor.locale or "en"
        packs = found.channel.packs if found.channel is not None else None
        preview = self._preview(who, topic)
        if preview == "":
            return self.warning(locale, "practice.preview.denied")
        return Reply(locale, self.quiz.practice.start(found.member, topic or None, locale,
                                                      scope=self.scope(who), packs=packs,
                                                      workspace=who.workspace,
                                                      preview=preview))

    def _preview(self, who: Identity, topic: str) -> str | None:
        """Return the pack ``/quiz PACK-ID`` previews; "" when refused; None: not a preview.

        Only the workspace's own packs (not the shared ones, not another workspace's: those
        read as a topic), only for its admins. A member who is not an admin gets a refusal,
        unless the name is also a topic: then it is practice on that topic, as before.
        """
        word = topic.strip().lower()
        if not word or not who.workspace:
            return None
        scope = self.scope(who)
        view = self.quiz.library.view(scope)
        if not any(p.pack_id == word and p.scope == scope for p in view.packs):
            return None
        if who.is_admin:
            return word
        return None if any(fold(tp) == fold(word) for tp in view.topics) else ""

    def practice_skip(self, who: Identity, item_id: str | None = None) -> Reply:
        """Skip the member's open practice question (a miss) and serve the next.

        ``item_id``: the question the Skip button was shown with; None skips whatever is open
        (the console's /quiz skip).
        """
        found, actor = self.resolve(who)
        locale = actor.locale or "en"
        packs = found.channel.packs if found.channel is not None else None
        return Reply(locale, self.quiz.practice.skip(found.member, locale, item_id=item_id,
                                                     scope=self.scope(who), packs=packs,
                                                     workspace=who.workspace))
