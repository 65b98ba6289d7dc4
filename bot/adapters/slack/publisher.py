"""Post what the scheduler asks for into Slack channels: rounds, reveals, weekly boards.

A round remembers its post as ``<channel id>:<ts>`` (Slack names a message by its channel and
timestamp). Tally changes edit that post with ``chat.update``; the reveal goes into its thread;
the weekly board is a table in blocks followed by its chart, uploaded with the files upload v2
flow. Each call uses the bot token of the channel's own workspace.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack.blocks import fallback, render
from bot.adapters.slack.installs import Tokens
from bot.core.messages import Message
from bot.core.models import ChannelSettings
from bot.core.pending import PrivateDelivery
from bot.core.service import Reveal, RoundPost
from bot.runtime import ChatRuntime

log = logging.getLogger(__name__)

# Our own text is escaped already; nothing in a post may become a link or a mention.
NO_PARSING: dict[str, Any] = {"parse": "none", "link_names": False, "unfurl_links": False,
                              "unfurl_media": False}


def message_ref(channel_id: str, ts: str) -> str:
    """Return how a posted round remembers its message: ``<channel id>:<ts>``."""
    return f"{channel_id}:{ts}"


def parse_ref(ref: str) -> tuple[str, str] | None:
    """Split a message ref back into (channel id, ts), or None if it is not one."""
    channel, _, ts = ref.partition(":")
    if not channel.isalnum() or not ts.replace(".", "").isdigit():
        return None
    return channel, ts


class SlackPublisher:
    """Implement the scheduler's Publisher port with the Web API."""

    def __init__(self, client: AsyncWebClient, tokens: Tokens, runtime: ChatRuntime) -> None:
        self.client = client
        self.tokens = tokens
        self.runtime = runtime

    async def _post(self, channel: ChannelSettings, message: Message, **extra: Any) -> str:
        token = await self.tokens.bot_token(channel.workspace_external_id)
        sent = await self.client.chat_postMessage(
            token=token, channel=channel.external_id, text=fallback(message),
            blocks=render(message, channel.locale), **NO_PARSING, **extra)
        return str(sent["ts"])

    async def publish_round(self, post: RoundPost) -> str:
        """Post a new round and return where it went."""
        ts = await self._post(post.channel, post.message)
        log.info("posted round=%s channel=%s ts=%s", post.round.id, post.channel.external_id, ts)
        return message_ref(post.channel.external_id, ts)

    async def refresh_round(self, round_id: int) -> None:
        """Redraw a posted round (its tally, or its buttons once closed)."""
        found = await self.runtime.call(self.runtime.quiz.rounds.post_for, round_id)
        if found is None:
            return
        channel, ref, message = found
        await self._edit(channel, ref, message)

    async def _edit(self, channel: ChannelSettings, ref: str, message: Message) -> None:
        parsed = parse_ref(ref)
        if parsed is None:
            return
        channel_id, ts = parsed
        token = await self.tokens.bot_token(channel.workspace_external_id)
        await self.client.chat_update(token=token, channel=channel_id, ts=ts,
                                      text=fallback(message),
                                      blocks=render(message, channel.locale),
                                      parse="none", link_names=False)

    async def publish_reveal(self, reveal: Reveal) -> None:
        """Take the buttons off the question and post the answer in its thread."""
        ref = reveal.round.message_ref or ""
        parsed = parse_ref(ref)
        if parsed is None:
            await self._post(reveal.channel, reveal.message)  # never posted: reveal in line
            return
        closed = await self.runtime.call(self.runtime.quiz.rounds.round_message, reveal.round,
                                         reveal.channel)
        await self._edit(reveal.channel, ref, closed)
        await self._post(reveal.channel, reveal.message, thread_ts=parsed[1])

    async def deliver_private(self, delivery: PrivateDelivery) -> None:
        """Show a late result (graded after an executor outage) to the member in the channel."""
        channel = await self.runtime.call(self.runtime.quiz.rounds.find_channel, "slack",
                                          delivery.channel_external_id)
        if channel is None:
            log.warning("no channel %s for the result of round=%s",
                        delivery.channel_external_id, delivery.round_id)
            return
        token = await self.tokens.bot_token(channel.workspace_external_id)
        await self.client.chat_postEphemeral(
            token=token, channel=channel.external_id, user=delivery.member_external_id,
            text=fallback(delivery.message), blocks=render(delivery.message, channel.locale),
            parse="none", link_names=False)

    async def publish_board(self, channel: ChannelSettings, message: Message) -> None:
        """Post the weekly table, then upload its chart into the channel."""
        await self._post(channel, message)
        if not message.image_png:
            return
        token = await self.tokens.bot_token(channel.workspace_external_id)
        await self.client.files_upload_v2(
            token=token, channel=channel.external_id, file=message.image_png,
            filename=message.image_name or "leaderboard.png", title=message.title or "chart",
            alt_txt=(message.image_alt or message.title)[:1000] or "leaderboard chart")
