"""What each Slack request does: parse it, one core call through the chat front, render.

Every listener was acknowledged before any of this runs (listeners.py registers an ``ack``
that returns at once and these as bolt's lazy listeners), because Slack shows an error after
three seconds and grading a code answer can take longer. A payload whose ids are not Slack's is
dropped at the boundary with a log line; anything unexpected is logged with its ids and
answered with an apology, and the app carries on with the next request.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.chat.front import ChatFront
from bot.adapters.slack import replies, views
from bot.adapters.slack.packs import SLACK_FILE_ORIGINS, SlackPacks
from bot.adapters.slack.people import People
from bot.adapters.slack.requests import (
    BadRequest,
    Request,
    action_id_of,
    from_action,
    from_command,
    from_event,
    from_view,
    is_slack_id,
    mentioned_user,
    picked_channel,
    view_ref,
)
from bot.core.desk import Desk, Reply
from bot.core.desk.catalog import REGISTRY
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Message, Tone
from bot.core.kernel.models import Identity

log = logging.getLogger(__name__)

PLATFORM = "slack"
# Where Slack's response URLs point (https only); a deployment's SLACK_API_URL host is added.
RESPONSE_HOSTS = frozenset({"hooks.slack.com", "hooks.slack-gov.com"})
# Slack's command names, and the core's command each one is: from the registry.
COMMANDS = {f"/{c.name(PLATFORM)}": c.key for c in REGISTRY.on(PLATFORM)}


def _parsed(parse: Callable[[dict[str, Any]], Any], body: dict[str, Any]) -> Any:
    try:
        return parse(body)
    except BadRequest as exc:
        log.warning("slack request dropped at the boundary: %s", exc)
        return None


class Handlers:
    """The app's answers to slash commands, clicks, modal submissions and the home tab."""

    def __init__(self, front: ChatFront, people: People, *,
                 response_hosts: frozenset[str] = RESPONSE_HOSTS,
                 file_origins: frozenset[tuple[str, str]] = SLACK_FILE_ORIGINS) -> None:
        self.front = front
        self.desk = front.desk
        self.people = people
        self.response_hosts = response_hosts
        self.packs = SlackPacks(front, file_origins)

    def _parsed(self, parse: Callable[[dict[str, Any]], Any], body: dict[str, Any]) -> Any:
        parsed = _parsed(parse, body)
        if isinstance(parsed, Request):
            return self._own(parsed)
        if isinstance(parsed, tuple) and parsed and isinstance(parsed[0], Request):
            return (self._own(parsed[0]), *parsed[1:])
        return parsed

    def _own(self, request: Request) -> Request:
        # A response URL is where the app will POST: only Slack's own hooks (or the Web API's
        # host, a proxy or a test's fake), never an address a signed request makes up.
        if not request.response_url:
            return request
        url = urlsplit(request.response_url)
        if url.netloc in self.response_hosts and (
                url.scheme == "https" or url.netloc not in RESPONSE_HOSTS):
            return request
        log.warning("slack response_url to %r ignored team=%s user=%s", url.netloc[:80],
                    request.team, request.user)
        return replace(request, response_url="")

    async def identity(self, client: AsyncWebClient, request: Request,
                       user: str | None = None) -> Identity:
        """Return who made the request (or ``user``): name, admin rights, language (cached)."""
        person = await self.people.person(client, request.team, user or request.user,
                                          request.user_name if user is None else user)
        return Identity(platform=PLATFORM, workspace=request.team, channel=request.channel,
                        user=person.user_id, display_name=person.name, locale=person.locale,
                        is_admin=person.is_admin if user is None else False,
                        channel_name=request.channel_name)

    async def _guarded(self, client: AsyncWebClient, request: Request, what: str,
                       work: Callable[[Identity], Awaitable[None]]) -> None:
        who = await self.identity(client, request)

        async def apologise(message: Message) -> None:
            await replies.reply(client, request, message, who.locale or "en")

        await self.front.guarded(who, what, lambda: work(who), apologise, request.round_id)

    async def show(self, client: AsyncWebClient, request: Request, reply: Reply, *,
                   beside_post: bool = False) -> None:
        """Render the core's reply: a modal, a card for the channel, or a private message.

        ``beside_post``: feedback on the daily post, shown with chat.postEphemeral beside it.
        """
        if reply.form is not None:
            origin = views.Origin(request.channel, request.channel_name, request.response_url)
            await client.views_open(trigger_id=request.trigger_id,
                                    view=views.answer_modal(reply.form, origin, reply.locale))
        elif reply.message is None:
            return
        elif reply.public:
            await replies.reply(client, request, reply.message, reply.locale, public=True)
        elif beside_post:
            await replies.ephemeral(client, request, reply.message, reply.locale)
        else:
            message = reply.message
            if message.image_png and await self._image_by_dm(client, request, message):
                note = t(reply.locale, "stats.chart_dm")
                message = replace(message, footer=" · ".join(n for n in (message.footer, note)
                                                              if n))
            await replies.reply(client, request, message, reply.locale)

    async def _image_by_dm(self, client: AsyncWebClient, request: Request,
                           message: Message) -> bool:
        """Upload a private reply's chart to the member's direct messages with the app.

        A private reply (ephemeral, response URL) cannot carry a file on Slack; the IM is the
        one place only the member sees. The text twin goes out either way.
        """
        try:
            opened = await client.conversations_open(users=request.user)
            im = str((opened.get("channel") or {}).get("id") or "")
            if not im.startswith("D"):  # only ever a direct message
                return False
            await client.files_upload_v2(
                channel=im, file=message.image_png, filename=message.image_name or "chart.png",
                title=message.title or "chart",
                alt_txt=(message.image_alt or message.title)[:1000] or "chart")
        except SlackApiError as exc:
            log.warning("chart not sent by DM team=%s user=%s: %s", request.team, request.user,
                        exc.response.get("error"))
            return False
        return True

    # ------------------------------------------------------------ slash commands
    async def on_command(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Handle one of our slash commands (bolt runs this after the ack)."""
        request = self._parsed(from_command, body)
        name = COMMANDS.get(str(body.get("command") or ""))
        if request is None or name is None:
            return
        text = str(body.get("text") or "")
        refusal = Desk.command_too_long(text, "en")
        if refusal is not None:
            # Refused before anything is looked up: a 200 KB paste costs Slack no users.info.
            await self.show(client, request, refusal)
            return

        async def work(who: Identity) -> None:
            if name == "settings":
                await self._open_settings(client, request, who)
                return
            if name == "pack":
                await self.packs.command(client, request, who, text)
                return
            whom = None
            argument = text
            if name == "stats":
                # /quiz-stats team is the team's view; any other text names a member.
                argument = "team" if text.strip().lower() == "team" else ""
            if name == "stats" and text.strip() and not argument:
                other = mentioned_user(text[:200])
                if other is None:
                    locale = who.locale or "en"
                    warning = Message(body=t(locale, "stats.bad_member"), tone=Tone.WARNING)
                    await replies.reply(client, request, warning, locale)
                    return
                whom = await self.identity(client, request, other)
            reply = await self.front.command(who, name, argument, whom)
            await self.show(client, request, reply)

        await self._guarded(client, request, f"/{name}", work)

    # ------------------------------------------------------------ settings
    async def _open_settings(self, client: AsyncWebClient, request: Request,
                             who: Identity) -> None:
        view = await self.front.settings_view(who)
        if not view.may_change:
            # Looking is for everyone; changing is for admins, who get the form.
            if view.refusal is not None:
                await replies.reply(client, request, view.refusal, view.locale)
            return
        origin = views.Origin(request.channel, request.channel_name, request.response_url)
        await client.views_open(trigger_id=request.trigger_id,
                                view=views.settings_modal(request.channel, view.channel, origin,
                                                          view.locale))

    async def on_settings_channel(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Redraw the settings modal for the channel the admin just picked."""
        parsed = self._parsed(lambda b: (*from_view(b), picked_channel(b), view_ref(b)), body)
        if parsed is None:
            return
        request, origin, picked, (view_id, view_hash) = parsed

        async def work(who: Identity) -> None:
            found = await self.front.settings_view(who, picked)
            if not found.may_change:
                return
            await client.views_update(view_id=view_id, hash=view_hash,
                                      view=views.settings_modal(picked, found.channel, origin,
                                                                found.locale))

        await self._guarded(client, request, "settings channel", work)

    async def on_settings(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Apply a submitted settings modal (admins only, checked again in the core)."""
        parsed = self._parsed(from_view, body)
        if parsed is None:
            return
        request, _ = parsed
        picked, changes = views.settings_changes(body.get("view") or {})
        target = picked or request.channel

        async def work(who: Identity) -> None:
            if changes and not (is_slack_id(target) and await self._may_post_in(client, target)):
                # Checked with Slack before anything is stored: a channel that does not
                # exist, or one the app is not in, is never saved nor posted to.
                log.warning("settings for an unusable channel refused team=%s user=%s",
                            request.team, request.user)
                locale = who.locale or "en"
                warning = Message(body=t(locale, "settings.bad_channel"), tone=Tone.WARNING)
                await replies.ephemeral(client, request, warning, locale)
                return
            reply = await self.front.settings(who, target, "", changes)
            if reply.message is not None:
                await replies.ephemeral(client, request, reply.message, reply.locale)

        await self._guarded(client, request, "settings", work)

    async def _may_post_in(self, client: AsyncWebClient, channel: str) -> bool:
        """Say whether ``channel`` exists in this workspace and the app is a member of it."""
        try:
            answer = await client.conversations_info(channel=channel)
        except SlackApiError as exc:
            log.warning("settings channel %s refused: %s", channel,
                        exc.response.get("error") if exc.response else exc)
            return False
        found = answer.get("channel")
        return isinstance(found, dict) and found.get("id") == channel \
            and found.get("is_member") is True and not found.get("is_archived")

    def timezone_options(self, typed: str) -> list[dict[str, Any]]:
        """Return the time zones matching what the admin typed (start of a part first)."""
        return [views.option(z, z) for z in self.desk.zone_choices(typed, views.MAX_OPTIONS)]

    def topic_options(self, typed: str, team: str = "") -> list[dict[str, Any]]:
        """Return the topics of the admin's workspace (``team``) matching what they typed."""
        who = Identity(platform=PLATFORM, workspace=team, channel="", user="",
                       display_name="") if team else None
        return [views.option(tp, tp)
                for tp in self.desk.topic_choices(typed, views.MAX_OPTIONS, who)]

    # ------------------------------------------------------------ buttons and answer modals
    async def on_action(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Handle a click on one of our buttons."""
        request = self._parsed(from_action, body)
        if request is None:
            return
        action_id = action_id_of(body)

        async def work(who: Identity) -> None:
            reply = await self.front.click(who, action_id)
            await self.show(client, request, reply, beside_post=action_id.startswith("tq:answer:"))

        await self._guarded(client, request, "button", work)

    async def on_submit(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Handle a submitted answer modal, routed by its callback id (restart-proof)."""
        parsed = self._parsed(from_view, body)
        if parsed is None:
            return
        request, _ = parsed
        view: dict[str, Any] = body["view"] if isinstance(body.get("view"), dict) else {}
        callback_id = str(view.get("callback_id") or "")[:255]  # parse_submit decides
        text = views.submitted_text(view)
        choice = views.submitted_choice(view)

        async def work(who: Identity) -> None:
            reply = await self.front.submit(who, callback_id, text, choice)
            await self.show(client, request, reply, beside_post=True)

        await self._guarded(client, request, "modal", work)

    async def on_pack_submit(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Handle the /quiz-pack add modal: fetch the chosen file, check it, report privately."""
        parsed = self._parsed(from_view, body)
        if parsed is None:
            return
        request, _ = parsed
        view: dict[str, Any] = body["view"] if isinstance(body.get("view"), dict) else {}

        async def work(who: Identity) -> None:
            await self.packs.submitted(client, request, who, view)

        await self._guarded(client, request, "pack modal", work)

    # ------------------------------------------------------------ the home tab
    async def on_home(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Publish the member's home tab: their stats in each quiz channel, and the commands."""
        event = body.get("event") or {}
        if not isinstance(event, dict) or event.get("tab") != "home":
            return
        request = self._parsed(from_event, body)
        if request is None:
            return

        async def work(who: Identity) -> None:
            home = await self.front.home(who)
            await client.views_publish(user_id=request.user,
                                       view=views.home_view(home.sections, home.locale,
                                                            home.reviews))

        await self._guarded(client, request, "home", work)
