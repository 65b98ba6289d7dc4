"""/quiz-pack on Discord: add a pack file (an attachment), list, remove, export (a file back).

Each handler defers first (private), so Discord's three seconds never depend on the sandbox:
a pack's validation runs on the runtime's workers (up to about a minute) and its report comes
as the private follow-up. An attachment's declared size and name are checked by the desk
before a byte is fetched, and the bytes are fetched only from Discord's CDN (or, in tests, the
host DISCORD_API_URL names), never more than the limit plus one.
"""

from __future__ import annotations

import io
import logging
from urllib.parse import urlsplit

import aiohttp
import discord
import discord.http

from bot.adapters.chat.download import DownloadRefused, fetch_bounded
from bot.adapters.discord.embeds import NO_MENTIONS, rendered
from bot.adapters.discord.handlers import Handlers, identity, locale_of
from bot.core.desk import PackReply
from bot.core.kernel.i18n import slash, t
from bot.core.kernel.messages import Message, Tone
from content.packs import MAX_PACK_BYTES

log = logging.getLogger(__name__)

DISCORD_API_HOSTS = frozenset({"discord.com", "discordapp.com", "ptb.discord.com",
                               "canary.discord.com"})
CDN_ORIGINS = frozenset({("https", "cdn.discordapp.com"), ("https", "media.discordapp.net")})
NAME_CHARS = 200


def attachment_origins() -> frozenset[tuple[str, str]]:
    """Return where attachments may be fetched: Discord's CDN, or the configured API's host."""
    base = urlsplit(discord.http.Route.BASE)
    if (base.hostname or "") in DISCORD_API_HOSTS:
        return CDN_ORIGINS
    # A local fake or a proxy in front of the API (DISCORD_API_URL) serves the files too.
    return frozenset({(base.scheme.lower(), base.netloc.lower())})


class PackHandlers:
    """The bot's answers to /quiz-pack add, list, remove and export."""

    def __init__(self, handlers: Handlers) -> None:
        self.handlers = handlers
        self.front = handlers.front

    async def add(self, interaction: discord.Interaction, attachment: discord.Attachment) -> None:
        """Check an attached pack file in the sandbox and store it for this server."""
        async def work() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            who = identity(interaction)
            name = attachment.filename[:NAME_CHARS]
            refusal = await self.front.pack_refusal(who, name, int(attachment.size))
            if refusal is not None:
                await self.handlers.show(interaction, refusal)
                return
            data = await self._download(interaction, attachment)
            if data is None:
                locale = locale_of(interaction)
                await self.handlers.send(interaction, Message(
                    body=t(locale, "pack.download_failed"), tone=Tone.WARNING), locale=locale)
                return
            await self.handlers.show(interaction, await self.front.pack_add(who, name, data))

        await self.handlers.guarded(interaction, f"{slash('pack', 'discord')} add", work)

    @staticmethod
    async def _download(interaction: discord.Interaction,
                        attachment: discord.Attachment) -> bytes | None:
        try:
            return await fetch_bounded(attachment.url, allowed=attachment_origins(),
                                       limit=MAX_PACK_BYTES)
        except DownloadRefused as exc:
            log.warning("discord pack attachment refused guild=%s user=%s: %s",
                        interaction.guild_id, interaction.user.id, exc)
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("discord pack attachment not fetched guild=%s user=%s: %r",
                        interaction.guild_id, interaction.user.id, exc)
        return None

    async def command(self, interaction: discord.Interaction, argument: str) -> None:
        """Handle /quiz-pack list, remove and export: private, an export with its file."""
        async def work() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            answer = await self.front.pack_command(identity(interaction), argument)
            await self._send(interaction, answer)

        await self.handlers.guarded(interaction, slash("pack", "discord"), work)

    async def _send(self, interaction: discord.Interaction, answer: PackReply) -> None:
        reply = answer.reply
        if not answer.file_name or reply.message is None:
            await self.handlers.show(interaction, reply)
            return
        out = rendered(reply.message, reply.locale)
        await interaction.followup.send(
            embed=out.embed, allowed_mentions=NO_MENTIONS, ephemeral=True,
            file=discord.File(io.BytesIO(answer.file_data), filename=answer.file_name))
