"""The Discord client: an AutoShardedBot with our commands, buttons, modals and scheduler.

Intents: only ``guilds``. Slash commands, buttons and modals arrive as interactions, which
need no privileged intent (no message content, no member list); display names come with each
interaction. AutoShardedBot asks ``GET /gateway/bot`` for the gateway and the shard count, so
a large install shards with no code change; ``TORCHQUIZ_DISCORD_SHARDS`` spreads the shards
over several processes (bot/adapters/discord/sharding.py).
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import discord
import yarl
from discord import app_commands
from discord.ext import commands
from discord.gateway import DiscordWebSocket

from bot.adapters.chat import health
from bot.adapters.chat.coalesce import EditCoalescer, RoundRedraw
from bot.adapters.chat.front import ChatFront
from bot.adapters.chat.runtime import ChatRuntime
from bot.adapters.discord import commands as slash
from bot.adapters.discord.components import ActionButton
from bot.adapters.discord.handlers import Handlers
from bot.adapters.discord.publisher import DiscordPublisher
from bot.adapters.discord.translator import CommandTranslator

log = logging.getLogger(__name__)


def intents() -> discord.Intents:
    """Return the gateway intents the bot needs: guilds only."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    return wanted


class QuizBot(commands.AutoShardedBot):
    """Wire the core's runtime to Discord: commands, components, publisher, scheduler."""

    def __init__(self, runtime: ChatRuntime, *, guild_id: int | None = None,
                 tally_delay_s: float = 2.0, health_address: tuple[str, int] | None = None,
                 **options: Any) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=intents(),
                         allowed_mentions=discord.AllowedMentions.none(), **options)
        self.runtime = runtime
        self.guild_id = guild_id
        self.publisher = DiscordPublisher(self)
        self.coalescer = EditCoalescer(
            RoundRedraw(runtime.post_for, self.publisher.edit), tally_delay_s)
        self.actions = Handlers(ChatFront(runtime, self.coalescer))
        self.synced: list[app_commands.AppCommand] = []
        self.health = health.Health(runtime, self.gateway_up)
        self._health_address = health_address
        self._health_server: Any = None

    async def gateway_up(self) -> bool:
        """Say whether every shard is connected to the gateway and the bot is ready."""
        if not self.is_ready() or self.is_closed():
            return False
        return all(not shard.is_closed() for shard in self.shards.values())

    async def setup_hook(self) -> None:
        """Serve the health port, register buttons and commands, sync, start the scheduler."""
        if self._health_address is not None:
            self._health_server = await health.serve(self.health, *self._health_address)
        self.add_dynamic_items(ActionButton)
        await self.tree.set_translator(CommandTranslator())
        slash.register(self.tree, self.actions)
        self.tree.error(self._on_command_error)
        if self.shard_ids is not None and 0 not in self.shard_ids:
            # Several processes share the shards: the one running shard 0 registers the
            # commands, the others would only repeat the same PUT (and spend its rate limit).
            log.info("commands are synced by the process that runs shard 0")
        elif self.guild_id is not None:
            # A guild's commands update at once: the developer's loop. Global ones take a while.
            guild = discord.Object(id=self.guild_id)
            self.tree.copy_global_to(guild=guild)
            self.synced = await self.tree.sync(guild=guild)
        else:
            self.synced = await self.tree.sync()
        if self.synced:
            log.info("synced %d slash commands%s", len(self.synced),
                     f" to guild {self.guild_id}" if self.guild_id else " globally")
        await self.runtime.start(self.publisher)

    async def launch_shards(self) -> None:
        """Connect this process's shards to the gateway address Discord gives the bot.

        Given a shard count (``TORCHQUIZ_DISCORD_SHARDS``), discord.py skips ``GET
        /gateway/bot`` and dials its built-in address; ask for the address anyway (the count
        stays ours), as Discord recommends and as a proxy in DISCORD_API_URL needs.
        """
        if self.shard_count is not None and not self.is_closed():
            _, url, _ = await self.http.get_bot_gateway()
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)  # one bot per process
        await super().launch_shards()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Route answer modals by custom id: they must work after a restart and on any replica."""
        if interaction.type is discord.InteractionType.modal_submit:
            await self.actions.on_modal(interaction)

    async def _on_command_error(self, interaction: discord.Interaction,
                                error: app_commands.AppCommandError) -> None:
        if (isinstance(error, app_commands.TransformerError)
                and error.type is discord.AppCommandOptionType.channel):
            # A channel option discord.py cannot find among this server's text channels: the
            # member's mistake or a forged id, answered as such; nothing is stored.
            log.warning("discord settings for an unknown channel refused guild=%s user=%s",
                        interaction.guild_id, interaction.user.id)
            await self.actions.refuse_channel(interaction)
            return
        self.runtime.metrics.error("command")
        log.error("discord command failed guild=%s channel=%s user=%s: %r", interaction.guild_id,
                  interaction.channel_id, interaction.user.id, error, exc_info=error,
                  extra={"platform": "discord", "workspace": interaction.guild_id,
                         "channel": interaction.channel_id, "user": interaction.user.id})
        await self.actions.apologise(interaction)

    async def close(self) -> None:
        """Flush pending tally edits, stop the scheduler and the core, then disconnect."""
        try:
            await self.coalescer.flush()
        finally:
            if self._health_server is not None:
                with contextlib.suppress(Exception):
                    await self._health_server.cleanup()
                self._health_server = None
            self.health.close()
            await self.runtime.stop()
            await super().close()
