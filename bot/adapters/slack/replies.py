"""How a reply reaches a member: privately by response URL or chat.postEphemeral, or for all.

A slash command and a click carry a ``response_url``: a reply through it works in any channel,
even one the app is not in, and lands where the member acted. Feedback on the daily post goes
out with ``chat.postEphemeral`` into the post's channel (the app is there: it posted). Both
paths wait out ``ratelimited`` with slack-sdk's retry handlers.
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.adapters.chat.front import NowhereToReply
from bot.adapters.slack.blocks import fallback, render
from bot.adapters.slack.requests import Request
from bot.core.kernel.messages import Message

log = logging.getLogger(__name__)

RATE_LIMIT_RETRIES = 3
# chat.postEphemeral fails like this where the app is not a member; a response URL still works.
_NOT_THERE = ("channel_not_found", "not_in_channel", "user_not_in_channel")


def retry_handlers() -> list[AsyncRetryHandler]:
    """Return the retry policy of every Slack call: connection errors, then ``ratelimited``."""
    return [AsyncConnectionErrorRetryHandler(),
            AsyncRateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES)]


class NoWayToReply(NowhereToReply):
    """The request has neither a channel the app can post in nor a response URL."""


async def respond(request: Request, message: Message, locale: str, *,
                  public: bool = False) -> None:
    """Reply through the request's response URL: to the member, or to the channel."""
    if not request.response_url:
        raise NoWayToReply(f"no response_url for user={request.user}")
    hook = AsyncWebhookClient(request.response_url, retry_handlers=retry_handlers())
    sent = await hook.send(text=fallback(message), blocks=render(message, locale),
                           response_type="in_channel" if public else "ephemeral",
                           replace_original=False, unfurl_links=False, unfurl_media=False)
    if sent.status_code != 200:
        log.warning("response_url answered %s for team=%s channel=%s user=%s", sent.status_code,
                    request.team, request.channel, request.user)


async def ephemeral(client: AsyncWebClient, request: Request, message: Message,
                    locale: str) -> None:
    """Show ``message`` to the member only, in the request's channel."""
    if not request.channel:
        await respond(request, message, locale)
        return
    try:
        await client.chat_postEphemeral(channel=request.channel, user=request.user,
                                        text=fallback(message), blocks=render(message, locale),
                                        parse="none", link_names=False)
    except SlackApiError as exc:
        if exc.response.get("error") not in _NOT_THERE:
            raise
        if not request.response_url:
            # A channel Slack does not know (or the app is not in), and no response URL: a
            # signed request naming an odd channel. Nobody can be told; one warning line.
            raise NoWayToReply(f"channel {request.channel} answered "
                               f"{exc.response.get('error')}, no response_url") from exc
        await respond(request, message, locale)


async def reply(client: AsyncWebClient, request: Request, message: Message, locale: str, *,
                public: bool = False) -> None:
    """Reply where the member acted: through the response URL if any, else in the channel."""
    if request.response_url:
        await respond(request, message, locale, public=public)
    elif public:
        await client.chat_postMessage(channel=request.channel, text=fallback(message),
                                      blocks=render(message, locale), parse="none",
                                      link_names=False, unfurl_links=False, unfurl_media=False)
    else:
        await ephemeral(client, request, message, locale)
