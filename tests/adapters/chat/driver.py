"""The platform driver: what a scenario may do on a chat platform, and what a member saw.

A scenario written against :class:`ChatDriver` runs on Discord and on Slack alike. It acts as
members would (post today's round, click, open and submit the answer form, run a command,
change the settings) and reads what they saw (the private reply, the channel's post and its
tally, the reveal in the thread) as neutral :class:`Reply`, :class:`Post` and :class:`Form`
values. Each platform's protocol (interactions and callbacks, signed requests and response
URLs, embeds and blocks) stays in its fake and its driver.

:class:`Harness` holds what both drivers share: the run of a scenario in its own event loop,
the fake clock, the switchable executor, and the few reads and triggers of the core and the
scheduler that no member can cause (the daily post, the close, a late delivery). Those touch
the core's objects; they live here, in one place, so that a change of the core's shape is
answered once.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import pytest

from bot.core.kernel.errors import GradingUnavailable
from bot.core.kernel.models import ChannelUpdate
from bot.scheduling import post_job_id
from bot.settings import Settings
from content.loader import load_bank
from executors.engine import LocalExecutor
from executors.zygote.supervisor import Zygote
from tests.fakes import FakeClock
from tests.support.core import BANK, ONLY

SCENARIO_TIMEOUT_S = 120
REPLY_TIMEOUT_S = 20
TALLY_DELAY_S = 0.4
# 09:00 on a Monday in UTC, a channel's default post time.
START = dt.datetime(2026, 3, 2, 9, 0, 30, tzinfo=dt.UTC)


def _ending(ids: tuple[str, ...], prefix: str, end: str = "") -> str:
    found = [i for i in ids if i.startswith(prefix) and i.endswith(end)]
    assert found, f"no {prefix}…{end} button among {list(ids)}"
    return found[0]


@dataclass(frozen=True)
class Message:
    """Something a member sees: its text flattened, its buttons, and the platform's own value."""

    text: str
    buttons: tuple[str, ...] = ()  # the action id of each button, in order
    labels: tuple[str, ...] = ()  # each button's label, in order
    can_ping: bool = False  # whether the platform would turn anything in it into a ping
    raw: Any = field(default=None, compare=False, repr=False)

    def choice(self, key: str) -> str:
        """Return the action of the answer button of the option stored as ``key``."""
        return _ending(self.buttons, "tq:answer:", f":{key}")

    def letter(self, key: str) -> str:
        """Return the letter a member sees on the button of the option stored as ``key``.

        Options are shown in an order drawn per round: the button's action names the stored
        option, its label the letter the post shows.
        """
        return self.labels[self.buttons.index(self.choice(key))]

    @property
    def form_button(self) -> str:
        """Return the action of the button that opens the answer form."""
        return next(b for b in self.buttons if b.startswith(("tq:form:", "tq:pform:")))

    def button(self, prefix: str) -> str:
        """Return the first button whose action starts with ``prefix``."""
        return _ending(self.buttons, prefix)

    @property
    def round_id(self) -> int:
        return int(_ending(self.buttons, "tq:").split(":")[2])


@dataclass(frozen=True)
class Post(Message):
    """A message of the bot's in a channel or thread, as it looked when read."""

    key: Any = None  # how the driver finds it again
    image: tuple[str, bytes] | None = None  # an image shown with it: (file name, bytes)


@dataclass(frozen=True)
class Reply(Message):
    """What a member saw in answer to what they did."""

    private: bool = True  # seen by that member alone


@dataclass(frozen=True)
class Form:
    """An answer form opened for one member."""

    key: Any
    who: str
    mode: str  # "text" or "code"
    multiline: bool
    prefill: str
    max_length: int
    choices: tuple[str, ...] = ()  # the values of its pick-one menu (a report's reasons)


class ChatDriver(Protocol):
    """Drive one chat platform's real app against its fake, as its members would."""

    platform: str
    clock: FakeClock

    def run(self, scenario: Callable[[Any], Awaitable[None]], **options: Any) -> None:
        """Start the fake and the app in a fresh loop, run ``scenario(self)``, stop both."""

    async def restart(self) -> None:
        """Stop the app and start it again against the same fake and database."""

    async def command(self, name: str, who: str = "alice", *, channel: str = "general",
                      **args: Any) -> Reply:
        """Run explain/quiz/leaderboard/stats/forget_me/privacy/live.

        args: topic, period, member, team (stats), mode (privacy: hidden or visible),
        action and options (live: ``action="start", options="questions=1"``), action and
        item (insights: ``action="pause", item="ID"``).
        """

    async def settings(self, who: str, **changes: Any) -> Reply:
        """Change the channel's settings as ``who`` (time, timezone, language, topics...)."""

    async def add_pack(self, who: str, filename: str, data: bytes, *,
                       declared_size: int | None = None) -> Reply:
        """Upload a pack file with /quiz-pack add as ``who``; return the report they saw.

        ``declared_size``: what the platform claims of the file (a lie, when not its size).
        """

    async def pack(self, who: str, verb: str, pack_id: str = "") -> Reply:
        """Run /quiz-pack list, remove ID or export ID as ``who``."""

    def exported(self, reply: Reply, who: str) -> tuple[str, bytes]:
        """Return the file (name, bytes) an export sent ``who`` with ``reply``."""

    def downloads(self) -> int:
        """Return how many times the app fetched a member's uploaded file."""

    def pack_scope(self) -> str:
        """Return the scope packs of the fake's workspace are stored under."""

    def pack_ids(self, scope: str) -> list[str]:
        """Return the ids of the packs a workspace (``PLATFORM:ID``) sees, as the core lists."""

    def store_pack(self, data: bytes, scope: str) -> None:
        """Validate and store a pack for another scope, as that workspace's admin would."""

    async def view_settings(self, who: str) -> Reply:
        """Ask, as a member who is no admin, to see the channel's settings."""

    async def click(self, message: Message, action: str, who: str = "alice") -> Reply:
        """Click a button on a message as ``who`` sees it (a post, or a private reply)."""

    async def open_form(self, message: Message, who: str = "alice",
                        button: str | None = None) -> Form:
        """Click the message's answer-form button (or ``button``) and return the form."""

    async def submit(self, form: Form, text: str, *, forged: bool = False,
                     choice: str | None = None) -> Reply:
        """Type ``text`` into the form (pick ``choice`` in its menu) and send it.

        ``forged``: past the box's limit.
        """

    def with_buttons(self, post: Post, actions: list[str]) -> Post:
        """Return ``post`` as a tampered client would show it, with these buttons."""

    def current(self, post: Post) -> Post:
        """Return ``post`` as it looks now."""

    def edits_of(self, post: Post) -> int:
        """Return how many times the bot edited ``post``."""

    def thread_of(self, post: Post) -> list[Post]:
        """Return the bot's posts in the thread on ``post`` (none without a thread)."""

    def channel_posts(self, channel: str = "general") -> list[Post]:
        """Return the bot's top-level posts in a channel, oldest first."""

    def delete_thread(self, post: Post) -> None:
        """Delete the thread on ``post`` as a member would (Slack: the post it hangs on)."""

    def live_posts(self, channel: str = "general") -> list[Post]:
        """Return the channel's posts, each followed by the posts in its thread."""

    def mark(self) -> int:
        """Return a mark: what was shown so far, for :meth:`private_since`."""

    def private_since(self, mark: int, who: str) -> list[Post]:
        """Return what the bot sent ``who`` privately since ``mark``, outside any answer."""

    def forms_opened(self) -> int:
        """Return how many forms the app opened so far."""

    def rate_limit_posts(self) -> None:
        """Make the platform answer the next channel post with a rate limit."""

    def post_attempts(self) -> list[int]:
        """Return the HTTP status of each attempt to post in #general."""

    def history_reads(self) -> int:
        """Return how many times the app read #general's history (looking for its post)."""

    # What Harness gives both drivers: the core's and the scheduler's side of a scenario.

    async def enable_channel(self, item_id: str | None = None, **changes: Any) -> Any:
        """Have the admin start the quiz in #general (optionally pinned to one sample item)."""

    async def post_today(self, channel: Any) -> Post:
        """Run the scheduler's daily post for a channel and return the post."""

    async def todays_post(self, item_id: str, **changes: Any) -> Post:
        """Start the quiz in #general on one sample item and return today's post of it."""

    async def post_now(self, channel: Any) -> None:
        """Run the scheduler's daily post, whatever the platform answers."""

    async def claim_without_posting(self, channel: Any) -> int:
        """Claim today's round as a process that then crashes before posting; return its id."""

    async def post_then_crash(self, channel: Any) -> tuple[int, str]:
        """Claim and post today's round, then crash before recording the post."""

    def message_ref(self, round_id: int) -> str | None:
        """Return the reference to its post the core stored for a round."""

    async def close_due(self) -> None:
        """Run the scheduler's close of rounds whose time is up (the reveal)."""

    async def deliver_pending(self) -> None:
        """Run the scheduler's delivery of answers graded late."""

    async def advance_live(self) -> None:
        """Run the scheduler's live sweep: post what live sessions are due to post."""

    async def post_board(self, channel: Any) -> Post:
        """Run the scheduler's weekly leaderboard post and return it."""

    async def settle(self, seconds: float = ...) -> None:
        """Let coalesced tally edits land."""

    def outage(self, down: bool) -> None:
        """Take the executor down (grading unavailable) or bring it back."""

    def stored_channel(self, name: str = "general") -> Any:
        """Return the core's settings of a channel, or None if the quiz never knew it."""

    def answers_recorded(self, who: str, round_id: int) -> int:
        """Return how many answers of ``who`` the core recorded for a round."""

    def answers_kept(self, who: str) -> int | None:
        """Return how many answers the core keeps about ``who`` (None: nothing at all)."""

    def next_post_at(self, channel: Any) -> dt.datetime:
        """Return when the scheduler will next post in a channel."""

    def break_once(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Make the core's next /explain raise an unexpected error, and the one after work."""


Scenario = Callable[[Any], Awaitable[None]]


class Switchable:
    """The real executor, which a scenario can take down as a lost executor service would be."""

    def __init__(self, executor: LocalExecutor) -> None:
        self._executor = executor
        self.down = False

    def run(self, challenge_id: str, code: str, *, seed: int | None = None) -> Any:
        if self.down:
            raise GradingUnavailable("no executor replica answers")
        return self._executor.run(challenge_id, code, seed=seed)

    def supports(self, challenge_id: str) -> tuple[bool, str]:
        return self._executor.supports(challenge_id)


FakeT = TypeVar("FakeT")


class Harness(Generic[FakeT]):
    """What both drivers share: the scenario's loop, the clock, the executor, the core."""

    platform = ""

    def __init__(self, tmp_path: Path, zygote: Zygote) -> None:
        self.tmp_path = tmp_path
        self.zygote = zygote
        self.bank = BANK  # the question bank the app loads; set it before base_settings()
        self.clock = FakeClock(START)
        self.config = self.base_settings()
        self.runtime: Any = None
        self.bot: Any = None
        self.executor: Switchable | None = None
        self.speed_executor: Any = None  # the app's SpeedExecutor (a scenario sets one)
        self._fake: FakeT | None = None
        self._options: dict[str, Any] = {}  # how the app was last started

    @property
    def fake(self) -> FakeT:
        """Return the fake platform this scenario runs against."""
        assert self._fake is not None, "the fake starts with the scenario"
        return self._fake

    # ------------------------------------------------------------ running a scenario

    def base_settings(self, **extra: Any) -> Settings:
        return Settings(data_dir=self.tmp_path, content_dir=self.bank, _env_file=None, **extra)

    def new_executor(self) -> Switchable:
        # The app closes only executors it built: the session's zygote outlives every app.
        self.executor = Switchable(LocalExecutor(load_bank(self.bank), self.zygote))
        return self.executor

    async def open_fake(self, **options: Any) -> None:
        raise NotImplementedError

    async def close_fake(self) -> None:
        raise NotImplementedError

    async def start(self, **options: Any) -> Any:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError

    async def restart(self, **options: Any) -> None:
        """Stop the app and start it again against the same fake and database."""
        await self.stop()
        await self.start(**{**self._options, **options})

    def run(self, scenario: Scenario, **options: Any) -> None:
        """Start the fake and the app in a fresh loop, run ``scenario(self)``, stop both."""

        async def main() -> None:
            await self.open_fake(**options)
            try:
                await self.start(**options)
                await scenario(self)
            finally:
                await self.stop()
                await self.close_fake()

        asyncio.run(asyncio.wait_for(main(), SCENARIO_TIMEOUT_S))

    def outage(self, down: bool) -> None:
        """Take the executor down (grading unavailable) or bring it back."""
        assert self.executor is not None
        self.executor.down = down

    async def settle(self, seconds: float = TALLY_DELAY_S * 3) -> None:
        """Let coalesced tally edits land."""
        await asyncio.sleep(seconds)

    # ------------------------------------------------------------ the core, in one place

    @property
    def quiz(self) -> Any:
        assert self.runtime is not None
        return self.runtime.quiz

    @property
    def scheduler(self) -> Any:
        assert self.runtime is not None and self.runtime.scheduler is not None
        return self.runtime.scheduler

    def channel_id(self, name: str) -> str:
        """Return the platform's id of a channel of the fake's workspace."""
        raise NotImplementedError

    def user_id(self, who: str) -> str:
        raise NotImplementedError

    def display_name(self, who: str) -> str:
        raise NotImplementedError

    def stored_channel(self, name: str = "general") -> Any:
        """Return the core's settings of a channel, or None if the quiz never knew it."""
        return self.quiz.rounds.find_channel(self.platform, self.channel_id(name))

    def answers_recorded(self, who: str, round_id: int) -> int:
        """Return how many answers of ``who`` the core recorded for a round."""
        # The member's own name: looking them up must not rename them.
        member = self.quiz.rounds.member(self.platform, self.user_id(who), self.display_name(who))
        return len(self.quiz.rounds.store.answers_for(round_id, member.id))

    def answers_kept(self, who: str) -> int | None:
        """Return how many answers the core keeps about ``who`` (None: nothing at all)."""
        data = self.quiz.rounds.store.member_data(self.platform, self.user_id(who))
        return None if data is None else int(data.counts()["answers"])

    def next_post_at(self, channel: Any) -> dt.datetime:
        """Return when the scheduler will next post in a channel."""
        return self.scheduler.scheduler.get_job(post_job_id(channel.id)).next_run_time

    def break_once(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Make the core's next /explain raise an unexpected error, and the one after work."""
        real = self.quiz.explain.explain
        calls: list[str] = []

        def flaky(query: str, locale: str, *rest: Any) -> Any:
            calls.append(query)
            if len(calls) == 1:
                raise RuntimeError("a bug")
            return real(query, locale, *rest)

        monkeypatch.setattr(self.quiz.explain, "explain", flaky)

    async def enable_channel(self, item_id: str | None = None, **changes: Any) -> Any:
        """Have the admin start the quiz in #general (optionally pinned to one sample item)."""
        saved = await self.settings("admin", enabled=True, **changes)
        assert "Settings saved" in saved.text or "设置已保存" in saved.text, saved.text
        channel = self.stored_channel("general")
        if item_id is not None:
            topic, difficulty = ONLY[item_id]
            channel = self.quiz.rounds.store.update_channel(
                channel.id, ChannelUpdate(topics=(topic,), difficulties=(difficulty,)))
        return channel

    async def post_today(self, channel: Any) -> Post:
        """Run the scheduler's daily post for a channel and return the post."""
        before = len(self.channel_posts("general"))
        await self.scheduler.post(channel.id)
        posts = self.channel_posts("general")
        assert len(posts) == before + 1, "the daily post did not go out"
        return posts[-1]

    async def todays_post(self, item_id: str, **changes: Any) -> Post:
        """Start the quiz in #general on one sample item and return today's post of it."""
        return await self.post_today(await self.enable_channel(item_id, **changes))

    async def post_now(self, channel: Any) -> None:
        """Run the scheduler's daily post, whatever the platform answers."""
        await self.scheduler.post(channel.id)

    async def claim_without_posting(self, channel: Any) -> int:
        """Claim today's round as a process that then crashes before posting; return its id."""
        return int((await self._claim(channel)).round.id)

    async def post_then_crash(self, channel: Any) -> tuple[int, str]:
        """Claim and post today's round as a process that then crashes before recording it.

        Return the round's id and the reference of the post the platform accepted.
        """
        claimed = await self._claim(channel)
        ref = await self.bot.publisher.publish_round(claimed)
        self.forget_dedup()
        return int(claimed.round.id), str(ref)

    def forget_dedup(self) -> None:
        """Let the platform's own de-duplication of a re-sent post expire (long after)."""

    async def _claim(self, channel: Any) -> Any:
        claimed = await self.runtime.call(self.quiz.rounds.post_round, channel.id)
        assert claimed is not None
        return claimed

    def message_ref(self, round_id: int) -> str | None:
        """Return the reference to its post the core stored for a round."""
        ref = self.quiz.rounds.store.get_round(round_id).message_ref
        return None if ref is None else str(ref)

    async def close_due(self) -> None:
        """Run the scheduler's close of rounds whose time is up (the reveal)."""
        await self.scheduler.close_due()

    async def deliver_pending(self) -> None:
        """Run the scheduler's delivery of answers graded late."""
        await self.scheduler.deliver_pending()

    async def advance_live(self) -> None:
        """Run the scheduler's live sweep: post what live sessions are due to post."""
        await self.scheduler.advance_live()

    def live_posts(self, channel: str = "general") -> list[Post]:
        """Return the channel's posts, each followed by the posts in its thread."""
        return [shown for post in self.channel_posts(channel)
                for shown in (post, *self.thread_of(post))]

    async def post_board(self, channel: Any) -> Post:
        """Run the scheduler's weekly leaderboard post and return it."""
        await self.scheduler.post_board(channel.id)
        return self.channel_posts("general")[-1]

    def current(self, post: Post) -> Post:
        """Return ``post`` as it looks now (each fake keeps its messages by the post's key)."""
        return self._post(self.fake.messages[post.key])  # type: ignore[attr-defined]

    # ------------------------------------------------------------ team packs

    workspace_id = ""

    def pack_scope(self) -> str:
        """Return the scope packs of the fake's workspace are stored under."""
        return f"{self.platform}:{self.workspace_id}"

    def _pack_tools(self) -> Any:
        assert self.runtime is not None and self.runtime.desk.pack_tools is not None
        return self.runtime.desk.pack_tools

    def pack_ids(self, scope: str) -> list[str]:
        """Return the ids of the packs a workspace (``PLATFORM:ID``) sees, as the core lists."""
        return [p.pack_id for p in self._pack_tools().shelf.latest(scope)]

    def store_pack(self, data: bytes, scope: str) -> None:
        """Validate and store a pack for another scope, as that workspace's admin would."""
        tools = self._pack_tools()
        check = tools.checker.check(data)
        assert check.ok, check.errors
        tools.shelf.add(check, scope)

    # what the drivers implement (see ChatDriver)
    def _post(self, message: Any) -> Post:
        raise NotImplementedError

    def channel_posts(self, channel: str = "general") -> list[Post]:
        raise NotImplementedError

    async def settings(self, who: str, **changes: Any) -> Reply:
        raise NotImplementedError

