"""What each interaction does on Discord: parse it, acknowledge it, one core call, render.

Every handler acknowledges first (``defer``, or the modal itself), because Discord drops an
interaction that is not answered within three seconds and grading a code answer can take
longer. The core call goes through the shared chat front (bot/adapters/chat/front.py); the
reply goes out as a follow-up, private unless the member asked to share.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import discord

from bot.adapters.chat.front import ChatFront, NowhereToReply
from bot.adapters.discord import components
from bot.adapters.discord.embeds import NO_MENTIONS, rendered
from bot.core.desk import Reply
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Message, Tone
from bot.core.kernel.models import Identity

PLATFORM = "discord"
UNKNOWN_INTERACTION = 10062  # Discord's code for an interaction it no longer accepts


class InteractionExpired(NowhereToReply):
    """Discord dropped the interaction before we acknowledged it (three seconds, or 15 min).

    The member's client already said the app did not respond; whatever we would send is
    refused the same way. Nothing was done for the request if the refused call was its
    acknowledgement, which comes first: one warning line, not an error with a traceback.
    """
NAME_CHARS = 64


def locale_of(interaction: discord.Interaction) -> str:
    """Return our locale for the member's Discord client language."""
    return "zh-CN" if str(interaction.locale) == "zh-CN" else "en"


def display_name(user: discord.abc.User) -> str:
    """Return the name a member goes by in this server (nick, then global name, then user)."""
    return (getattr(user, "display_name", None) or user.name)[:NAME_CHARS]


def is_admin(interaction: discord.Interaction) -> bool:
    """Say whether the member may change quiz settings: Manage Server, as Discord computed it."""
    perms = interaction.permissions
    return bool(perms.manage_guild or perms.administrator)


def identity(interaction: discord.Interaction, user: discord.abc.User | None = None) -> Identity:
    """Return who acts where: the interaction's member (or ``user``), server and channel.

    A click in a thread (a live session's questions are posted in its thread) acts in the
    thread's channel: the quiz knows channels, and a thread is a place inside one.
    """
    person = user or interaction.user
    where: Any = interaction.channel
    channel_id = interaction.channel_id
    name = getattr(where, "name", "") or ""
    if isinstance(where, discord.Thread) and where.parent_id:
        channel_id = where.parent_id
        name = getattr(where.parent, "name", "") or ""
    return Identity(
        platform=PLATFORM,
        workspace=str(interaction.guild_id or ""),
        channel=str(channel_id or ""),
        user=str(person.id),
        display_name=display_name(person),
        locale=locale_of(interaction),
        is_admin=is_admin(interaction) if user is None else False,
        channel_name=name[:NAME_CHARS],
    )


class Handlers:
    """The bot's answers to slash commands, button clicks and modal submissions."""

    def __init__(self, front: ChatFront) -> None:
        self.front = front
        self.desk = front.desk

    # ------------------------------------------------------------ rendering
    async def show(self, interaction: discord.Interaction, reply: Reply, *,
                   private: bool = True) -> None:
        """Render the core's reply: a modal to open, or a message (a follow-up after a defer)."""
        if reply.form is not None:
            await interaction.response.send_modal(components.answer_modal(reply.form))
            return
        if reply.message is not None:
            await self.send(interaction, reply.message, private=private and not reply.public,
                            locale=reply.locale)

    async def send(self, interaction: discord.Interaction, message: Message, *,
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

    def _apology(self, interaction: discord.Interaction) -> Callable[[Message], Awaitable[None]]:
        async def apologise(message: Message) -> None:
            # An expired interaction reaches the member no more: nothing else to try.
            with contextlib.suppress(discord.HTTPException):
                await self.send(interaction, message, locale=locale_of(interaction))

        return apologise

    async def apologise(self, interaction: discord.Interaction) -> None:
        """Tell the member something went wrong on our side (errors caught outside a handler)."""
        await self._apology(interaction)(self.desk.apology(identity(interaction)))

    async def refuse_channel(self, interaction: discord.Interaction) -> None:
        """Tell an admin the channel they named cannot be used; nothing was saved."""
        locale = locale_of(interaction)
        with contextlib.suppress(discord.HTTPException):
            await self.send(interaction, Message(body=t(locale, "settings.bad_channel"),
                                                 tone=Tone.WARNING), locale=locale)

    async def guarded(self, interaction: discord.Interaction, what: str,
                      work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work`` under the front's guard: a failure gets the apology, never silence."""
        async def answering() -> None:
            try:
                await work()
            except discord.NotFound as exc:
                if exc.code != UNKNOWN_INTERACTION:
                    raise
                age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
                raise InteractionExpired(f"Discord dropped the interaction ({age:.1f} s old)"
                                         ) from exc

        await self.front.guarded(identity(interaction), what, answering,
                                 self._apology(interaction))

    # ------------------------------------------------------------ buttons and modals
    async def on_action(self, interaction: discord.Interaction, action_id: str,
                        kind: str) -> None:
        """Handle a click on one of our buttons (its custom id is the core's action id)."""
        async def work() -> None:
            # A modal must be the first response, and a shared card a public one: no defer.
            if kind not in ("form", "pform", "lform", "sform", "share", "report", "preport"):
                await interaction.response.defer(ephemeral=True, thinking=True)
            await self.show(interaction, await self.front.click(identity(interaction), action_id))

        await self.guarded(interaction, f"button {kind}", work)

    async def on_modal(self, interaction: discord.Interaction) -> None:
        """Handle a submitted answer modal, routed by its custom id (restart-proof)."""
        data: Any = interaction.data or {}
        custom_id = str(data.get("custom_id", "")) if isinstance(data, dict) else ""
        if not custom_id.startswith("tq:"):
            return  # not ours
        text = components.submitted_text(data) or ""
        choice = components.submitted_choice(data)

        async def work() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self.show(interaction, await self.front.submit(identity(interaction),
                                                                 custom_id, text, choice))

        await self.guarded(interaction, "modal", work)

    # ------------------------------------------------------------ slash commands
    async def command(self, interaction: discord.Interaction, name: str, argument: str = "",
                      *, share: bool = False, whom: discord.abc.User | None = None) -> None:
        """Handle /explain, /quiz, /leaderboard and /stats: private unless shared."""
        async def work() -> None:
            await interaction.response.defer(ephemeral=not share, thinking=True)
            who = identity(interaction)
            other = identity(interaction, whom) if whom is not None else None
            reply = await self.front.command(who, name, argument, other)
            await self.show(interaction, reply, private=not share)

        await self.guarded(interaction, f"/{name}", work)

    async def settings(self, interaction: discord.Interaction, target_id: int | None,
                       target_name: str, changes: Mapping[str, str]) -> None:
        """Handle /quiz-settings: show the settings, or change them (Manage Server only)."""
        async def work() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            target = str(target_id) if target_id is not None else ""
            reply = await self.front.settings(identity(interaction), target, target_name,
                                              changes)
            await self.show(interaction, reply)

        await self.guarded(interaction, "/quiz-settings", work)
