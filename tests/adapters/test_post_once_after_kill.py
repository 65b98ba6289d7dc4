"""A daily post goes out exactly once when the bot process is killed at any step of posting.

claim -> post -> record: the real `torchquiz slack --http` and `torchquiz discord` processes
run against the local fakes, one is killed (SIGKILL, nothing cleaned up) at each step, and a
fresh process takes over. The fakes hold the platform's answer to make the step exact: the
post never reached the platform, or it did and its answer was lost. TORCHQUIZ_POST_LEASE_S
shortens the lease so the restart may take the claim over within seconds.
"""

from __future__ import annotations

import datetime as dt
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.bootstrap import database_url
from bot.core.kernel.models import ChannelDefaults
from bot.settings import Settings
from db.engine import make_engine
from db.migrate import upgrade
from db.store import SqlStore
from tests import fake_discord, fake_slack
from tests.adapters.processes import ThreadedFake

REPO = Path(__file__).resolve().parents[2]
WAIT_S = 180.0  # a process start on a busy two-core machine takes seconds; this is a ceiling


@dataclass
class Platform:
    """What differs between the platforms: the command, the channel, how a post looks."""

    name: str
    make_fake: Callable[[], Any]
    channel: str
    workspace: str
    command: Callable[[], list[str]]
    env: Callable[[Any], dict[str, str]]
    hold: Callable[[Any, bool], None]
    posts: Callable[[Any], list[Any]]
    ref_of: Callable[[Any], str]
    forget_dedup: Callable[[Any], None]  # what the platform forgets minutes later


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


SLACK = Platform(
    name="slack", make_fake=fake_slack.FakeSlack, channel=fake_slack.GENERAL,
    workspace=fake_slack.TEAM,
    command=lambda: ["slack", "--http", "--port", str(_free_port())],
    env=lambda fake: {"SLACK_BOT_TOKEN": fake_slack.BOT_TOKEN,
                      "SLACK_SIGNING_SECRET": fake_slack.SIGNING_SECRET,
                      "SLACK_API_URL": fake.api_url},
    hold=lambda fake, accepted: fake.hold("chat.postMessage", accepted=accepted),
    posts=lambda fake: fake.posts(fake_slack.GENERAL),
    ref_of=lambda post: f"{fake_slack.GENERAL}:{post.ts}",
    forget_dedup=lambda fake: None,  # Slack never de-duplicates a post
)
DISCORD = Platform(
    name="discord", make_fake=fake_discord.FakeDiscord, channel=str(fake_discord.GENERAL),
    workspace=str(fake_discord.GUILD_ID),
    command=lambda: ["discord"],
    env=lambda fake: {"DISCORD_TOKEN": "good-token", "DISCORD_API_URL": fake.api_url},
    hold=lambda fake, accepted: fake.hold("POST", f"/channels/{fake_discord.GENERAL}/messages",
                                          accepted=accepted),
    posts=lambda fake: fake.channel_posts(fake_discord.GENERAL),
    ref_of=lambda post: f"{fake_discord.GENERAL}:{post['id']}",
    # The enforced nonce de-duplicates for a few minutes only; a restart may come later.
    forget_dedup=lambda fake: fake.nonces.clear(),
)


class Bot:
    """Start, kill and watch `torchquiz <platform>` processes over one data folder."""

    def __init__(self, platform: Platform, served: ThreadedFake[Any], data_dir: Path) -> None:
        self.platform = platform
        self.served = served
        self.data_dir = data_dir
        self.url = database_url(Settings(data_dir=data_dir, database_url=None))
        self.process: subprocess.Popen[str] | None = None
        self.log: Path | None = None
        self.starts = 0

    def prepare_channel(self) -> int:
        """Set up the channel with its post time a minute ago: the start catches it up."""
        now = dt.datetime.now(dt.UTC)
        if now.hour == 0 and now.minute < 2:  # a minute ago must still be today
            time.sleep(125 - now.minute * 60 - now.second)
            now = dt.datetime.now(dt.UTC)
        upgrade(self.url)
        engine = make_engine(self.url)
        try:
            channel = SqlStore(engine).ensure_channel(
                self.platform.name, self.platform.channel, self.platform.workspace,
                ChannelDefaults(name="general", timezone="UTC",
                                post_time=(now - dt.timedelta(minutes=1)).time().replace(
                                    second=0, microsecond=0)))
        finally:
            engine.dispose()
        return channel.id

    def message_ref(self, channel_id: int) -> str | None:
        engine = make_engine(self.url)
        try:
            store = SqlStore(engine)
            latest = store.latest_round(channel_id)
            return None if latest is None else latest.message_ref
        finally:
            engine.dispose()

    def start(self) -> None:
        self.starts += 1
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("SLACK_", "DISCORD_", "TORCHQUIZ_"))}
        env.update({"TORCHQUIZ_DATA_DIR": str(self.data_dir), "TORCHQUIZ_LOG_LEVEL": "INFO",
                    "TORCHQUIZ_EXECUTOR": "none", "TORCHQUIZ_POST_LEASE_S": "1",
                    **self.platform.env(self.served.fake)})
        self.log = self.data_dir / f"run-{self.starts}.log"
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bot.cli", *self.platform.command()], env=env, cwd=REPO,
                text=True, stdout=log, stderr=subprocess.STDOUT)

    def wait(self, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while not ready():
            assert self.process is not None
            assert self.process.poll() is None, self.log_text()[-3000:]
            assert time.monotonic() < deadline, f"never {what}:\n{self.log_text()[-3000:]}"
            time.sleep(0.1)

    def log_text(self) -> str:
        return self.log.read_text() if self.log is not None else ""

    def started(self) -> bool:
        return "scheduler started" in self.log_text()

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()  # SIGKILL: no shutdown, no cleanup, as a crash
        self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)

    def calls(self, count: Callable[[Any], int]) -> int:
        return self.served.call(lambda: count(self.served.fake))


@pytest.fixture(params=[SLACK, DISCORD], ids=lambda p: p.name)
def bot(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Bot]:
    platform: Platform = request.param
    served = ThreadedFake(platform.make_fake)
    running = Bot(platform, served, tmp_path)
    try:
        yield running
    finally:
        running.stop()
        served.close()


def _post_attempts(bot: Bot) -> int:
    if bot.platform is SLACK:
        return bot.calls(lambda fake: len(fake.calls_of("chat.postMessage")))
    return bot.calls(lambda fake: len([c for c in fake.calls if c.method == "POST"
                                       and c.path == f"/channels/{fake_discord.GENERAL}/messages"]))


def _posts(bot: Bot) -> list[Any]:
    return bot.calls(lambda fake: list(bot.platform.posts(fake)))


def _restart_and_settle(bot: Bot, channel_id: int) -> str:
    """Start a fresh process, wait until the round's post is recorded, stop it cleanly."""
    bot.start()
    bot.wait(bot.started, "finished starting")
    bot.wait(lambda: bot.message_ref(channel_id) is not None, "recorded the post")
    bot.stop()
    ref = bot.message_ref(channel_id)
    assert ref is not None
    return ref


def test_killed_after_the_claim_before_the_post_it_posts_once_on_restart(bot):
    channel_id = bot.prepare_channel()
    bot.served.call(lambda: bot.platform.hold(bot.served.fake, False))
    bot.start()
    bot.wait(lambda: _post_attempts(bot) == 1, "tried to post")
    bot.kill()  # the post never reached the platform
    assert _posts(bot) == [] and bot.message_ref(channel_id) is None
    ref = _restart_and_settle(bot, channel_id)
    posts = _posts(bot)
    assert len(posts) == 1 and ref == bot.platform.ref_of(posts[0])


def test_killed_after_the_platform_accepted_the_post_it_keeps_that_post(bot):
    channel_id = bot.prepare_channel()
    bot.served.call(lambda: bot.platform.hold(bot.served.fake, True))
    bot.start()
    bot.wait(lambda: len(_posts(bot)) == 1, "posted")
    bot.kill()  # the platform shows the post; the bot never heard back
    assert bot.message_ref(channel_id) is None
    bot.served.call(lambda: bot.platform.forget_dedup(bot.served.fake))
    ref = _restart_and_settle(bot, channel_id)
    posts = _posts(bot)
    assert len(posts) == 1 and ref == bot.platform.ref_of(posts[0])
    assert "already posted" in bot.log_text()


def test_killed_after_the_post_was_recorded_it_does_not_post_again(bot):
    channel_id = bot.prepare_channel()
    bot.start()
    bot.wait(lambda: bot.message_ref(channel_id) is not None, "recorded the post")
    bot.kill()
    first = bot.message_ref(channel_id)
    bot.start()
    bot.wait(bot.started, "finished starting")  # after its catch-up and its unposted sweep
    bot.stop()
    posts = _posts(bot)
    assert len(posts) == 1 and bot.message_ref(channel_id) == first == bot.platform.ref_of(
        posts[0])
