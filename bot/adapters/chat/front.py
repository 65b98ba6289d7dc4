"""The chat front both platforms share: one core call per request, off the loop, and the guard.

Discord and Slack each parse their payload into an Identity plus an action id, a form id and
its text, or a command; this front makes the one core call on the runtime's worker threads
(the core blocks on the database and the executor), asks for a coalesced redraw of the round's
post when the tally changed, and returns the core's Reply for the platform to render. Anything
unexpected is logged with its ids and becomes an apology that needs no database. Each member's
code answers and commands are rate limited here (limits.py), and a process already running as
many core calls as it takes answers "busy, try again" instead of queueing without limit.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace

from bot.adapters.chat.coalesce import EditCoalescer
from bot.adapters.chat.limits import Busy, TokenBuckets
from bot.adapters.chat.metrics import correct
from bot.adapters.chat.runtime import ChatRuntime
from bot.core.desk import Home, PackReply, Reply, SettingsView
from bot.core.kernel.i18n import speaking_to, t
from bot.core.kernel.messages import Message, Tone, parse_action, parse_submit
from bot.core.kernel.models import Identity

log = logging.getLogger(__name__)


class NowhereToReply(RuntimeError):
    """A request that names no place the app can answer in (no channel, no response URL).

    Slack sends such requests only when forged or very odd (a signed settings submission
    whose modal carries neither): the work is done, the member cannot be told, and that is
    one warning line, not an error with a traceback (nor a second one for the apology).
    """


class ChatFront:
    """Serve one platform's parsed requests through the core's desk."""

    def __init__(self, runtime: ChatRuntime, coalescer: EditCoalescer | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.runtime = runtime
        self.desk = runtime.desk
        self.coalescer = coalescer
        limits = runtime.limits
        # Per member and per process (see limits.py): code answers cost a sandbox run each.
        self.code_limit = TokenBuckets(limits.code_per_minute, 60.0, size=limits.members,
                                       clock=clock)
        self.command_limit = TokenBuckets(limits.commands_per_10s, 10.0, size=limits.members,
                                          clock=clock)
        # The language each channel's last reply spoke: a refusal by a rate limit speaks it
        # too, without asking the core (a flood must cost nothing). Bounded as the buckets.
        self._locales: dict[tuple[str, str, str], str] = {}
        self._locales_size = max(limits.members, 1)

    @staticmethod
    def _member(who: Identity) -> tuple[str, str, str]:
        return who.platform, who.workspace, who.user

    def _limited(self, who: Identity, buckets: TokenBuckets, key: str) -> Reply | None:
        wait = buckets.take(self._member(who))
        if not wait:
            return None
        log.info("%s rate limited (%s) team=%s user=%s for %d s", who.platform, key,
                 who.workspace, who.user, wait)
        self.runtime.metrics.rate_limited(key.removeprefix("limit."))  # "code", "commands"
        locale = self.locale(who)
        return Reply(locale, Message(body=t(locale, key, seconds=wait), tone=Tone.WARNING))

    @staticmethod
    def _channel(who: Identity) -> tuple[str, str, str]:
        return who.platform, who.workspace, who.channel

    def locale(self, who: Identity) -> str:
        """Return the language to answer ``who`` in without the core (a refusal, an apology).

        The channel's, as its last reply spoke; else the member's own.
        """
        return self._locales.get(self._channel(who)) or who.locale or "en"

    def _spoke(self, who: Identity, reply: Reply) -> Reply:
        """Remember the language a reply in ``who``'s channel spoke; return the reply."""
        key = self._channel(who)
        if key not in self._locales and len(self._locales) >= self._locales_size:
            self._locales.pop(next(iter(self._locales)))  # the longest known goes first
        self._locales[key] = reply.locale
        return reply

    def _redraw(self, reply: Reply) -> Reply:
        if reply.redraw_round is not None and self.coalescer is not None:
            self.coalescer.touch(reply.redraw_round)
        return reply

    def _answered(self, who: Identity, mode: str, started: float, reply: Reply) -> Reply:
        """Count an answer to a round: its time at the core, and whether it was recorded."""
        metrics = self.runtime.metrics
        metrics.grading(mode, time.perf_counter() - started)
        # A recorded answer changes the round's tally; a refused one (closed, no tries) does not.
        if reply.redraw_round is not None:
            metrics.answer(mode, correct(reply.message))
            log.debug("answer recorded", extra=_ids(who, round_id=reply.redraw_round, what=mode))
        return self._redraw(reply)

    async def click(self, who: Identity, action_id: str) -> Reply:
        """Handle a click on one of our buttons."""
        started = time.perf_counter()
        reply = self._spoke(who, await self.runtime.call(self.desk.click, who, action_id))
        parsed = parse_action(action_id)
        if parsed is not None and parsed[0] == "answer":
            return self._answered(who, "button", started, reply)
        return self._redraw(reply)

    async def submit(self, who: Identity, submit_id: str, text: str,
                     choice: str = "") -> Reply:
        """Handle a submitted form (``choice``: the value picked in its list, if any).

        Code answers are held to the member's rate.
        """
        parsed = parse_submit(submit_id)
        if parsed is not None and parsed[2] == "code":
            limited = self._limited(who, self.code_limit, "limit.code")
            if limited is not None:
                return limited
        started = time.perf_counter()
        reply = self._spoke(who, await self.runtime.call(self.desk.submit, who, submit_id, text,
                                                         choice))
        if parsed is not None and parsed[0] == "submit":
            return self._answered(who, parsed[2], started, reply)
        return self._redraw(reply)

    async def command(self, who: Identity, name: str, argument: str = "",
                      whom: Identity | None = None) -> Reply:
        """Handle a command (/explain, /quiz, /stats, ...), within the member's rate."""
        limited = self._limited(who, self.command_limit, "limit.commands")
        if limited is not None:
            return limited
        return self._spoke(who, await self.runtime.call(self.desk.command, who, name, argument,
                                                        whom))

    async def settings(self, who: Identity, target: str, target_name: str,
                       changes: Mapping[str, str]) -> Reply:
        """Show or change a channel's settings (within the member's rate)."""
        limited = self._limited(who, self.command_limit, "limit.commands")
        if limited is not None:
            return limited
        return self._spoke(who, await self.runtime.call(self.desk.settings, who, target,
                                                        target_name, changes))

    async def settings_view(self, who: Identity, target: str = "") -> SettingsView:
        """Return what the settings form starts from, or the member's refusal."""
        return await self.runtime.call(self.desk.settings_view, who, target)

    async def home(self, who: Identity) -> Home:
        """Return the member's overview of their workspace."""
        return await self.runtime.call(self.desk.home, who)

    async def pack_refusal(self, who: Identity, filename: str | None = None,
                           size: int = 0) -> Reply | None:
        """Refuse a pack upload before its bytes are fetched (within the member's rate)."""
        limited = self._limited(who, self.command_limit, "limit.commands")
        if limited is not None:
            return limited
        return await self.runtime.call(self.desk.pack_upload_refusal, who, filename, size)

    async def pack_add(self, who: Identity, filename: str, data: bytes) -> Reply:
        """Validate a pack file and store it (slow: its code runs in a sandbox, off the loop)."""
        return await self.runtime.call(self.desk.pack_add, who, filename, data)

    async def pack_command(self, who: Identity, argument: str) -> PackReply:
        """Handle /quiz-pack list, remove ID, export ID (within the member's rate)."""
        limited = self._limited(who, self.command_limit, "limit.commands")
        if limited is not None:
            return PackReply(limited)
        return await self.runtime.call(self.desk.pack_command, who, argument)

    async def guarded(self, who: Identity, what: str, work: Callable[[], Awaitable[None]],
                      apologise: Callable[[Message], Awaitable[None]],
                      round_id: int | None = None) -> None:
        """Run ``work``; on an unexpected error log the ids and apologise to the member.

        Every sentence made for the request names commands as ``who``'s platform calls them.
        """
        with speaking_to(who.platform):
            await self._guarded(who, what, work, apologise, round_id)

    async def _guarded(self, who: Identity, what: str, work: Callable[[], Awaitable[None]],
                       apologise: Callable[[Message], Awaitable[None]],
                       round_id: int | None) -> None:
        try:
            await work()
        except NowhereToReply as exc:
            log.warning("%s %s: nowhere to reply team=%s user=%s: %s", who.platform, what,
                        who.workspace, who.user, exc, extra=_ids(who, round_id=round_id,
                                                                 what=what))
        except Busy:
            # Backpressure, not a fault: nothing ran, so the member may simply try again.
            log.warning("%s %s refused: busy team=%s user=%s round=%s", who.platform, what,
                        who.workspace, who.user, round_id)
            locale = self.locale(who)
            with contextlib.suppress(Exception):
                await apologise(Message(body=t(locale, "busy"), tone=Tone.WARNING))
        except Exception:
            self.runtime.metrics.error(what)
            ids = _ids(who, round_id=round_id, what=what)
            log.exception("%s %s failed team=%s channel=%s user=%s round=%s", who.platform,
                          what, who.workspace, who.channel, who.user, round_id, extra=ids)
            try:
                await apologise(self.desk.apology(replace(who, locale=self.locale(who))))
            except NowhereToReply:
                log.warning("could not apologise to %s user=%s: nowhere to reply",
                            who.platform, who.user, extra=ids)
            except Exception:
                self.runtime.metrics.error("apology")
                log.warning("could not apologise to %s user=%s channel=%s", who.platform,
                            who.user, who.channel, exc_info=True, extra=ids)


def _ids(who: Identity, *, round_id: int | None = None, what: str = "") -> dict[str, object]:
    """Return the ids a log line carries as fields (JSON logs show each one)."""
    return {"platform": who.platform, "workspace": who.workspace, "channel": who.channel,
            "user": who.user, "round": round_id, "what": what}
