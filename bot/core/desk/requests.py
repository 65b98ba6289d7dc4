"""The front desk of the core: every chat request enters here, as one call with an Identity.

A chat platform parses its payload into an :class:`Identity` (who, where, in what language,
with what rights) and a request (a click, a submitted form, a command); the desk resolves the
member, the channel and the locale in one storage call, applies the rules both platforms share
(the private reply speaks the channel's language, outside a quiz channel the member's; only an
admin's settings change creates a channel; how long a command may be), calls the
service that does the work and returns a :class:`Reply` for the adapter to render.

Commands and buttons go through the registry (bot/core/kernel/commands.py, listed in
catalog.py): each is declared once, beside its handler, in this package's module of its
feature (answers.py, learning.py, boards.py, members.py, admins.py, packs.py); what they all
share (resolving, refusals) is in base.py, the reply model in the kernel.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from bot.core.channels import matching_zones
from bot.core.desk import answers, speed
from bot.core.desk.admins import file_report
from bot.core.desk.base import COMMAND_CHARS, DeskBase, Home, SettingsView
from bot.core.desk.catalog import REGISTRY
from bot.core.desk.live import answer_live, answer_live_code
from bot.core.desk.members import forget_me
from bot.core.desk.packs import PackDesk, PackReply
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import (
    Message,
    Tone,
    parse_action,
    parse_submit,
)
from bot.core.kernel.models import Actor, AnswerMode, ChannelDefaults, Identity
from bot.core.kernel.ports import PackTools
from bot.core.kernel.replies import Reply
from bot.core.quiz import Quiz

__all__ = ["COMMANDS", "Desk", "Home", "PackReply", "Reply", "SettingsView"]

log = logging.getLogger(__name__)

# The commands Desk.command answers (settings and packs have entries of their own).
COMMANDS = tuple(c.key for c in REGISTRY if c.handler is not None)


class Desk(DeskBase):
    """Turn chat requests into core calls; the one entry adapters use."""

    def __init__(self, quiz: Quiz, packs: PackTools | None = None) -> None:
        super().__init__(quiz, packs)
        self.packs = PackDesk(self)

    # ------------------------------------------------------------ buttons and forms
    def click(self, who: Identity, action_id: str) -> Reply:
        """Handle a click on one of our buttons, as the registry declares its kind."""
        parsed = parse_action(action_id)
        if parsed is None:
            return self.warning(self.locale_without_member(who), "action.unknown")
        kind, target, key = parsed
        return REGISTRY.click(self, who, kind, target, key)

    def submit(self, who: Identity, submit_id: str, text: str, choice: str = "") -> Reply:
        """Handle a submitted form (its id says what it answers and how).

        ``choice`` is the value picked in the form's list, if it has one (a report's reason).
        """
        parsed = parse_submit(submit_id)
        if parsed is None:
            return self.warning(self.locale_without_member(who), "action.unknown")
        kind, target, mode_name = parsed
        if kind in ("reported", "preported"):
            return file_report(self, who, kind, target, choice, text)
        mode = AnswerMode.CODE if mode_name == "code" else AnswerMode.TEXT
        if kind == "lsubmit":
            return answer_live(self, who, target, text, mode)
        if kind == "ssubmit":
            return speed.submit(self, who, target, text)
        if kind == "submit":
            return answers.answer_round(self, who, target, text, mode)
        return answers.answer_practice(self, who, target, text, mode)

    def live_code(self, who: Identity, code: str) -> Reply:
        """Answer the open live question of the member's channel with code (console's /live code).

        Code is longer than a command's argument: it comes apart, as a form's text does.
        """
        return answer_live_code(self, who, code)

    def answer_today(self, who: Identity, response: str, mode: AnswerMode) -> Reply:
        """Answer the latest round of the member's channel (a typed answer: no button names it)."""
        return answers.answer_today(self, who, response, mode)

    def practice_answer(self, who: Identity, response: str, mode: AnswerMode) -> Reply:
        """Answer the member's current practice question (a typed answer).

        Code goes to the member's open speed challenge when it was served after the open
        practice question (or there is none): the console's one way to send code to either.
        """
        if mode is AnswerMode.CODE and self._speed_is_newer(who):
            return speed.submit(self, who, None, response)
        return answers.answer_practice(self, who, None, response, mode)

    def _speed_is_newer(self, who: Identity) -> bool:
        member = self.member(who)
        opened = self.store.current_speed(member.id)
        if opened is None:
            return False
        session = self.store.current_practice(member.id)
        return session is None or session.started_at <= opened.started_at

    def forget_me(self, who: Identity, confirmed: bool) -> Reply:
        """Say what forgetting the member deletes (with a confirm button), or delete it."""
        return forget_me(self, who, confirmed)

    # ------------------------------------------------------------ team packs (a file in, or out)
    def pack_upload_refusal(self, who: Identity, filename: str | None = None,
                            declared_size: int = 0) -> Reply | None:
        """Refuse an upload before its bytes are fetched (bot/core/desk/packs.py)."""
        return self.packs.pack_upload_refusal(who, filename, declared_size)

    def pack_add(self, who: Identity, filename: str, data: bytes) -> Reply:
        """Validate an uploaded pack file and store it for the admin's workspace only (slow)."""
        return self.packs.pack_add(who, filename, data)

    def pack_command(self, who: Identity, argument: str) -> PackReply:
        """Answer /quiz-pack list, remove ID or export ID."""
        return self.packs.pack_command(who, argument)

    # ------------------------------------------------------------ commands
    def command(self, who: Identity, name: str, argument: str = "",
                whom: Identity | None = None) -> Reply:
        """Handle a command by the core's key (``privacy``), as the registry declares it.

        ``whom`` names another member for stats; stats ``team`` is the team's (admins only).
        """
        if len(argument) > COMMAND_CHARS:  # refused: only then is the channel's language read
            return self.warning(self.locale_without_member(who), "command.too_long",
                                size=len(argument), limit=COMMAND_CHARS)
        return REGISTRY.dispatch(self, who, name, argument.strip(), whom)

    # ------------------------------------------------------------ settings
    def settings(self, who: Identity, target: str, target_name: str,
                 changes: Mapping[str, str]) -> Reply:
        """Show a channel's settings, or change them (admins only, checked here).

        ``target`` is the platform's id of the channel to set up (``who.channel`` by default).
        Looking creates nothing; a member who may not change anything creates nothing either.
        """
        target = target or who.channel
        channel = self.store.find_channel(who.platform, target) if target else None
        found, actor = self.resolve(who)
        locale = channel.locale if channel is not None else who.locale or "en"
        actor = Actor(found.member, is_admin=who.is_admin, locale=locale)
        if channel is None:
            if not changes or not who.is_admin:
                key = "settings.denied" if changes else "channel.no_quiz"
                return self.warning(locale, key)
            if not target:
                return self.warning(locale, "channel.no_quiz")
            name = target_name or (who.channel_name if target == who.channel else "")
            channel = self.quiz.rounds.channel(
                who.platform, target, who.workspace,
                ChannelDefaults(name=name, locale=who.locale or "en"))
        return Reply(locale, self.quiz.setup.apply(channel, actor, changes))

    def settings_view(self, who: Identity, target: str = "") -> SettingsView:
        """Return what a settings form starts from; a member who is no admin gets a refusal."""
        target = target or who.channel
        channel = self.store.find_channel(who.platform, target) if target else None
        locale = channel.locale if channel is not None else who.locale or "en"
        if who.is_admin:
            return SettingsView(locale, channel, may_change=True)
        denied = t(locale, "settings.denied")
        if channel is None:
            return SettingsView(locale, None, False, Message(body=denied, tone=Tone.WARNING))
        member = self.member(who)
        shown = self.quiz.setup.apply(channel, Actor(member, locale=locale), {})
        refusal = Message(title=shown.title, body=denied, fields=shown.fields, tone=Tone.WARNING)
        return SettingsView(locale, channel, False, refusal)

    # ------------------------------------------------------------ overviews and choices
    def home(self, who: Identity) -> Home:
        """Return the member's numbers in every quiz channel of their workspace."""
        channels = self.quiz.rounds.workspace_channels(who.platform, who.workspace)
        locale = who.locale or (channels[0].locale if channels else "en")
        member = self.member(who)
        # The home tab shows text only: no chart is drawn for it.
        return Home(locale, tuple(
            (c.external_id, self.quiz.board.stats_message(c, member, locale, chart=False))
            for c in channels), reviews=self.quiz.reminders.home_line(member, locale,
                                                                      self.scope(who)))

    def explain_choices(self, typed: str, locale: str | None, limit: int,
                        who: Identity | None = None) -> list[tuple[str, str]]:
        """Return (label, card id) pairs for the /explain autocomplete, of ``who``'s workspace.

        Without ``who``: the shipped cards and the packs shared with every workspace.
        """
        scope = self.scope(who) if who is not None else None
        return self.quiz.explain.choices(typed[:COMMAND_CHARS], locale or "en", limit, scope)

    def topic_choices(self, typed: str, limit: int, who: Identity | None = None) -> list[str]:
        """Return the practice topics of ``who``'s workspace matching what the member typed."""
        needle = typed[:COMMAND_CHARS].strip().lower()
        scope = self.scope(who) if who is not None else None
        # On the platform's event loop: the content as loaded, no query.
        return [tp for tp in self.quiz.practice.topics(scope, check=False) if needle in tp][:limit]

    @staticmethod
    def zone_choices(typed: str, limit: int) -> list[str]:
        """Return IANA zone names matching what the admin typed."""
        return matching_zones(typed[:COMMAND_CHARS], limit)
