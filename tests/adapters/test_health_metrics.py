"""/healthz and /metrics of a chat runtime: what the front and the scheduler count, what is down.

The runtime is the one the composition root builds (real SQLite, real scheduler) with a
recording publisher in place of a platform; the platform processes are in
test_health_processes.py.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families

from bot.adapters.chat.front import ChatFront
from bot.adapters.chat.health import Health
from bot.bootstrap import chat_app, chat_runtime
from bot.core.kernel.errors import GradingUnavailable
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import submit_id
from bot.core.kernel.models import ChannelDefaults, ChannelUpdate, Identity
from bot.settings import Settings
from tests.fakes import FakeClock
from tests.support.core import BANK, ONLY, RecordingExecutor

START = dt.datetime(2026, 3, 2, 9, 0, 30, tzinfo=dt.UTC)


class RecordingPublisher:
    def __init__(self) -> None:
        self.rounds: list = []
        self.fail_reveals = False

    async def publish_round(self, post):
        self.rounds.append(post)
        return f"ref-{post.round.id}"

    async def publish_reveal(self, reveal):
        if self.fail_reveals:
            raise RuntimeError("the platform is down")

    async def publish_board(self, channel, message):
        return None

    async def deliver_private(self, delivery):
        return None


def who(user: str, channel: str = "C1") -> Identity:
    return Identity("slack", "T1", channel, user, user.title())


def samples(text: str) -> dict[tuple[str, tuple], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[sample.name, tuple(sorted(sample.labels.items()))] = sample.value
    return found


def value(found, name, **labels) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


async def _serve(health: Health) -> tuple[web.AppRunner, str]:
    app = web.Application()
    health.add_routes(app)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


async def _get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as answer:
        return answer.status, await answer.text()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, content_dir=BANK, _env_file=None)


def test_metrics_count_answers_posts_errors_grading_and_pending(settings):
    executor = RecordingExecutor(fail_with=GradingUnavailable("no replica"))
    runtime = chat_runtime(settings, "slack", clock=FakeClock(START), executor=executor)
    front = ChatFront(runtime)
    publisher = RecordingPublisher()

    async def scenario():
        await runtime.start(publisher)
        rounds = runtime.quiz.rounds
        ids = {}
        for external, item in (("C1", "t.choice-view"), ("C2", "t.code-double")):
            channel = rounds.channel("slack", external, "T1", ChannelDefaults(name=external))
            topic, difficulty = ONLY[item]
            channel = rounds.store.update_channel(
                channel.id, ChannelUpdate(topics=(topic,), difficulties=(difficulty,)))
            await runtime.scheduler.post(channel.id)
            ids[external] = publisher.rounds[-1].round.id
        choice = ids["C1"]
        # B is the right option: one right answer, two wrong ones, one refused (already solved).
        for user, key in (("alice", "B"), ("bob", "A"), ("carol", "C"), ("alice", "A")):
            await front.click(who(user), f"tq:answer:{choice}:{key}")
        code = publisher.rounds[-1]
        form = code.message.form
        await front.submit(who("dave", "C2"), submit_id(form), "def double(x):\n    return 2 * x\n")

        async def broken():
            raise RuntimeError("boom")

        async def apologise(_message):
            return None

        await front.guarded(who("erin"), "button", broken, apologise, round_id=choice)
        runner, base = await _serve(Health(runtime))
        try:
            status, text = await _get(f"{base}/metrics")
        finally:
            await runner.cleanup()
            await runtime.stop()
        return status, text

    status, text = asyncio.run(scenario())
    assert status == 200
    found = samples(text)
    assert value(found, "torchquiz_answers_total", platform="slack", mode="button",
                 correct="true") == 1
    assert value(found, "torchquiz_answers_total", platform="slack", mode="button",
                 correct="false") == 2
    assert value(found, "torchquiz_posts_total", platform="slack", kind="round") == 2
    assert value(found, "torchquiz_grading_seconds_count", platform="slack", mode="button") == 4
    assert value(found, "torchquiz_grading_seconds_count", platform="slack", mode="code") == 1
    assert value(found, "torchquiz_errors_total", platform="slack", what="button") == 1
    assert value(found, "torchquiz_pending_answers", platform="slack") == 1
    assert any(name == "torchquiz_rate_limited" for name in
               (f.name for f in text_string_to_metric_families(text)))


def test_a_request_refused_by_a_rate_limit_is_counted(settings):
    settings = settings.model_copy(update={"rate_commands_per_10s": 1})
    runtime = chat_runtime(settings, "slack", clock=FakeClock(START), executor=RecordingExecutor())
    front = ChatFront(runtime, clock=lambda: 0.0)

    async def scenario():
        granted = await front.command(who("alice"), "leaderboard")
        refused = await front.command(who("alice"), "leaderboard")
        await runtime.stop()
        return granted, refused

    granted, refused = asyncio.run(scenario())
    assert refused.message.body == t("en", "limit.commands", seconds=10)
    assert granted.message.body != refused.message.body
    found = samples(runtime.metrics.exposition()[0].decode())
    assert value(found, "torchquiz_rate_limited_total", platform="slack", what="commands") == 1


def test_a_failed_reveal_is_counted_as_an_error_not_a_post(settings):
    clock = FakeClock(START)
    runtime = chat_runtime(settings, "slack", clock=clock, executor=RecordingExecutor())
    publisher = RecordingPublisher()
    publisher.fail_reveals = True

    async def scenario():
        await runtime.start(publisher)
        channel = runtime.quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(name="c"))
        await runtime.scheduler.post(channel.id)
        clock.advance(days=1)
        await runtime.scheduler.close_due()
        await runtime.stop()

    asyncio.run(scenario())
    found = samples(runtime.metrics.exposition()[0].decode())
    assert value(found, "torchquiz_errors_total", platform="slack", what="publish reveal") == 1
    assert value(found, "torchquiz_posts_total", platform="slack", kind="reveal") == 0
    assert value(found, "torchquiz_posts_total", platform="slack", kind="round") == 1


def test_healthz_is_200_when_up_and_503_naming_the_database_once_its_file_is_gone(
        settings, tmp_path):
    runtime, app = chat_app(settings, "slack", clock=FakeClock(START),
                            executor=RecordingExecutor())

    async def scenario():
        await runtime.start(RecordingPublisher())
        runner, base = await _serve(Health(runtime))
        try:
            up = await _get(f"{base}/healthz")
            app.engine.dispose()
            for path in tmp_path.glob("torchquiz.sqlite3*"):
                path.unlink()
            down = await _get(f"{base}/healthz")
            await runtime.stop()
            stopped = await _get(f"{base}/healthz")
        finally:
            await runner.cleanup()
        return up, down, stopped

    up, down, stopped = asyncio.run(scenario())
    assert up == (200, '{"ok": true}')
    assert down[0] == 503 and down[1] == '{"ok": false, "down": ["database"]}'
    assert stopped[0] == 503 and '"scheduler"' in stopped[1]


def test_healthz_names_the_platform_when_its_connection_is_down(settings):
    runtime = chat_runtime(settings, "discord", clock=FakeClock(START),
                           executor=RecordingExecutor())

    async def disconnected() -> bool:
        return False

    async def scenario():
        await runtime.start(RecordingPublisher())
        runner, base = await _serve(Health(runtime, disconnected))
        try:
            return await _get(f"{base}/healthz")
        finally:
            await runner.cleanup()
            await runtime.stop()

    assert asyncio.run(scenario()) == (503, '{"ok": false, "down": ["platform"]}')
