"""What each interaction does: parse it, acknowledge it, make one core call off the loop, reply.

Every handler acknowledges first (``defer`` or the modal itself), because Discord drops an
interaction that is not answered within three seconds and grading a code answer can take
longer. The core call then runs on the runtime's worker threads, and the reply goes out as a
follow-up, private unless the member asked to share. A member's mistake is a short private
line; anything unexpected is logged with its ids and answered with an apology, and the bot
carries on with the next interaction.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.adapters.discord import components
from bot.adapters.discord.render import NO_MENTIONS, rendered
from bot.coalesce import EditCoalescer
from bot.core.app import Quiz
from bot.core.i18n import t
from bot.core.messages import Message, Tone
from bot.core.models import Actor, AnswerMode, ChannelDefaults, ChannelSettings, Member
from bot.core.service import AnswerOutcome
from bot.runtime import ChatRuntime

log = logging.getLogger(__name__)

PLATFORM = "discord"


def locale_of(interaction: discord.Interaction) -> str:
    """Return our locale for the member's Discord client language."""
    return "zh-CN" if str(interaction.locale) == "zh-CN" else "en"


def display_name(user: discord.abc.User) -> str:
    """Return the name a member goes by in this server (nick, then global name, then user)."""
    return (getattr(user, "display_name", None) or user.name)[:64]


def is_admin(interaction: discord.Interaction) -> bool:
    """Say whether the member may change quiz settings: Manage Server, checked on our side."""
    perms = interaction.permissions
    return bool(perms.manage_guild or perms.administrator)


class Handlers:
    """The bot's answers to slash commands, button clicks and modal submissions."""

    def __init__(self, runtime: ChatRuntime, coalescer: EditCoalescer) -> None:
        self.runtime = runtime
        self.coalescer = coalescer

    @property
    def quiz(self) -> Quiz:
        """Return the core."""
        return self.runtime.quiz

    # ------------------------------------------------------------ helpers (worker threads)

    def _member(self, user: discord.abc.User) -> Member:
        return self.quiz.rounds.member(PLATFORM, str(user.id), display_name(user))

    def _channel(self, interaction: discord.Interaction) -> ChannelSettings | None:
        if interaction.channel_id is None:
            return None
        return self.quiz.rounds.find_channel(PLATFORM, str(interaction.channel_id))

    def _actor(self, interaction: discord.Interaction,
               channel: ChannelSettings | None) -> Actor:
        # Private replies speak the channel's language; outside a quiz channel, the member's.
        locale = channel.locale if channel is not None else locale_of(interaction)
        return Actor(self._member(interaction.user), is_admin=is_admin(interaction),
                     locale=locale)

    # ------------------------------------------------------------ the loop side

    async def guarded(self, interaction: discord.Interaction, what: str,
                      work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work``; on an unexpected error log the ids and apologise to the member."""
        try:
            await work()
        except Exception:
            log.exception("discord %s failed guild=%s channel=%s user=%s", what,
                          interaction.guild_id, interaction.channel_id, interaction.user.id)
            await self.apologise(interaction)

    async def apologise(self, interaction: discord.Interaction) -> None:
        """Tell the member something went wrong on our side, however far the reply got."""
        text = t(locale_of(interaction), "error.internal")
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True,
                                                allowed_mentions=NO_MENTIONS)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            log.warning("could not apologise to user=%s (interaction expired)",
                        interaction.user.id)

    async def reply(self, interaction: discord.Interaction, message: Message, *,
                    private: bool = True, locale: str = "en") -> None:
        """Send ``message`` as the interaction's reply (after a defer: as its follow-up)."""
        out = rendered(message, locale)
        kwargs: dict[str, Any] = {"embed": out.embed, "allowed_mentions": NO_MENTIONS}
        if out.view is not None:
            kwargs["view"] = out.view
        if out.file is not None:
            kwargs["file"] = out.file
        if interaction.response.is_done():
            await interaction.followup.send(ephemeral=private, **kwargs)
        else:
            await interaction.response.send_message(ephemeral=private, **kwargs)

    async def say(self, interaction: discord.Interaction, text: str, tone: Tone = Tone.WARNING,
                  locale: str = "en") -> None:
        """Send a short private line."""
        await self.reply(interaction, Message(body=text, tone=tone), locale=locale)

    async def _answered(self, interaction: discord.Interaction, outcome: AnswerOutcome,
                        locale: str) -> None:
        await self.reply(interaction, outcome.reply, locale=locale)
        if outcome.tally is not None and outcome.round_id is not None:
            self.coalescer.touch(outcome.round_id)

    # ------------------------------------------------------------ buttons

    async def on_action(self, interaction: discord.Interaction, kind: str, target: str,
                        key: str) -> None:
        """Handle a click on one of our buttons."""
        await self.guarded(interaction, f"button {kind}",
                           lambda: self._action(interaction, kind, target, key))

    async def _action(self, interaction: discord.Interaction, kind: str, target: str,
                      key: str) -> None:
        if kind in ("form", "pform"):
            await self._open_form(interaction, kind, target)
            return
        if kind == "share":
            locale = locale_of(interaction)
            card = await self.runtime.call(self.quiz.explain.share, target, locale)
            if card is None:
                await self.say(interaction, t(locale, "explain.gone"), locale=locale)
                return
            await self.reply(interaction, card, private=False, locale=locale)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        if kind == "answer":
            outcome, locale = await self.runtime.call(self._answer_round, interaction,
                                                      int(target), key, AnswerMode.BUTTON)
            await self._answered(interaction, outcome, locale)
        elif kind == "practice":
            message, locale = await self.runtime.call(self._practice, interaction, target, key,
                                                      AnswerMode.BUTTON)
            await self.reply(interaction, message, locale=locale)

    def _answer_round(self, interaction: discord.Interaction, round_id: int, response: str,
                      mode: AnswerMode) -> tuple[AnswerOutcome, str]:
        actor = self._actor(interaction, self._channel(interaction))
        outcome = self.quiz.rounds.answer_round(round_id, actor, response, mode)
        return outcome, actor.locale or "en"

    def _practice(self, interaction: discord.Interaction, item_id: str, response: str,
                  mode: AnswerMode) -> tuple[Message, str]:
        actor = self._actor(interaction, self._channel(interaction))
        locale = actor.locale or "en"
        return self.quiz.practice.answer(actor.member, response, locale, mode,
                                         item_id=item_id), locale

    async def _open_form(self, interaction: discord.Interaction, kind: str,
                         target: str) -> None:
        # A modal must be the first response, so this lookup runs before any defer: it is one
        # indexed read, far inside Discord's three seconds.
        def form() -> tuple[Any, str]:
            actor = self._actor(interaction, self._channel(interaction))
            locale = actor.locale or "en"
            if kind == "form":
                return self.quiz.rounds.answer_form(int(target), locale), locale
            return self.quiz.practice.answer_form(actor.member, target, locale), locale

        found, locale = await self.runtime.call(form)
        if found is None:
            key = "answer.closed" if kind == "form" else "practice.nothing_pending"
            await self.say(interaction, t(locale, key), locale=locale)
            return
        await interaction.response.send_modal(components.answer_modal(found))

    # ------------------------------------------------------------ modals

    async def on_modal(self, interaction: discord.Interaction) -> None:
        """Handle a submitted answer modal, routed by its custom id (restart-proof)."""
        data: Any = interaction.data or {}
        parsed = components.parse_submit(str(data.get("custom_id", "")))
        if parsed is None:
            return  # not ours
        await self.guarded(interaction, "modal", lambda: self._modal(interaction, parsed, data))

    async def _modal(self, interaction: discord.Interaction, parsed: tuple[str, str, str],
                     data: Any) -> None:
        kind, target, mode_name = parsed
        text = components.submitted_text(data) or ""
        await interaction.response.defer(ephemeral=True, thinking=True)
        limit = 4000 if mode_name == "code" else 200
        if len(text) > limit:
            locale = locale_of(interaction)
            await self.say(interaction, t(locale, "form.too_long", size=len(text), limit=limit),
                           locale=locale)
            return
        mode = AnswerMode.CODE if mode_name == "code" else AnswerMode.TEXT
        if kind == "submit":
            outcome, locale = await self.runtime.call(self._answer_round, interaction,
                                                      int(target), text, mode)
            await self._answered(interaction, outcome, locale)
        else:
            message, locale = await self.runtime.call(self._practice, interaction, target, text,
                                                      mode)
            await self.reply(interaction, message, locale=locale)

    # ------------------------------------------------------------ slash commands

    async def explain(self, interaction: discord.Interaction, topic: str) -> None:
        """Handle /explain: the card, privately, with a button to share it."""
        async def work() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)

            def card() -> tuple[Message, str]:
                channel = self._channel(interaction)
                locale = channel.locale if channel is not None else locale_of(interaction)
                return self.quiz.explain.explain(topic, locale), locale

            message, locale = await self.runtime.call(card)
            await self.reply(interaction, message, locale=locale)

        await self.guarded(interaction, "/explain", work)

    async def practice(self, interaction: discord.Interaction, topic: str | None) -> None:
        """Handle /quiz: a private practice question."""
        async def work() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)

            def start() -> tuple[Message, str]:
                actor = self._actor(interaction, self._channel(interaction))
                locale = actor.locale or "en"
                return self.quiz.practice.start(actor.member, topic, locale), locale

            message, locale = await self.runtime.call(start)
            await self.reply(interaction, message, locale=locale)

        await self.guarded(interaction, "/quiz", work)

    async def leaderboard(self, interaction: discord.Interaction, period: str,
                          share: bool) -> None:
        """Handle /leaderboard: private unless shared."""
        async def work() -> None:
            await interaction.response.defer(ephemeral=not share, thinking=True)

            def board() -> tuple[Message | None, str]:
                channel = self._channel(interaction)
                if channel is None:
                    return None, locale_of(interaction)
                return self.quiz.board.leaderboard(channel, period, channel.locale), channel.locale

            message, locale = await self.runtime.call(board)
            if message is None:
                await self.say(interaction, t(locale, "channel.no_quiz"), locale=locale)
                return
            await self.reply(interaction, message, private=not share, locale=locale)

        await self.guarded(interaction, "/leaderboard", work)

    async def stats(self, interaction: discord.Interaction, member: discord.abc.User | None,
                    share: bool) -> None:
        """Handle /stats: a member's numbers in this channel, private unless shared."""
        async def work() -> None:
            await interaction.response.defer(ephemeral=not share, thinking=True)

            def numbers() -> tuple[Message | None, str]:
                channel = self._channel(interaction)
                if channel is None:
                    return None, locale_of(interaction)
                whom = self._member(member or interaction.user)
                return self.quiz.board.stats_message(channel, whom, channel.locale), channel.locale

            message, locale = await self.runtime.call(numbers)
            if message is None:
                await self.say(interaction, t(locale, "channel.no_quiz"), locale=locale)
                return
            await self.reply(interaction, message, private=not share, locale=locale)

        await self.guarded(interaction, "/stats", work)

    async def settings(self, interaction: discord.Interaction, target_id: int | None,
                       target_name: str, changes: dict[str, str]) -> None:
        """Handle /quiz-settings: show the settings, or change them (Manage Server only)."""
        async def work() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            message, locale = await self.runtime.call(self._settings, interaction, target_id,
                                                      target_name, changes)
            await self.reply(interaction, message, locale=locale)

        await self.guarded(interaction, "/quiz-settings", work)

    def _settings(self, interaction: discord.Interaction, target_id: int | None,
                  target_name: str, changes: dict[str, str]) -> tuple[Message, str]:
        channel_id = str(target_id or interaction.channel_id)
        channel = self.quiz.rounds.find_channel(PLATFORM, channel_id)
        actor = self._actor(interaction, channel)
        locale = actor.locale or "en"
        if channel is None:
            if not changes or not actor.is_admin:
                # Nothing is created by looking, or by a member who may not change anything.
                text = t(locale, "settings.denied") if changes else t(locale, "channel.no_quiz")
                return Message(body=text, tone=Tone.WARNING), locale
            defaults = ChannelDefaults(name=target_name, locale=locale_of(interaction))
            channel = self.quiz.rounds.channel(PLATFORM, channel_id,
                                               str(interaction.guild_id or ""), defaults)
        return self.quiz.setup.apply(channel, actor, changes), locale
