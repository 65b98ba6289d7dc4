"""Run the real Slack app (unmodified slack-bolt) against the local fake Slack.

Each scenario runs in its own event loop: the fake serves the Web API, response URLs, uploads
and Socket Mode on 127.0.0.1; the app's aiohttp server (bolt's, plus /healthz) listens on
another port and gets requests built and signed exactly as Slack sends them. The core runs on
a real SQLite database with the real sandbox grading code answers.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

from bot.adapters.chat.runtime import ChatRuntime
from bot.adapters.slack.bot import SlackBot
from bot.bootstrap import chat_runtime, slack_bot
from bot.core.errors import GradingUnavailable
from bot.core.models import ChannelUpdate
from bot.settings import Settings
from content.loader import load_bank
from executors.engine import LocalExecutor
from executors.zygote.supervisor import Zygote
from tests.core.conftest import BANK, ONLY
from tests.fake_slack import (
    APP_TOKEN,
    BOT_TOKEN,
    CLIENT_ID,
    CLIENT_SECRET,
    GENERAL,
    SIGNING_SECRET,
    FakeSlack,
    Shown,
)
from tests.fake_slack_requests import Delivery, Sender, modal_values
from tests.fakes import FakeClock
from tests.sandbox import real_zygote

SCENARIO_TIMEOUT_S = 120
REPLY_TIMEOUT_S = 20
ACK_DEADLINE_S = 3.0
TALLY_DELAY_S = 0.4
# 09:00 on a Monday in UTC, the channel's default post time.
START = dt.datetime(2026, 3, 2, 9, 0, 30, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    with real_zygote(max_parallel=2) as z:
        yield z


@dataclass
class Harness:
    """The fake Slack, the app on it, a sender of requests, and what a scenario needs."""

    fake: FakeSlack
    settings: Settings
    clock: FakeClock
    zygote: Zygote
    send: Sender
    bot: SlackBot | None = None
    runtime: ChatRuntime | None = None
    runner: web.AppRunner | None = None
    socket: AsyncSocketModeHandler | None = None
    app_url: str = ""
    base_url: str = ""
    executor: Any = None

    def outage(self, down: bool) -> None:
        """Take the executor down (grading unavailable) or bring it back."""
        self.executor.down = down

    async def start_bot(self, *, transport: str = "http", oauth: bool = False) -> SlackBot:
        executor = _Switchable(LocalExecutor(load_bank(BANK), self.zygote))
        self.executor = executor
        settings = self.settings
        if oauth:
            settings = settings.model_copy(update={"slack_client_id": CLIENT_ID})
        self.runtime = chat_runtime(settings, "slack", clock=self.clock, executor=executor)
        self.bot = slack_bot(settings, self.runtime, tally_delay_s=TALLY_DELAY_S)
        await self.bot.start()
        self.runner = web.AppRunner(self.bot.web_app(), shutdown_timeout=1.0)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}"
        self.app_url = f"{self.base_url}/slack/events"
        self.send.app_url = self.app_url
        self.send.transport = transport
        if transport == "socket":
            self.fake.socket_opened.clear()
            self.socket = AsyncSocketModeHandler(self.bot.app, APP_TOKEN)
            await self.socket.connect_async()
            await asyncio.wait_for(self.fake.socket_opened.wait(), REPLY_TIMEOUT_S)
        return self.bot

    async def stop_bot(self) -> None:
        if self.socket is not None:
            await self.socket.close_async()
            self.socket = None
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
        if self.bot is not None:
            await self.bot.close()
            self.bot = None

    async def restart_bot(self, **kwargs: Any) -> SlackBot:
        await self.stop_bot()
        return await self.start_bot(**kwargs)

    @property
    def quiz(self) -> Any:
        assert self.runtime is not None
        return self.runtime.quiz

    @property
    def scheduler(self) -> Any:
        assert self.runtime is not None and self.runtime.scheduler is not None
        return self.runtime.scheduler

    def acked(self, delivery: Delivery) -> Delivery:
        """Check that Slack got its 200 in time, and return the delivery."""
        assert delivery.status == 200, (delivery.status, delivery.body)
        assert delivery.ack_s < ACK_DEADLINE_S, f"acknowledged after {delivery.ack_s:.2f} s"
        return delivery

    async def reply(self, delivery: Delivery, timeout: float = REPLY_TIMEOUT_S) -> Shown:
        """Wait for the private reply the member who sent ``delivery`` gets."""
        self.acked(delivery)
        return await self.fake.wait_for(
            lambda s: s.seq >= delivery.mark and s.user == delivery.user_id
            and s.kind in ("ephemeral", "response"), timeout)

    async def modal(self, delivery: Delivery) -> str:
        """Wait for the modal the app opened with the delivery's trigger; return its view id."""
        self.acked(delivery)
        await self.fake.wait_for(lambda s: s.kind == "modal" and s.seq >= delivery.mark
                                 and delivery.trigger_id in self.fake.trigger_views)
        return self.fake.trigger_views[delivery.trigger_id]

    async def enable_channel(self, item_id: str | None = None, **changes: Any) -> Any:
        """Have the admin start the quiz in #general with the settings modal."""
        opened = await self.send.command("/quiz-settings", who="admin")
        view_id = await self.modal(opened)
        saved = await self.send.submit(view_id, modal_values(self.fake.views[view_id],
                                                             enabled="on", **changes),
                                       who="admin")
        shown = await self.reply(saved)
        assert "Settings saved" in shown.shown_text or "设置已保存" in shown.shown_text, \
            shown.shown_text
        channel = self.quiz.rounds.find_channel("slack", GENERAL)
        if item_id is not None:
            topic, difficulty = ONLY[item_id]
            channel = self.quiz.rounds.store.update_channel(
                channel.id, ChannelUpdate(topics=(topic,), difficulties=(difficulty,)))
        return channel

    async def post_today(self, channel: Any) -> Shown:
        """Run the scheduler's daily post for a channel and return the post."""
        before = len(self.fake.posts(channel.external_id))
        await self.scheduler.post(channel.id)
        posts = self.fake.posts(channel.external_id)
        assert len(posts) == before + 1, "the daily post did not go out"
        return posts[-1]

    async def settle(self, seconds: float = TALLY_DELAY_S * 3) -> None:
        """Let coalesced tally edits land."""
        await asyncio.sleep(seconds)


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


def slack_settings(tmp_path: Path, **extra: Any) -> Settings:
    return Settings(data_dir=tmp_path, content_dir=BANK, _env_file=None,
                    SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SIGNING_SECRET, **extra)


@pytest.fixture
def slack_run(tmp_path: Path, zygote: Zygote) -> Callable[..., None]:
    """Return a runner: ``slack_run(scenario)`` runs it against a fresh fake and database."""

    def run(scenario: Scenario, *, transport: str = "http", oauth: bool = False,
            **settings: Any) -> None:
        async def main() -> None:
            fake = FakeSlack()
            await fake.start()
            extra = {"SLACK_API_URL": fake.api_url, **settings}
            if oauth:
                extra["SLACK_CLIENT_SECRET"] = CLIENT_SECRET
            harness = Harness(fake, slack_settings(tmp_path, **extra), FakeClock(START),
                              zygote, Sender(fake))
            try:
                await harness.start_bot(transport=transport, oauth=oauth)
                await scenario(harness)
            finally:
                await harness.stop_bot()
                await harness.send.close()
                await fake.stop()

        asyncio.run(asyncio.wait_for(main(), SCENARIO_TIMEOUT_S))

    return run
