"""Every listener of the Slack app, registered in one place: ``register(app, handlers)``.

Each listener is an ``ack`` that returns at once plus the real work as bolt's lazy listener,
which bolt starts after the acknowledgement has gone back to Slack: no grading, database call
or Web API call ever stands between a request and its 200. Options for the settings modal's
menus are the exception that proves the rule: their answer *is* the acknowledgement, and it is
computed from memory.

Slack redelivers an event it thinks was lost (``X-Slack-Retry-Num``). Because everything is
acknowledged before any work starts, a retry means our acknowledgement was late or lost on the
way, not that the work did not happen: ``Retries`` answers those with 200 and drops them, so a
retried answer is never recorded twice and a retried share never posts twice. Only a retry of
a delivery that failed on our side before reaching a listener, and that this process never
saw, is let through; the database's unique keys catch a duplicate that still slips past.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.adapters.slack import views
from bot.adapters.slack.handlers import COMMANDS, Handlers
from bot.adapters.slack.manifest import EVENTS
from bot.adapters.slack.packs import PACK_CALLBACK
from bot.core.kernel.messages import ACTION_KINDS, SUBMIT_KINDS

log = logging.getLogger(__name__)

ACTIONS = re.compile(r"^tq:(?:" + "|".join(ACTION_KINDS) + r"):")
SUBMITS = re.compile(r"^tq:(?:" + "|".join(SUBMIT_KINDS) + r"):")
# Retry reasons that say our first answer was too late or lost, not that it never arrived.
_LATE = ("http_timeout", "timeout", "")
SEEN_DELIVERIES = 10_000
TYPED_CHARS = 100


async def ack_now(ack: AsyncAck) -> None:
    """Acknowledge the request; the work follows in a lazy listener."""
    await ack()


def delivery_key(body: dict[str, Any]) -> str:
    """Return what identifies one delivery across Slack's retries of it."""
    view = body.get("view") if isinstance(body.get("view"), dict) else {}
    return str(body.get("event_id") or body.get("trigger_id")
               or f"{(view or {}).get('id', '')}:{(view or {}).get('hash', '')}")


class Retries:
    """A global middleware that answers Slack's retries without doing the work again."""

    def __init__(self, remember: int = SEEN_DELIVERIES) -> None:
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._remember = remember
        self.dropped = 0

    async def middleware(self, req: AsyncBoltRequest, body: dict[str, Any],
                         next: Callable[[], Awaitable[None]]) -> BoltResponse | None:
        """Drop a retried delivery; remember every delivery's key."""
        key = delivery_key(body)
        seen = key in self._seen
        if key and not seen:
            self._seen[key] = None
            while len(self._seen) > self._remember:
                self._seen.popitem(last=False)
        retry = req.headers.get("x-slack-retry-num")
        if retry:
            reason = (req.headers.get("x-slack-retry-reason") or [""])[0]
            if seen or reason in _LATE:
                self.dropped += 1
                log.info("slack retry %s dropped (reason %s) key=%s team=%s", retry[0],
                         reason or "none", key, req.context.team_id)
                return BoltResponse(status=200, body="")
        await next()
        return None


def _typed(payload: dict[str, Any]) -> str:
    # What an admin typed into a menu's search box: Slack sends a short string.
    value = payload.get("value")
    return value[:TYPED_CHARS] if isinstance(value, str) else ""


def _team(payload: dict[str, Any]) -> str:
    # The workspace asking (its packs' topics only): a short Slack id, or nothing.
    team = payload.get("team")
    found = team.get("id") if isinstance(team, dict) else None
    return found if isinstance(found, str) and len(found) <= 32 and found.isalnum() else ""


def _id_of(owner: Any) -> Any:
    # An id, or an object carrying one: whatever a failed request claimed, for the log line.
    return owner.get("id") if isinstance(owner, dict) else owner


def register(app: AsyncApp, handlers: Handlers, retries: Retries | None = None) -> Retries:
    """Add every middleware and listener of the app to ``app``."""
    retries = retries or Retries()
    app.middleware(retries.middleware)
    for name in COMMANDS:
        app.command(name)(ack=ack_now, lazy=[handlers.on_command])
    app.action(ACTIONS)(ack=ack_now, lazy=[handlers.on_action])
    app.action(views.SETTINGS_CHANNEL_ACTION)(ack=ack_now, lazy=[handlers.on_settings_channel])
    app.view(SUBMITS)(ack=ack_now, lazy=[handlers.on_submit])
    app.view(views.SETTINGS_CALLBACK)(ack=ack_now, lazy=[handlers.on_settings])
    # A pack's check can take a minute: the modal closes at once, the report follows.
    app.view(PACK_CALLBACK)(ack=ack_now, lazy=[handlers.on_pack_submit])

    @app.options(views.TZ_ACTION)
    async def time_zones(ack: AsyncAck, payload: dict[str, Any]) -> None:
        await ack(options=handlers.timezone_options(_typed(payload)))

    @app.options(views.TOPICS_ACTION)
    async def topics(ack: AsyncAck, payload: dict[str, Any]) -> None:
        await ack(options=handlers.topic_options(_typed(payload), team=_team(payload)))

    for event in EVENTS:
        app.event(event)(ack=ack_now, lazy=[handlers.on_home])

    @app.error
    async def on_error(error: Exception, body: dict[str, Any]) -> None:
        # Errors bolt caught outside our guarded handlers (a middleware, an ack): keep the ids.
        user = body.get("user_id") or _id_of(body.get("user"))
        team = body.get("team_id") or _id_of(body.get("team"))
        log.error("slack request failed team=%s user=%s type=%s: %r", team, user,
                  body.get("type") or body.get("command"), error, exc_info=error)

    return retries
