"""Who a member signing in to the web page with Slack is, as the bot sees them.

The same users.info rule as chat (bot/adapters/slack/people.py): the workspace's admins and
owners, and the configured SLACK_ADMIN_USER_IDS, are the quiz's admins. The bot token is that
workspace's own installation; a workspace without one has nothing to sign in to.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack.bot import api_url
from bot.adapters.slack.people import People
from bot.adapters.slack.tokens import Tokens
from bot.settings import Settings

log = logging.getLogger(__name__)

SlackPerson = Callable[[str, str, str], Awaitable[tuple[str, bool, str | None] | None]]


def slack_person(settings: Settings, tokens: Tokens) -> SlackPerson:
    """Return ``person(team, user, name)``: name, admin right and language, or None."""
    people = People(settings.slack_admins, ttl_s=0.0)  # a sign-in is rare: ask fresh each time
    base_url = api_url(settings)

    async def person(team: str, user: str, name: str) -> tuple[str, bool, str | None] | None:
        try:
            token = await tokens.bot_token(team)
        except LookupError:
            return None
        client = AsyncWebClient(token=token, base_url=base_url)
        try:
            answer = await client.users_info(user=user, include_locale=True)
        except SlackApiError as exc:
            log.warning("web sign-in: users.info refused team=%s: %s", team,
                        exc.response.get("error"))
            return None
        found = people.from_answer(user, answer.data if isinstance(answer.data, dict) else {},
                                   name)
        return found.name, found.is_admin, found.locale

    return person
