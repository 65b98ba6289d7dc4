"""A refusal the chat front gives on its own speaks the channel's language."""

from __future__ import annotations

import asyncio
import datetime as dt
import re

from bot.adapters.chat.front import ChatFront
from bot.bootstrap import chat_runtime
from bot.core.kernel.i18n import t
from bot.core.kernel.models import ChannelDefaults, Identity
from bot.settings import Settings
from tests.fakes import FakeClock
from tests.support.core import BANK, RecordingExecutor

START = dt.datetime(2026, 3, 2, 9, 0, 30, tzinfo=dt.UTC)


def test_a_rate_limited_member_of_a_chinese_channel_is_refused_in_chinese(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK, _env_file=None,
                        rate_commands_per_10s=1)
    runtime = chat_runtime(settings, "discord", clock=FakeClock(START),
                           executor=RecordingExecutor())
    runtime.quiz.rounds.channel("discord", "C1", "G1",
                                ChannelDefaults(name="general", locale="zh-CN"))
    front = ChatFront(runtime, clock=lambda: 0.0)
    # The member's Discord client is in English; the channel speaks Chinese.
    alice = Identity("discord", "G1", "C1", "alice", "Alice", locale="en-US")

    async def scenario():
        granted = await front.command(alice, "leaderboard")
        refused = await front.command(alice, "leaderboard")
        await runtime.stop()
        return granted, refused

    granted, refused = asyncio.run(scenario())
    assert granted.locale == "zh-CN"
    assert refused.locale == "zh-CN"
    assert refused.message.body == t("zh-CN", "limit.commands", seconds=10)
    assert not re.search("[A-Za-z]", refused.message.body)


def test_an_apology_in_a_chinese_channel_is_in_chinese(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK, _env_file=None)
    runtime = chat_runtime(settings, "slack", clock=FakeClock(START), executor=RecordingExecutor())
    runtime.quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(name="c", locale="zh-CN"))
    front = ChatFront(runtime)
    alice = Identity("slack", "T1", "C1", "alice", "Alice", locale="en")
    said: list[str] = []

    async def broken() -> None:
        raise RuntimeError("a bug")

    async def apologise(message) -> None:
        said.append(message.body)

    async def scenario():
        await front.command(alice, "leaderboard")  # the channel has spoken Chinese
        await front.guarded(alice, "command", broken, apologise)
        await runtime.stop()

    asyncio.run(scenario())
    assert said == [t("zh-CN", "error.internal")]
