"""Post what the scheduler asks for into Slack channels: rounds, reveals, weekly boards.

A round remembers its post as ``<channel id>:<ts>`` (Slack names a message by its channel and
timestamp). Tally changes edit that post with ``chat.update``; the reveal goes into its thread;
the weekly board is a table in blocks followed by its chart, uploaded with the files upload v2
flow; a review reminder is a direct message (conversations.open, then chat.postMessage into
the IM). Each call uses the bot token of the channel's own workspace.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import AsyncConnectionErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack.blocks import fallback, render
from bot.adapters.slack.tokens import Tokens
from bot.core.kernel.errors import PlatformRefused
from bot.core.kernel.messages import Message, marks_round
from bot.core.kernel.models import ChannelSettings, Nudge
from bot.core.kernel.ports import ThreadGone
from bot.core.learning.reminders import MemberUnreachable
from bot.core.rounds.pending import PrivateDelivery
from bot.core.rounds.service import Reveal, RoundPost

log = logging.getLogger(__name__)

# Our own text is escaped already; nothing in a post may become a link or a mention.
NO_PARSING: dict[str, Any] = {"parse": "none", "link_names": False, "unfurl_links": False,
                              "unfurl_media": False}


# Every round post carries this message metadata, so a repost can find it in the history.
ROUND_EVENT = "torchquiz_round"
# How far back a repost looks: from the round's opening (less a margin for clock skew between
# us and Slack), through at most this many messages of the channel.
CLOCK_MARGIN = dt.timedelta(minutes=5)
LIVE_POST_SPACING_S = 1.0  # Slack: one chat.postMessage per second per channel
MAX_SPACED_CHANNELS = 1000
# What Slack answers a reply to a live session's thread whose lobby post was deleted.
THREAD_GONE = ("thread_not_found", "channel_not_found")
HISTORY_PAGE = 200
HISTORY_PAGES = 5
# Errors after which the history will not tell however often we ask: post (and log) instead.
_HISTORY_CLOSED = ("missing_scope", "not_in_channel", "channel_not_found", "not_allowed_token_type")
# conversations.open errors that say this member cannot get a DM from us, however often asked.
_NO_DM = ("user_not_found", "user_disabled", "cannot_dm_bot", "not_allowed_token_type")


def round_metadata(round_id: int) -> dict[str, Any]:
    """Return the message metadata that marks a round's post."""
    return {"event_type": ROUND_EVENT, "event_payload": {"round_id": round_id}}


def marks(message: dict[str, Any], round_id: int) -> bool:
    """Say whether a message from the history is the post of round ``round_id``."""
    metadata = message.get("metadata") or {}
    if metadata.get("event_type") == ROUND_EVENT:
        return (metadata.get("event_payload") or {}).get("round_id") == round_id
    # Posts made before the metadata existed still carry the round in their buttons.
    return any(marks_round(str(element.get("action_id", "")), round_id)
               for block in message.get("blocks") or [] if block.get("type") == "actions"
               for element in block.get("elements") or [])


def message_ref(channel_id: str, ts: str) -> str:
    """Return how a posted round remembers its message: ``<channel id>:<ts>``."""
    return f"{channel_id}:{ts}"


def parse_ref(ref: str) -> tuple[str, str] | None:
    """Split a message ref back into (channel id, ts), or None if it is not one."""
    channel, _, ts = ref.partition(":")
    if not channel.isalnum() or not ts.replace(".", "").isdigit():
        return None
    return channel, ts


@dataclasses.dataclass
class _ChannelTurn:
    """One channel's live posts, one at a time, and when Slack answered the last of them."""

    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)
    answered_at: float = float("-inf")


class SlackPublisher:
    """Implement the scheduler's Publisher port with the Web API."""

    def __init__(self, client: AsyncWebClient, tokens: Tokens) -> None:
        self.client = client
        self.tokens = tokens
        self._bot_ids: dict[str, str] = {}  # token -> the bot id its posts carry
        # Each channel's live posts take turns: Slack allows one post per second per channel,
        # and a reveal is followed at once by the next question.
        self._live_turns: dict[str, _ChannelTurn] = {}
        # Rounds are posted without the client's retry of a dropped connection: Slack may
        # have taken the first try, and a blind second one would show the round twice.
        self._round_client = AsyncWebClient(
            base_url=client.base_url, timeout=client.timeout, ssl=client.ssl, proxy=client.proxy,
            headers=client.headers, retry_handlers=[h for h in client.retry_handlers
                            if not isinstance(h, AsyncConnectionErrorRetryHandler)])

    async def _post(self, channel: ChannelSettings, message: Message, *,
                    client: AsyncWebClient | None = None, **extra: Any) -> str:
        token = await self.tokens.bot_token(channel.workspace_external_id)
        try:
            sent = await (client or self.client).chat_postMessage(
                token=token, channel=channel.external_id, text=fallback(message),
                blocks=render(message, channel.locale), **NO_PARSING, **extra)
        except SlackApiError as exc:  # Slack answered, after the client's own retries: no
            raise PlatformRefused(f"chat.postMessage: {exc.response.get('error')} "
                                  f"(HTTP {exc.response.status_code})") from exc
        return str(sent["ts"])

    async def publish_round(self, post: RoundPost) -> str:
        """Post a new round, marked with its id in the message metadata; return where it went."""
        try:
            ts = await self._post(post.channel, post.message, client=self._round_client,
                                  metadata=round_metadata(post.round.id))
        except PlatformRefused:
            raise  # Slack answered: it refused the post
        except Exception:
            # No answer (a timeout, a dropped connection): Slack may have taken the post.
            found = await self.find_round(post)
            if found is None:
                raise  # the claim stays; after the lease the round is looked for again
            log.warning("round=%s went out although Slack did not answer; keeping it",
                        post.round.id)
            return found
        log.info("posted round=%s channel=%s ts=%s", post.round.id, post.channel.external_id, ts)
        return message_ref(post.channel.external_id, ts)

    async def find_round(self, post: RoundPost) -> str | None:
        """Return the round's post if an earlier attempt made it: the bot's, with its marker.

        Slack has no idempotent post, so a post accepted just before a crash or a client
        timeout is found in the channel's history (newest first, since the round opened).
        """
        channel = post.channel.external_id
        token = await self.tokens.bot_token(post.channel.workspace_external_id)
        me = await self._bot_id(token)
        oldest = f"{(post.round.opened_at - CLOCK_MARGIN).timestamp():.6f}"
        cursor = None
        for _ in range(HISTORY_PAGES):
            try:
                page = await self.client.conversations_history(
                    token=token, channel=channel, oldest=oldest, limit=HISTORY_PAGE,
                    include_all_metadata=True, cursor=cursor)
            except SlackApiError as exc:
                error = exc.response.get("error")
                if error not in _HISTORY_CLOSED:
                    raise  # asked again after the lease
                log.warning("cannot read channel=%s (%s): round=%s is posted again unchecked",
                            channel, error, post.round.id)
                return None
            for message in page.get("messages") or []:
                if message.get("bot_id") == me and marks(message, post.round.id):
                    return message_ref(channel, str(message["ts"]))
            cursor = (page.get("response_metadata") or {}).get("next_cursor")
            if not page.get("has_more") or not cursor:
                return None
        log.warning("round=%s not among the last %s messages of channel=%s: posting it again",
                    post.round.id, HISTORY_PAGE * HISTORY_PAGES, channel)
        return None

    async def _bot_id(self, token: str) -> str:
        if token not in self._bot_ids:
            identity = await self.client.auth_test(token=token)
            self._bot_ids[token] = str(identity.get("bot_id") or "")
        return self._bot_ids[token]

    async def edit(self, channel: ChannelSettings, ref: str, message: Message) -> None:
        """Edit a posted round's message to show ``message`` (its tally, or closed)."""
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
        await self.edit(reveal.channel, ref, reveal.closed_post)
        await self._post(reveal.channel, reveal.message, thread_ts=parsed[1])

    async def deliver_private(self, delivery: PrivateDelivery) -> None:
        """Show a late result (graded after an executor outage) to the member in the channel."""
        token = await self.tokens.bot_token(delivery.workspace_external_id)
        await self.client.chat_postEphemeral(
            token=token, channel=delivery.channel_external_id, user=delivery.member_external_id,
            text=fallback(delivery.message), blocks=render(delivery.message, delivery.locale),
            parse="none", link_names=False)

    async def deliver_reminder(self, nudge: Nudge) -> None:
        """Send a review reminder as a direct message: open the IM, post into it."""
        token = await self.tokens.bot_token(nudge.workspace_external_id)
        try:
            opened = await self.client.conversations_open(token=token,
                                                          users=nudge.member_external_id)
        except SlackApiError as exc:
            if exc.response.get("error") in _NO_DM:
                raise MemberUnreachable(nudge.member_external_id) from exc
            raise
        im = str((opened.get("channel") or {}).get("id") or "")
        if not im.startswith("D"):  # only ever a direct message, never a channel
            raise RuntimeError(f"conversations.open gave no IM for {nudge.member_external_id}")
        await self.client.chat_postMessage(token=token, channel=im, text=fallback(nudge.message),
                                           blocks=render(nudge.message, nudge.locale),
                                           **NO_PARSING)

    async def publish_live(self, channel: ChannelSettings, message: Message,
                           thread: str | None = None, open_thread: bool = False) -> str | None:
        """Post a live session's lobby, question (with its buttons), reveal or final board.

        ``thread``: as a reply in the session's thread (the lobby's ts); a thread whose lobby
        was deleted (thread_not_found, channel_not_found) raises ThreadGone, and the session
        goes on in the channel. ``open_thread`` (the lobby): return its ts, the thread.
        Posts in one channel go out at least a second apart (Slack's one post per second per
        channel): a reveal and the next question are two posts of the same sweep.
        """
        key = f"{channel.workspace_external_id}:{channel.external_id}"
        turn = self._live_turns.get(key)
        if turn is None:
            if len(self._live_turns) >= MAX_SPACED_CHANNELS:
                self._forget_idle_turns()
            turn = self._live_turns[key] = _ChannelTurn()
        async with turn.lock:
            loop = asyncio.get_running_loop()
            wait = turn.answered_at + LIVE_POST_SPACING_S - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                return await self._post_live(channel, message, thread, open_thread)
            finally:
                # Slack counts a second between arrivals. Counting it from the moment Slack
                # answered the previous post (after that post arrived) keeps the gap a second
                # however long the next request takes to get there; counting from the moment
                # we sent it did not, on a busy machine (0.94 s apart, seen in CI).
                turn.answered_at = loop.time()

    def _forget_idle_turns(self) -> None:
        """Forget channels whose last live post is long past its second (bounded memory)."""
        now = asyncio.get_running_loop().time()
        self._live_turns = {k: v for k, v in self._live_turns.items()
                            if v.lock.locked() or v.answered_at + LIVE_POST_SPACING_S > now}

    async def _post_live(self, channel: ChannelSettings, message: Message, thread: str | None,
                         open_thread: bool) -> str | None:
        if thread is None:
            ts = await self._post(channel, message)
            return ts if open_thread else None
        try:
            await self._post(channel, message, thread_ts=thread)
        except PlatformRefused as exc:
            cause = exc.__cause__
            if isinstance(cause, SlackApiError) and cause.response.get("error") in THREAD_GONE:
                raise ThreadGone(thread) from exc
            raise
        return None

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
