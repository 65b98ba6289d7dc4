"""The front desk of the core: every chat request enters here, as one call with an Identity.

A chat platform parses its payload into an :class:`Identity` (who, where, in what language,
with what rights) and a request (a click, a submitted form, a command); the desk resolves the
member, the channel and the locale in one storage call, applies the rules both platforms share
(the private reply speaks the channel's language, outside a quiz channel the member's; only an
admin's settings change creates a channel; how long a command may be), calls the
service that does the work and returns a :class:`Reply` for the adapter to render.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from bot.core.channel_setup import matching_zones
from bot.core.i18n import t
from bot.core.messages import Form, Message, Tone, parse_action, parse_submit, round_id_of
from bot.core.models import (
    Actor,
    AnswerMode,
    ChannelDefaults,
    ChannelSettings,
    Identity,
    Member,
    Resolved,
)
from bot.core.people import PeopleService
from bot.core.quiz import Quiz

log = logging.getLogger(__name__)

COMMAND_CHARS = 500  # a topic, a period or a member: anything longer is a paste gone wrong
COMMANDS = ("explain", "quiz", "leaderboard", "stats", "forget-me")


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


class Desk:
    """Turn chat requests into core calls; the one entry adapters use."""

    def __init__(self, quiz: Quiz) -> None:
        self.quiz = quiz
        self.store = quiz.rounds.store
        self.people = PeopleService(self.store)

    # ------------------------------------------------------------ resolving
    def _resolve(self, who: Identity, round_id: int | None = None) -> tuple[Resolved, Actor]:
        found = self.store.resolve(who.platform, who.user, who.display_name,
                                   channel_external_id=who.channel, round_id=round_id)
        # Private replies speak the channel's language; outside a quiz channel, the member's.
        locale = found.channel.locale if found.channel is not None else who.locale or "en"
        return found, Actor(found.member, is_admin=who.is_admin, locale=locale)

    def _member(self, who: Identity) -> Member:
        return self.store.ensure_member(who.platform, who.user, who.display_name)

    @staticmethod
    def _warning(locale: str, key: str, **values: object) -> Reply:
        return Reply(locale, Message(body=t(locale, key, **values), tone=Tone.WARNING))

    @staticmethod
    def apology(who: Identity) -> Message:
        """Return the apology for a failure on our side, built without storage (it may be down)."""
        return Message(body=t(who.locale or "en", "error.internal"), tone=Tone.ERROR)

    # ------------------------------------------------------------ buttons and forms
    def click(self, who: Identity, action_id: str) -> Reply:
        """Handle a click on one of our buttons (a choice, "Answer", "Share")."""
        parsed = parse_action(action_id)
        if parsed is None:
            return self._warning(who.locale or "en", "action.unknown")
        kind, target, key = parsed
        if kind == "answer":
            return self._answer(who, target, key, AnswerMode.BUTTON)
        if kind == "practice":
            return self._practice_answer(who, target, key, AnswerMode.BUTTON)
        if kind in ("form", "pform"):
            return self._open_form(who, kind, target)
        if kind == "forget":
            return self._forget_click(who, target, key)
        # share: a card for the whole channel, in the language of where it is shared
        _, actor = self._resolve(who)
        locale = actor.locale or "en"
        card = self.quiz.explain.share(target, locale)
        if card is None:
            return self._warning(locale, "explain.gone")
        return Reply(locale, card, public=True)

    def submit(self, who: Identity, submit_id: str, text: str) -> Reply:
        """Handle a submitted answer form (its id says what it answers and how)."""
        parsed = parse_submit(submit_id)
        if parsed is None:
            return self._warning(who.locale or "en", "action.unknown")
        kind, target, mode_name = parsed
        mode = AnswerMode.CODE if mode_name == "code" else AnswerMode.TEXT
        if kind == "submit":
            return self._answer(who, target, text, mode)
        return self._practice_answer(who, target, text, mode)

    def answer_today(self, who: Identity, response: str, mode: AnswerMode) -> Reply:
        """Answer the latest round of the member's channel (a typed answer: no button names it)."""
        found, actor = self._resolve(who)
        locale = actor.locale or "en"
        if found.channel is None:
            return self._warning(locale, "channel.no_quiz")
        outcome = self.quiz.rounds.submit_answer(found.channel.id, actor, response, mode)
        return Reply(locale, outcome.reply,
                     redraw_round=outcome.round_id if outcome.tally_changed else None)

    def practice_answer(self, who: Identity, response: str, mode: AnswerMode) -> Reply:
        """Answer the member's current practice question (a typed answer)."""
        found, actor = self._resolve(who)
        locale = actor.locale or "en"
        return Reply(locale, self.quiz.practice.answer(found.member, response, locale, mode))

    def _answer(self, who: Identity, target: str, response: str, mode: AnswerMode) -> Reply:
        round_id = round_id_of(target)
        found, actor = self._resolve(who, round_id)
        locale = actor.locale or "en"
        if found.round is None or found.channel is None:
            return self._warning(locale, "answer.no_round")
        outcome = self.quiz.rounds.answer(found.round, found.channel, actor, response, mode)
        return Reply(locale, outcome.reply,
                     redraw_round=outcome.round_id if outcome.tally_changed else None)

    def _practice_answer(self, who: Identity, item_id: str, response: str,
                         mode: AnswerMode) -> Reply:
        found, actor = self._resolve(who)
        locale = actor.locale or "en"
        return Reply(locale, self.quiz.practice.answer(found.member, response, locale, mode,
                                                       item_id=item_id))

    def _open_form(self, who: Identity, kind: str, target: str) -> Reply:
        round_id = round_id_of(target) if kind == "form" else None
        found, actor = self._resolve(who, round_id)
        locale = actor.locale or "en"
        if kind == "form":
            form = self.quiz.rounds.answer_form(round_id, locale) if round_id else None
            if form is None:
                return self._warning(locale, "answer.closed")
            return Reply(locale, form=form)
        form = self.quiz.practice.answer_form(found.member, target, locale)
        if form is None:
            return self._warning(locale, "practice.nothing_pending")
        return Reply(locale, form=form)

    # ------------------------------------------------------------ commands
    def command(self, who: Identity, name: str, argument: str = "",
                whom: Identity | None = None) -> Reply:
        """Handle /explain, /quiz, /leaderboard, /stats or /forget-me (``whom``: whose stats)."""
        refusal = self.command_too_long(argument, who.locale or "en")
        if refusal is not None:
            return refusal
        argument = argument.strip()
        handlers: Mapping[str, Callable[[Identity, str, Identity | None], Reply]] = {
            "explain": self._explain, "quiz": self._practice, "leaderboard": self._leaderboard,
            "stats": self._stats, "forget-me": self._forget_command,
        }
        handler = handlers.get(name)
        if handler is None:
            return self._warning(who.locale or "en", "action.unknown")
        return handler(who, argument, whom)

    @staticmethod
    def command_too_long(argument: str, locale: str) -> Reply | None:
        """Return the refusal of a command text over the length rule, or None when it fits.

        A platform may apply it before it looks anyone up, so a huge paste costs nothing.
        """
        if len(argument) <= COMMAND_CHARS:
            return None
        return Desk._warning(locale, "command.too_long", size=len(argument), limit=COMMAND_CHARS)

    def _explain(self, who: Identity, topic: str, _whom: Identity | None) -> Reply:
        _, actor = self._resolve(who)
        locale = actor.locale or "en"
        return Reply(locale, self.quiz.explain.explain(topic, locale))

    def _practice(self, who: Identity, topic: str, _whom: Identity | None) -> Reply:
        found, actor = self._resolve(who)
        locale = actor.locale or "en"
        return Reply(locale, self.quiz.practice.start(found.member, topic or None, locale))

    def _leaderboard(self, who: Identity, period: str, _whom: Identity | None) -> Reply:
        found, actor = self._resolve(who)
        if found.channel is None:
            return self._warning(actor.locale or "en", "channel.no_quiz")
        period = period.lower() or "week"
        locale = found.channel.locale
        return Reply(locale, self.quiz.board.leaderboard(found.channel, period, locale))

    def _stats(self, who: Identity, _argument: str, whom: Identity | None) -> Reply:
        found, actor = self._resolve(who)
        if found.channel is None:
            return self._warning(actor.locale or "en", "channel.no_quiz")
        member = found.member if whom is None or whom.user == who.user else self._member(whom)
        locale = found.channel.locale
        return Reply(locale, self.quiz.board.stats_message(found.channel, member, locale))

    # ------------------------------------------------------------ the member's own data
    def forget_me(self, who: Identity, confirmed: bool) -> Reply:
        """Say what forgetting the member deletes (with a confirm button), or delete it.

        Whatever is deleted is the data of ``who``, the member who asked or clicked. Asking
        creates nothing: a member the bot never stored hears that nothing is kept.
        """
        locale = self._locale_without_member(who)
        if not confirmed:
            return Reply(locale, self.people.preview(who, locale))
        message, report = self.people.forget(who, locale)
        redraw = report.open_rounds[0] if report is not None and report.open_rounds else None
        return Reply(locale, message, redraw_round=redraw)

    def _locale_without_member(self, who: Identity) -> str:
        # As _resolve decides, without registering the member: forgetting must not create one.
        channel = self.store.find_channel(who.platform, who.channel) if who.channel else None
        return channel.locale if channel is not None else who.locale or "en"

    def _forget_command(self, who: Identity, _argument: str, _whom: Identity | None) -> Reply:
        # Only the button confirms in chat: a typed "yes" still shows what would go first.
        return self.forget_me(who, confirmed=False)

    def _forget_click(self, who: Identity, tag: str, key: str) -> Reply:
        if not self.people.is_owner(who, tag):
            # Someone else's confirmation: it deletes nothing, theirs or the clicker's.
            return self._warning(self._locale_without_member(who), "forget.not_yours")
        if key != "yes":
            locale = self._locale_without_member(who)
            return Reply(locale, self.people.cancelled(locale))
        return self.forget_me(who, confirmed=True)

    # ------------------------------------------------------------ settings
    def settings(self, who: Identity, target: str, target_name: str,
                 changes: Mapping[str, str]) -> Reply:
        """Show a channel's settings, or change them (admins only, checked here).

        ``target`` is the platform's id of the channel to set up (``who.channel`` by default).
        Looking creates nothing; a member who may not change anything creates nothing either.
        """
        target = target or who.channel
        channel = self.store.find_channel(who.platform, target) if target else None
        found, actor = self._resolve(who)
        locale = channel.locale if channel is not None else who.locale or "en"
        actor = Actor(found.member, is_admin=who.is_admin, locale=locale)
        if channel is None:
            if not changes or not who.is_admin:
                key = "settings.denied" if changes else "channel.no_quiz"
                return self._warning(locale, key)
            if not target:
                return self._warning(locale, "channel.no_quiz")
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
        member = self._member(who)
        shown = self.quiz.setup.apply(channel, Actor(member, locale=locale), {})
        refusal = Message(title=shown.title, body=denied, fields=shown.fields, tone=Tone.WARNING)
        return SettingsView(locale, channel, False, refusal)

    # ------------------------------------------------------------ overviews and choices
    def home(self, who: Identity) -> Home:
        """Return the member's numbers in every quiz channel of their workspace."""
        channels = self.quiz.rounds.workspace_channels(who.platform, who.workspace)
        locale = who.locale or (channels[0].locale if channels else "en")
        member = self._member(who)
        return Home(locale, tuple((c.external_id, self.quiz.board.stats_message(c, member, locale))
                                  for c in channels))

    def explain_choices(self, typed: str, locale: str | None, limit: int) -> list[tuple[str, str]]:
        """Return (label, card id) pairs for the /explain autocomplete."""
        return self.quiz.explain.choices(typed[:COMMAND_CHARS], locale or "en", limit)

    def topic_choices(self, typed: str, limit: int) -> list[str]:
        """Return the practice topics matching what the member typed."""
        needle = typed[:COMMAND_CHARS].strip().lower()
        return [tp for tp in self.quiz.practice.topics() if needle in tp][:limit]

    @staticmethod
    def zone_choices(typed: str, limit: int) -> list[str]:
        """Return IANA zone names matching what the admin typed."""
        return matching_zones(typed[:COMMAND_CHARS], limit)
