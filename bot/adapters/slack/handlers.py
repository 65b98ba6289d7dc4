"""What each Slack request does: parse it, make one core call off the loop, reply.

Every listener was acknowledged before any of this runs (listeners.py registers an ``ack``
that returns at once and these as bolt's lazy listeners), because Slack shows an error after
three seconds and grading a code answer can take longer. The core call runs on the runtime's
worker threads; the reply is private unless the member shares a card. A member's mistake is a
short private line; anything unexpected is logged with its ids and answered with an apology,
and the app carries on with the next request.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack import replies, views
from bot.adapters.slack.people import People, Person
from bot.adapters.slack.requests import (
    Request,
    from_action,
    from_command,
    from_event,
    from_view,
    mentioned_user,
)
from bot.adapters.slack.texts import say
from bot.coalesce import EditCoalescer
from bot.core.app import Quiz
from bot.core.channel_setup import matching_zones
from bot.core.i18n import t
from bot.core.messages import Form, Message, Tone, parse_action
from bot.core.models import Actor, AnswerMode, ChannelDefaults, ChannelSettings, Member
from bot.core.service import AnswerOutcome
from bot.runtime import ChatRuntime

log = logging.getLogger(__name__)

PLATFORM = "slack"
COMMANDS = ("/explain", "/quiz", "/leaderboard", "/quiz-stats", "/quiz-settings")
COMMAND_CHARS = 500  # a topic or a member: anything longer is a paste gone wrong
ANSWER_CHARS = {"code": views.INPUT_CHARS, "text": 200}


class Handlers:
    """The app's answers to slash commands, clicks, modal submissions and the home tab."""

    def __init__(self, runtime: ChatRuntime, coalescer: EditCoalescer, people: People) -> None:
        self.runtime = runtime
        self.coalescer = coalescer
        self.people = people

    @property
    def quiz(self) -> Quiz:
        """Return the core."""
        return self.runtime.quiz

    # ------------------------------------------------------------ helpers (worker threads)

    def _member(self, person: Person) -> Member:
        return self.quiz.rounds.member(PLATFORM, person.user_id, person.name)

    def _channel(self, channel_id: str) -> ChannelSettings | None:
        return self.quiz.rounds.find_channel(PLATFORM, channel_id) if channel_id else None

    def _actor(self, person: Person, channel: ChannelSettings | None) -> Actor:
        # Private replies speak the channel's language; outside a quiz channel, the member's.
        locale = channel.locale if channel is not None else person.locale or "en"
        return Actor(self._member(person), is_admin=person.is_admin, locale=locale)

    def _locale(self, channel_id: str, person: Person | None = None) -> str:
        channel = self._channel(channel_id)
        if channel is not None:
            return channel.locale
        return (person.locale if person is not None else None) or "en"

    # ------------------------------------------------------------ the loop side

    async def person(self, client: AsyncWebClient, request: Request) -> Person:
        """Return who made the request (users.info, cached)."""
        return await self.people.person(client, request.team, request.user, request.user_name)

    async def guarded(self, client: AsyncWebClient, request: Request, what: str,
                      work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work``; on an unexpected error log the ids and apologise to the member."""
        try:
            await work()
        except Exception:
            log.exception("slack %s failed team=%s channel=%s user=%s round=%s", what,
                          request.team, request.channel, request.user, request.round_id)
            await self.apologise(client, request)

    async def apologise(self, client: AsyncWebClient, request: Request) -> None:
        """Tell the member something went wrong on our side, if any way to them still works."""
        try:
            locale = await self.runtime.call(self._locale, request.channel)
            message = Message(body=t(locale, "error.internal"), tone=Tone.ERROR)
            await replies.reply(client, request, message, locale)
        except Exception:
            log.warning("could not apologise to team=%s channel=%s user=%s", request.team,
                        request.channel, request.user, exc_info=True)

    async def _say(self, client: AsyncWebClient, request: Request, text: str,
                   locale: str) -> None:
        await replies.reply(client, request, Message(body=text, tone=Tone.WARNING), locale)

    # ------------------------------------------------------------ slash commands

    async def on_command(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Handle one of our slash commands (bolt runs this after the ack)."""
        request = from_command(body)
        name = str(body.get("command") or "")
        text = str(body.get("text") or "")
        await self.guarded(client, request, name, lambda: self._command(client, request, name,
                                                                         text))

    async def _command(self, client: AsyncWebClient, request: Request, name: str,
                       text: str) -> None:
        if len(text) > COMMAND_CHARS:
            locale = await self.runtime.call(self._locale, request.channel)
            await self._say(client, request, say(locale, "command.too_long", size=len(text),
                                                 limit=COMMAND_CHARS), locale)
            return
        text = text.strip()
        person = await self.person(client, request)
        if name == "/quiz-settings":
            await self._open_settings(client, request, person)
            return
        if name == "/quiz-stats":
            whom = person
            if text:
                other = mentioned_user(text)
                if other is None:
                    locale = await self.runtime.call(self._locale, request.channel, person)
                    await self._say(client, request, say(locale, "stats.bad_member"), locale)
                    return
                if other != person.user_id:
                    whom = await self.people.person(client, request.team, other, other)
            message, locale = await self.runtime.call(self._stats, request, person, whom)
        else:
            work = {"/explain": self._explain, "/quiz": self._practice_start,
                    "/leaderboard": self._board}[name]
            message, locale = await self.runtime.call(work, request, person, text)
        await replies.reply(client, request, message, locale)

    def _explain(self, request: Request, person: Person, topic: str) -> tuple[Message, str]:
        locale = self._locale(request.channel, person)
        return self.quiz.explain.explain(topic, locale), locale

    def _practice_start(self, request: Request, person: Person,
                        topic: str) -> tuple[Message, str]:
        actor = self._actor(person, self._channel(request.channel))
        locale = actor.locale or "en"
        return self.quiz.practice.start(actor.member, topic or None, locale), locale

    def _board(self, request: Request, person: Person, period: str) -> tuple[Message, str]:
        channel = self._channel(request.channel)
        if channel is None:
            locale = person.locale or "en"
            return Message(body=t(locale, "channel.no_quiz"), tone=Tone.WARNING), locale
        return self.quiz.board.leaderboard(channel, period or "week", channel.locale), \
            channel.locale

    def _stats(self, request: Request, person: Person, whom: Person) -> tuple[Message, str]:
        channel = self._channel(request.channel)
        if channel is None:
            locale = person.locale or "en"
            return Message(body=t(locale, "channel.no_quiz"), tone=Tone.WARNING), locale
        member = self._member(whom)
        return self.quiz.board.stats_message(channel, member, channel.locale), channel.locale

    # ------------------------------------------------------------ settings

    async def _open_settings(self, client: AsyncWebClient, request: Request,
                             person: Person) -> None:
        current, locale = await self.runtime.call(self._settings_for, request.channel, person)
        if not person.is_admin:
            # Looking is for everyone; changing is for admins, who get the form.
            shown = await self.runtime.call(self._describe, current, person, locale)
            await replies.reply(client, request, shown, locale)
            return
        origin = views.Origin(request.channel, request.channel_name, request.response_url)
        await client.views_open(trigger_id=request.trigger_id,
                                view=views.settings_modal(request.channel, current, origin,
                                                          locale))

    def _settings_for(self, channel_id: str,
                      person: Person) -> tuple[ChannelSettings | None, str]:
        channel = self._channel(channel_id)
        return channel, channel.locale if channel is not None else person.locale or "en"

    def _describe(self, channel: ChannelSettings | None, person: Person,
                  locale: str) -> Message:
        denied = t(locale, "settings.denied")
        if channel is None:
            return Message(body=denied, tone=Tone.WARNING)
        shown = self.quiz.setup.apply(channel, Actor(self._member(person), locale=locale), {})
        return Message(title=shown.title, body=denied, fields=shown.fields, tone=Tone.WARNING)

    async def on_settings_channel(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Redraw the settings modal for the channel the admin just picked."""
        request, origin = from_view(body)
        action = (body.get("actions") or [{}])[0]
        picked = str(action.get("selected_conversation") or "")
        view = body.get("view") or {}

        async def work() -> None:
            person = await self.person(client, request)
            current, locale = await self.runtime.call(self._settings_for, picked, person)
            await client.views_update(view_id=view.get("id"), hash=view.get("hash"),
                                      view=views.settings_modal(picked, current, origin, locale))

        await self.guarded(client, request, "settings channel", work)

    async def on_settings(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Apply a submitted settings modal (admins only, checked again here)."""
        request, _ = from_view(body)
        target, changes = views.settings_changes(body.get("view") or {})

        async def work() -> None:
            person = await self.person(client, request)
            message, locale = await self.runtime.call(self._apply_settings, request, person,
                                                      target or request.channel, changes)
            await replies.ephemeral(client, request, message, locale)

        await self.guarded(client, request, "settings", work)

    def _apply_settings(self, request: Request, person: Person, target: str,
                        changes: dict[str, str]) -> tuple[Message, str]:
        channel = self._channel(target)
        actor = self._actor(person, channel)
        locale = actor.locale or "en"
        if channel is None:
            if not actor.is_admin:
                return Message(body=t(locale, "settings.denied"), tone=Tone.WARNING), locale
            name = request.channel_name if target == request.channel else ""
            channel = self.quiz.rounds.channel(PLATFORM, target, request.team,
                                               ChannelDefaults(name=name, locale=locale))
        return self.quiz.setup.apply(channel, actor, changes), locale

    def timezone_options(self, typed: str) -> list[dict[str, Any]]:
        """Return the time zones matching what the admin typed (start of a part first)."""
        return [views.option(z, z) for z in matching_zones(typed, views.MAX_OPTIONS)]

    def topic_options(self, typed: str) -> list[dict[str, Any]]:
        """Return the topics matching what the admin typed."""
        needle = typed.strip().lower()
        topics = [tp for tp in self.quiz.practice.topics() if needle in tp]
        return [views.option(tp, tp) for tp in topics[: views.MAX_OPTIONS]]

    # ------------------------------------------------------------ buttons

    async def on_action(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Handle a click on one of our buttons."""
        request = from_action(body)
        action = (body.get("actions") or [{}])[0]
        parsed = parse_action(str(action.get("action_id") or ""))
        if parsed is None:
            return
        kind, target, key = parsed
        await self.guarded(client, request, f"button {kind}",
                           lambda: self._action(client, request, kind, target, key))

    async def _action(self, client: AsyncWebClient, request: Request, kind: str, target: str,
                      key: str) -> None:
        person = await self.person(client, request)
        if kind in ("form", "pform"):
            await self._open_form(client, request, person, kind, target)
        elif kind == "share":
            locale = await self.runtime.call(self._locale, request.channel, person)
            card = await self.runtime.call(self.quiz.explain.share, target, locale)
            if card is None:
                await self._say(client, request, t(locale, "explain.gone"), locale)
                return
            await replies.reply(client, request, card, locale, public=True)
        elif kind == "answer":
            outcome, locale = await self.runtime.call(self._answer_round, request, person,
                                                      int(target), key, AnswerMode.BUTTON)
            await self._answered(client, request, outcome, locale)
        elif kind == "practice":
            message, locale = await self.runtime.call(self._practice, request, person, target,
                                                      key, AnswerMode.BUTTON)
            await replies.reply(client, request, message, locale)

    def _answer_round(self, request: Request, person: Person, round_id: int, response: str,
                      mode: AnswerMode) -> tuple[AnswerOutcome, str]:
        actor = self._actor(person, self._channel(request.channel))
        return self.quiz.rounds.answer_round(round_id, actor, response, mode), actor.locale or "en"

    def _practice(self, request: Request, person: Person, item_id: str, response: str,
                  mode: AnswerMode) -> tuple[Message, str]:
        actor = self._actor(person, self._channel(request.channel))
        locale = actor.locale or "en"
        return self.quiz.practice.answer(actor.member, response, locale, mode,
                                         item_id=item_id), locale

    async def _answered(self, client: AsyncWebClient, request: Request, outcome: AnswerOutcome,
                        locale: str) -> None:
        # Feedback on the daily post is private: an ephemeral message beside the post.
        await replies.ephemeral(client, request, outcome.reply, locale)
        if outcome.tally is not None and outcome.round_id is not None:
            self.coalescer.touch(outcome.round_id)

    async def _open_form(self, client: AsyncWebClient, request: Request, person: Person,
                         kind: str, target: str) -> None:
        def form() -> tuple[Form | None, str]:
            actor = self._actor(person, self._channel(request.channel))
            locale = actor.locale or "en"
            if kind == "form":
                return self.quiz.rounds.answer_form(int(target), locale), locale
            return self.quiz.practice.answer_form(actor.member, target, locale), locale

        found, locale = await self.runtime.call(form)
        if found is None:
            key = "answer.closed" if kind == "form" else "practice.nothing_pending"
            await self._say(client, request, t(locale, key), locale)
            return
        origin = views.Origin(request.channel, request.channel_name, request.response_url)
        await client.views_open(trigger_id=request.trigger_id,
                                view=views.answer_modal(found, origin, locale))

    # ------------------------------------------------------------ answer modals

    async def on_submit(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Handle a submitted answer modal, routed by its callback id (restart-proof)."""
        request, _ = from_view(body)
        view = body.get("view") or {}
        parsed = views.parse_submit(str(view.get("callback_id") or ""))
        if parsed is None:
            return
        text = views.submitted_text(view)
        await self.guarded(client, request, "modal",
                           lambda: self._submit(client, request, parsed, text))

    async def _submit(self, client: AsyncWebClient, request: Request,
                      parsed: tuple[str, str, str], text: str) -> None:
        kind, target, mode_name = parsed
        person = await self.person(client, request)
        limit = ANSWER_CHARS[mode_name]
        if len(text) > limit:
            locale = await self.runtime.call(self._locale, request.channel, person)
            await self._say(client, request, t(locale, "form.too_long", size=len(text),
                                               limit=limit), locale)
            return
        mode = AnswerMode.CODE if mode_name == "code" else AnswerMode.TEXT
        if kind == "submit":
            outcome, locale = await self.runtime.call(self._answer_round, request, person,
                                                      int(target), text, mode)
            await self._answered(client, request, outcome, locale)
        else:
            message, locale = await self.runtime.call(self._practice, request, person, target,
                                                      text, mode)
            await replies.ephemeral(client, request, message, locale)

    # ------------------------------------------------------------ the home tab

    async def on_home(self, body: dict[str, Any], client: AsyncWebClient) -> None:
        """Publish the member's home tab: their stats in each quiz channel, and the commands."""
        event = body.get("event") or {}
        if event.get("tab") != "home":
            return
        request = from_event(body)

        async def work() -> None:
            person = await self.person(client, request)
            sections, locale = await self.runtime.call(self._home, request.team, person)
            await client.views_publish(user_id=request.user,
                                       view=views.home_view(sections, locale))

        await self.guarded(client, request, "home", work)

    def _home(self, team: str, person: Person) -> tuple[list[tuple[str, Message]], str]:
        channels = self.quiz.rounds.workspace_channels(PLATFORM, team)
        locale = person.locale or (channels[0].locale if channels else "en")
        member = self._member(person)
        return [(c.external_id, self.quiz.board.stats_message(c, member, locale))
                for c in channels], locale
