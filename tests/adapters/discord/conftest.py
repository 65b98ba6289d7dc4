"""Run the real Discord bot (unmodified discord.py) against the local fake Discord.

Each scenario runs in its own event loop: the fake serves REST and the gateway on 127.0.0.1,
the bot logs in through DISCORD_API_URL's mechanism (Route.BASE), and the core runs on a real
SQLite database with the real sandbox grading code answers.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.chat.runtime import ChatRuntime
from bot.adapters.discord.client import QuizBot
from bot.adapters.discord.main import use_api
from bot.bootstrap import chat_runtime
from bot.core.errors import GradingUnavailable
from bot.core.models import ChannelUpdate
from bot.settings import Settings
from content.loader import load_bank
from executors.engine import LocalExecutor
from executors.zygote.supervisor import Zygote
from tests.core.conftest import BANK, ONLY
from tests.fake_discord import GENERAL, FakeDiscord, Interaction
from tests.fakes import FakeClock
from tests.sandbox import real_zygote

SCENARIO_TIMEOUT_S = 120
REPLY_TIMEOUT_S = 20
# 09:00 on a Monday in UTC, the channel's default post time.
START = dt.datetime(2026, 3, 2, 9, 0, 30, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    with real_zygote(max_parallel=2) as z:
        yield z


@dataclass
class Harness:
    """The fake Discord, the bot on it, and the handles a scenario needs."""

    fake: FakeDiscord
    settings: Settings
    clock: FakeClock
    zygote: Zygote
    bot: QuizBot | None = None
    runtime: ChatRuntime | None = None
    _connection: asyncio.Task[None] | None = None
    bots_started: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    async def start_bot(self, *, token: str = "good-token",
                        guild_id: int | None = None) -> QuizBot:
        use_api(self.fake.api_url)
        # The app closes only executors it built: the module's zygote outlives every bot.
        executor = _Switchable(LocalExecutor(load_bank(BANK), self.zygote))
        self.extra["executor"] = executor
        self.runtime = chat_runtime(self.settings, "discord", clock=self.clock, executor=executor)
        self.bot = QuizBot(self.runtime, guild_id=guild_id, guild_ready_timeout=0.05,
                           tally_delay_s=0.4)
        self.fake.ready.clear()
        await self.bot.login(token)
        self._connection = asyncio.create_task(self.bot.connect(reconnect=False))
        await asyncio.wait_for(self.fake.ready.wait(), REPLY_TIMEOUT_S)
        await asyncio.wait_for(self.bot.wait_until_ready(), REPLY_TIMEOUT_S)
        self.bots_started += 1
        return self.bot

    async def stop_bot(self) -> None:
        if self.bot is not None:
            await self.bot.close()
        if self._connection is not None:
            self._connection.cancel()
            await asyncio.gather(self._connection, return_exceptions=True)
        self.bot = None

    def outage(self, down: bool) -> None:
        """Take the executor down (grading unavailable) or bring it back."""
        self.extra["executor"].down = down

    async def restart_bot(self) -> QuizBot:
        await self.stop_bot()
        return await self.start_bot()

    async def restart_bot_with(self, **options: Any) -> QuizBot:
        await self.stop_bot()
        return await self.start_bot(**options)

    @property
    def quiz(self) -> Any:
        assert self.runtime is not None
        return self.runtime.quiz

    @property
    def scheduler(self) -> Any:
        assert self.runtime is not None and self.runtime.scheduler is not None
        return self.runtime.scheduler

    async def done(self, record: Interaction, timeout: float = REPLY_TIMEOUT_S) -> Interaction:
        """Wait until the bot has finished answering an interaction."""
        await asyncio.wait_for(record.finished.wait(), timeout)
        assert not record.late, "the bot answered after Discord's three seconds"
        assert not record.doubled, "the bot answered the interaction twice"
        return record

    async def enable_channel(self, item_id: str | None = None, **changes: str) -> Any:
        """Have the admin start the quiz in #general (optionally pinned to one sample item)."""
        await self.done(await self.fake.slash("quiz-settings", "admin", enabled=True, **changes))
        channel = self.quiz.rounds.find_channel("discord", str(GENERAL))
        if item_id is not None:
            topic, difficulty = ONLY[item_id]
            channel = self.quiz.rounds.store.update_channel(
                channel.id, ChannelUpdate(topics=(topic,), difficulties=(difficulty,)))
        return channel

    async def post_today(self, channel: Any) -> dict[str, Any]:
        """Run the scheduler's daily post for a channel and return the posted message."""
        before = len(self.fake.posted)
        await self.scheduler.post(channel.id)
        assert len(self.fake.posted) == before + 1, "the daily post did not go out"
        return self.fake.messages[self.fake.posted[-1]]


class _Switchable:
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


Scenario = Callable[[Harness], Awaitable[None]]


@pytest.fixture
def discord_run(tmp_path: Path, zygote: Zygote) -> Callable[[Scenario], None]:
    """Return a runner: ``discord_run(scenario)`` runs it against a fresh fake and database."""

    def run(scenario: Scenario) -> None:
        settings = Settings(data_dir=tmp_path, content_dir=BANK, _env_file=None)

        async def main() -> None:
            fake = FakeDiscord()
            await fake.start()
            harness = Harness(fake, settings, FakeClock(START), zygote)
            try:
                await harness.start_bot()
                await scenario(harness)
            finally:
                await harness.stop_bot()
                await fake.stop()

        asyncio.run(asyncio.wait_for(main(), SCENARIO_TIMEOUT_S))

    return run
