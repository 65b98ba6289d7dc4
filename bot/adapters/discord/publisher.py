"""Post what the scheduler asks for into Discord channels: rounds, reveals, weekly boards.

Results of late grading and review reminders go to the member's DMs, never to a channel.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

import discord

from bot.adapters.discord.embeds import NO_MENTIONS, rendered
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Message, marks_round
from bot.core.kernel.models import ChannelSettings, Nudge
from bot.core.kernel.ports import ThreadGone
from bot.core.learning.reminders import MemberUnreachable
from bot.core.rounds.pending import PrivateDelivery
from bot.core.rounds.service import Reveal, RoundPost

log = logging.getLogger(__name__)

THREAD_NAME_CHARS = 100
# How far back a repost looks for the round's own post: from the round's opening (less a
# margin for clock skew), through at most this many of the channel's messages. The nonce
# covers a resend within minutes only; this covers a crash noticed later.
CLOCK_MARGIN = dt.timedelta(minutes=5)
HISTORY_LIMIT = 500
CANNOT_DM = 50007  # "Cannot send messages to this user": DMs closed, or no shared server
UNKNOWN_CHANNEL = 10003  # the channel (a live session's thread) was deleted


def _guild(channel: ChannelSettings) -> int | None:
    return int(channel.workspace_external_id) if channel.workspace_external_id.isdigit() \
        else None


def message_ref(channel_id: int, message_id: int) -> str:
    """Return how a posted round remembers its message: ``<channel id>:<message id>``."""
    return f"{channel_id}:{message_id}"


def parse_ref(ref: str) -> tuple[int, int] | None:
    """Split a message ref back into (channel id, message id), or None if it is not one."""
    channel, _, message = ref.partition(":")
    if not channel.isdigit() or not message.isdigit():
        return None
    return int(channel), int(message)


def _marks(message: discord.Message, round_id: int) -> bool:
    """Say whether a message carries a button of round ``round_id`` (its choices, its form)."""
    return any(marks_round(str(getattr(child, "custom_id", "") or ""), round_id)
               for row in message.components for child in getattr(row, "children", ()))


class DiscordPublisher:
    """Implement the scheduler's Publisher port with the bot's REST client."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    def _channel_for(self, channel: ChannelSettings) -> Any:
        # The cached channel when the gateway sent it; else a partial one that knows its
        # guild, which threads need.
        channel_id = int(channel.external_id)
        guild_id = int(channel.workspace_external_id) if channel.workspace_external_id.isdigit() \
            else None
        return self.client.get_channel(channel_id) or self.client.get_partial_messageable(
            channel_id, guild_id=guild_id)

    async def publish_round(self, post: RoundPost) -> str:
        """Post a new round and return where it went."""
        channel_id = int(post.channel.external_id)
        out = rendered(post.message, post.channel.locale)
        kwargs: dict[str, Any] = {"embed": out.embed, "allowed_mentions": NO_MENTIONS,
                                  # Discord returns the existing message for a repeated nonce:
                                  # a re-post after a crash cannot show the question twice.
                                  "nonce": f"tq-round-{post.round.id}"}
        if out.view is not None:
            kwargs["view"] = out.view
        sent = await self._channel_for(post.channel).send(**kwargs)
        log.info("posted round=%s channel=%s message=%s", post.round.id, channel_id, sent.id)
        return message_ref(channel_id, sent.id)

    async def find_round(self, post: RoundPost) -> str | None:
        """Return the round's post if an earlier attempt made it: the bot's, with its buttons."""
        channel_id = int(post.channel.external_id)
        me = self.client.user.id if self.client.user is not None else None
        after = post.round.opened_at - CLOCK_MARGIN
        try:
            async for message in self._channel_for(post.channel).history(
                    limit=HISTORY_LIMIT, after=after, oldest_first=False):
                if message.author.id == me and _marks(message, post.round.id):
                    return message_ref(channel_id, message.id)
        except discord.Forbidden:
            log.warning("cannot read channel=%s: round=%s is posted again unchecked",
                        channel_id, post.round.id)
        return None

    async def edit(self, channel: ChannelSettings, ref: str,
                   message: Message) -> discord.PartialMessage | None:
        """Edit a posted round's message to show ``message`` (its tally, or closed)."""
        parsed = parse_ref(ref)
        if parsed is None:
            return None
        _, message_id = parsed
        partial: discord.PartialMessage = self._channel_for(channel).get_partial_message(
            message_id)
        out = rendered(message, channel.locale)
        await partial.edit(embed=out.embed, view=out.view, allowed_mentions=NO_MENTIONS)
        return partial

    async def publish_reveal(self, reveal: Reveal) -> None:
        """Post the answer in a thread on the question, and take the buttons off the post."""
        ref = reveal.round.message_ref or ""
        locale = reveal.channel.locale
        if parse_ref(ref) is None:
            await self._send(reveal.channel, reveal.message)  # never posted: reveal in line
            return
        partial = await self.edit(reveal.channel, ref, reveal.closed_post)
        assert partial is not None  # noqa: S101 - parse_ref succeeded just above
        name = t(locale, "reveal.title", date=reveal.round.local_date.isoformat())
        try:
            thread = await self._thread_on(partial, reveal.channel, name[:THREAD_NAME_CHARS])
        except discord.HTTPException:
            log.warning("no thread for round=%s; revealing in the channel", reveal.round.id)
            await self._send(reveal.channel, reveal.message)
            return
        await self._send_to(thread, reveal.message, locale)

    async def _thread_on(self, partial: discord.PartialMessage, channel: ChannelSettings,
                         name: str) -> Any:
        """Open a thread on a posted message and return where to send into it.

        Before the gateway has sent the server (a reveal due in a restarted process's start-up
        sweep), discord.py's ``create_thread`` refuses a message without a cached guild: the
        same REST call is made directly, which needs no cache.
        """
        if partial.guild is not None:
            return await partial.create_thread(name=name, auto_archive_duration=1440)
        data = await self.client.http.start_thread_with_message(
            partial.channel.id, partial.id, name=name, auto_archive_duration=1440)
        guild_id = int(channel.workspace_external_id) \
            if channel.workspace_external_id.isdigit() else None
        return self.client.get_partial_messageable(int(data["id"]), guild_id=guild_id)

    async def publish_board(self, channel: ChannelSettings, message: Message) -> None:
        """Post the weekly leaderboard with its chart attached."""
        await self._send(channel, message)

    async def publish_live(self, channel: ChannelSettings, message: Message,
                           thread: str | None = None, open_thread: bool = False) -> str | None:
        """Post a live session's lobby, question (with its buttons), reveal or final board.

        ``thread``: into the session's thread; a thread deleted mid-session (10003 Unknown
        Channel) raises ThreadGone, and the session goes on in the channel. ``open_thread``
        (the lobby): start the session's thread on this post and return its id.
        """
        if thread is not None:
            target = self.client.get_partial_messageable(int(thread), guild_id=_guild(channel))
            try:
                await self._send_to(target, message, channel.locale)
            except discord.NotFound as exc:
                if exc.code == UNKNOWN_CHANNEL:
                    raise ThreadGone(thread) from exc
                raise
            return None
        sent = await self._send(channel, message)
        if not open_thread:
            return None
        partial = self._channel_for(channel).get_partial_message(sent.id)
        name = (message.title or t(channel.locale, "live.lobby.title"))[:THREAD_NAME_CHARS]
        try:
            started = await self._thread_on(partial, channel, name)
        except discord.HTTPException:
            log.warning("no thread for the live session in channel=%s: it posts in the channel",
                        channel.external_id)
            return None
        return str(started.id)

    async def deliver_private(self, delivery: PrivateDelivery) -> None:
        """Send a late result (a code answer graded after an outage) as a direct message.

        The interaction it answered expired long ago (follow-ups live fifteen minutes), so
        the member gets it in their DMs; a member who blocks DMs from the server is logged
        and keeps the recorded answer.
        """
        member_id = int(delivery.member_external_id)
        user = self.client.get_user(member_id) or await self.client.fetch_user(member_id)
        try:
            await self._send_to(user, delivery.message, delivery.locale)
        except discord.Forbidden:
            log.warning("member=%s takes no direct messages; the result of round=%s stays "
                        "in the member's stats", member_id, delivery.round_id)

    async def deliver_reminder(self, nudge: Nudge) -> None:
        """Send a review reminder in the member's DMs; closed DMs raise MemberUnreachable."""
        dm = await self.client.create_dm(discord.Object(id=int(nudge.member_external_id)))
        try:
            await self._send_to(dm, nudge.message, nudge.locale)
        except discord.Forbidden as exc:
            if exc.code == CANNOT_DM:
                raise MemberUnreachable(nudge.member_external_id) from exc
            raise

    async def _send(self, channel: ChannelSettings, message: Message) -> Any:
        return await self._send_to(self._channel_for(channel), message, channel.locale)

    async def _send_to(self, target: Any, message: Message, locale: str) -> Any:
        out = rendered(message, locale)
        kwargs: dict[str, Any] = {"embed": out.embed, "allowed_mentions": NO_MENTIONS}
        if out.view is not None:
            kwargs["view"] = out.view
        if out.file is not None:
            kwargs["file"] = out.file
        return await target.send(**kwargs)
