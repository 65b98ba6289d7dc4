"""The soak run: simulated days of real processes, faults on a schedule, invariants checked.

`make soak` (30 days) and `make soak DAYS=N` run this module; tests/soak/test_soak.py runs a
short version in the suite. What runs, all as real processes or real servers:

- one PostgreSQL (scripts/pg-test-server.sh, its own cluster under the output folder);
- two `torchquiz slack --http` replicas on that database, under one compressed clock
  (``TORCHQUIZ_SOAK_CLOCK``, read by the composition root only: see docs/reliability.md);
- the local Slack fake (tests/fake_slack.py) in this process: the replicas post to it, and the
  members' clicks are sent, signed as Slack signs them, to one replica or the other in turn.

Channels in several workspaces sit in time zones on both sides of the date line, one of them
crossing a DST change. Members click answers: right, wrong, twice, and after the round closed.
Faults (``--faults``): kill -9 of each replica (one of them while it posts), PostgreSQL
restarts, bursts of 429 with Retry-After from the Slack fake. The invariants are checked
against the database and the fake at the end; the report goes to OUT/report.json and
OUT/report.md, and the exit status is 1 when any invariant was violated.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp
from sqlalchemy import text

from bot.core.kernel.clock import ScaledClock
from bot.core.kernel.i18n import t
from bot.core.kernel.models import ChannelDefaults, ChannelUpdate, week_start
from db.engine import make_engine
from db.migrate import upgrade
from db.store import SqlStore
from tests import fake_discord, fake_slack
from tests.adapters.processes import ThreadedFake
from tests.fake_discord import FakeDiscord
from tests.fake_slack import BOT_TOKEN, SIGNING_SECRET, FakeSlack, Shown
from tests.fake_slack_requests import Sender

REPO = Path(__file__).resolve().parents[2]
# The run starts on Saturday 7 March 2026, 15:00 UTC: New York moves to summer time on the
# 8th at 02:00 (a one-day run sees it), Berlin on the 29th, Sydney back to winter time on
# 5 April (a 30-day run sees all three). One New York channel posts at 02:30, an hour that
# does not exist on the 8th.
SIM_START = dt.datetime(2026, 3, 7, 15, 0, tzinfo=dt.UTC)
ZONES = ("America/New_York", "Europe/Berlin", "Asia/Kolkata", "Asia/Shanghai",
         "Australia/Sydney")
POST_TIMES = (dt.time(9, 0), dt.time(2, 30), dt.time(13, 15), dt.time(17, 45), dt.time(11, 0))
# SQLAlchemy's default pool (5 + 10 overflow) per process, plus this run's own checks.
POOL_PER_PROCESS = 15
OWN_CONNECTIONS = 2
MEMORY_GROWTH_LIMIT = 0.10
MIN_MEMORY_SAMPLES = 60  # two minutes of a process's life, sampled every 2 s
PG_SCRIPT = REPO / "scripts" / "pg-test-server.sh"


@dataclass
class Config:
    days: float
    speed: float
    out: Path
    channels: int = 10
    workspaces: int = 5
    members: int = 30  # per workspace
    replicas: int = 2
    discord: bool = True  # two `torchquiz discord` processes, one shard each
    faults: bool = True
    seed: int = 29
    startup_s: float = 60.0  # wall seconds the clock waits for the processes to start


@dataclass
class Click:
    """One answer click a member sent, and what the replica answered."""

    round_id: int
    channel: str
    member: str
    action: str
    sent_at: dt.datetime  # simulated time
    replica: int
    status: int  # 0: the request never got an answer (a killed replica)
    kind: str  # first | repeat | late
    platform: str = "slack"


@dataclass
class Replica:
    """One `torchquiz slack --http` process slot: restarted under the same port after a kill."""

    index: int
    port: int
    data_dir: Path
    platform: str = "slack"
    shards: str = ""  # Discord: TORCHQUIZ_DISCORD_SHARDS
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0
    logs: list[Path] = field(default_factory=list)
    memory: dict[int, list[tuple[float, int]]] = field(default_factory=dict)  # start -> samples

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/slack/events"

    @property
    def name(self) -> str:
        return f"{self.platform}-{self.index}"

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _process_with_port(port: int, pids: list[int]) -> int | None:
    """Return which of ``pids`` holds the local TCP port ``port`` (from /proc), if any."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in inodes:
                        return pid
        except OSError:
            continue
    return None


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class Soak:
    """Run the soak described by a Config and return its report."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.rng = random.Random(config.seed)  # noqa: S311 (a reproducible run, not a secret)
        self.out = config.out
        self.clock: ScaledClock | None = None
        self.pg_dir = self.out / "pg"
        self.url = ""
        self.served: ThreadedFake[FakeSlack] | None = None
        self.replicas: list[Replica] = []  # Slack
        self.shards: list[Replica] = []  # Discord
        self.discord: ThreadedFake[FakeDiscord] | None = None
        self.discord_channels: dict[str, dict[str, Any]] = {}  # channel id -> its settings
        self.discord_seen: set[int] = set()
        self.finished = False  # the members stopped: a fault still waiting gives up
        self.driver_errors: list[str] = []  # the soak's own failures: the run proves nothing
        self.sim_ready: dt.datetime | None = None  # when every process had started
        self.clicks: list[Click] = []
        self.faults: list[dict[str, Any]] = []
        self.connections: list[int] = []
        self.channels: dict[str, dict[str, Any]] = {}  # Slack channel id -> its settings
        self.seen_posts: set[str] = set()
        self.post_seen_at: dict[str, dt.datetime] = {}  # post ts -> simulated time first seen
        self.round_posts: dict[int, Shown] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.turn = 0

    # ------------------------------------------------------------ set-up

    def setup(self) -> None:
        if self.pg_dir.exists():
            subprocess.run([str(PG_SCRIPT), "stop", str(self.pg_dir)], check=False)
        self.out.mkdir(parents=True, exist_ok=True)
        for old in self.out.glob("*.log"):
            old.unlink()
        self.url = subprocess.run([str(PG_SCRIPT), "start", str(self.pg_dir)], check=True,
                                  capture_output=True, text=True).stdout.strip()
        upgrade(self.url)
        # The simulated clock stands at SIM_START until every process has had time to start
        # (four Python processes on a busy 2-core machine: tens of seconds), then runs.
        self.clock = ScaledClock(SIM_START, self.config.speed,
                                 time.time() + self.config.startup_s)
        engine = make_engine(self.url)
        try:
            store = SqlStore(engine, clock=self.clock)
            for n in range(self.config.channels):
                channel_id = f"C0SOAK{n:03d}"
                workspace = f"T0SOAK{n % self.config.workspaces}"
                zone = ZONES[n % len(ZONES)]
                post_time = POST_TIMES[(n // len(ZONES)) % len(POST_TIMES)]
                stored = store.ensure_channel("slack", channel_id, workspace, ChannelDefaults(
                    name=f"soak-{n}", timezone=zone, post_time=post_time))
                if n % 2 == 0:  # the board on Sunday 10:00 (a one-day run sees it); else Friday
                    stored = store.update_channel(stored.id, ChannelUpdate(
                        leaderboard_weekday=6, leaderboard_hour=10))
                self.channels[channel_id] = {
                    "id": stored.id, "workspace": workspace, "zone": zone,
                    "post_time": post_time, "board": (stored.leaderboard_weekday,
                                                      stored.leaderboard_hour)}
                fake_slack.CHANNELS[channel_id] = f"soak-{n}"
            if self.config.discord:
                # One server on each of two shards ((guild id >> 22) % 2), as the fake routes.
                for channel_id, guild, zone, post_time in (
                        (fake_discord.GENERAL, fake_discord.GUILD_ID, "America/Los_Angeles",
                         dt.time(9, 0)),
                        (fake_discord.OTHER_GENERAL, fake_discord.OTHER_GUILD_ID, "Asia/Tokyo",
                         dt.time(12, 30))):
                    stored = store.ensure_channel("discord", str(channel_id), str(guild),
                                                  ChannelDefaults(name="general", timezone=zone,
                                                                  post_time=post_time))
                    self.discord_channels[str(channel_id)] = {
                        "id": stored.id, "workspace": str(guild), "zone": zone,
                        "post_time": post_time}
        finally:
            engine.dispose()
        if self.config.discord:
            self.discord = ThreadedFake(FakeDiscord)
            self.discord.call(lambda: self.discord.fake.guild_ids.append(  # type: ignore[union-attr]
                fake_discord.OTHER_GUILD_ID))
            for index, shards in enumerate(("0/2", "1/2")):
                self.shards.append(Replica(index, 0, self.out / f"discord-{index}",
                                           platform="discord", shards=shards))
        self.served = ThreadedFake(FakeSlack)
        self.served.call(lambda: self.fake.member_channels.update(self.channels))
        for index in range(self.config.replicas):
            self.replicas.append(Replica(index, _free_port(), self.out / f"replica-{index}"))

    @property
    def fake(self) -> FakeSlack:
        assert self.served is not None
        return self.served.fake

    @property
    def processes(self) -> list[Replica]:
        return self.replicas + self.shards

    def env(self, replica: Replica) -> dict[str, str]:
        assert self.clock is not None
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("SLACK_", "DISCORD_", "TORCHQUIZ_"))}
        if replica.platform == "discord":
            assert self.discord is not None
            env.update({"DISCORD_TOKEN": "good-token", "DISCORD_API_URL": self.discord.fake.api_url,
                        "TORCHQUIZ_DISCORD_SHARDS": replica.shards, "TORCHQUIZ_HEALTH_PORT": "0"})
        else:
            env.update({"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                        "SLACK_API_URL": self.fake.api_url})
        env.update({
            "TORCHQUIZ_DATABASE_URL": self.url,
            "TORCHQUIZ_DATA_DIR": str(replica.data_dir), "TORCHQUIZ_EXECUTOR": "none",
            "TORCHQUIZ_LOG_LEVEL": "INFO",
            "TORCHQUIZ_SOAK_CLOCK": (f"{self.clock.start.isoformat()} x{self.clock.speed:g} "
                                     f"@{self.clock.anchor:.3f}"),
            # A claim's lease is clock time: 30 real seconds, as long as a stuck post may take.
            "TORCHQUIZ_POST_LEASE_S": str(30 * self.config.speed),
            # Members click many rounds in a few real seconds: the per-member command limit is
            # real time and would refuse them; it has its own tests.
            "TORCHQUIZ_RATE_COMMANDS_PER_10S": "0",
            # As deployed (deploy/, docker-compose.yml): charts' memory is taken at start, so
            # "flat after warm-up" is about leaks, not about when the first board was drawn.
            "TORCHQUIZ_CHARTS_PRELOAD": "true",
        })
        return env

    def start(self, replica: Replica) -> None:
        replica.data_dir.mkdir(parents=True, exist_ok=True)
        replica.starts += 1
        log = self.out / f"{replica.name}-start{replica.starts}.log"
        replica.logs.append(log)
        command = (["discord"] if replica.platform == "discord"
                   else ["slack", "--http", "--port", str(replica.port)])
        with log.open("wb") as sink:
            replica.process = subprocess.Popen(
                [sys.executable, "-m", "bot.cli", *command], env=self.env(replica), cwd=REPO,
                stdout=sink, stderr=subprocess.STDOUT)
        replica.memory[replica.starts] = []

    def wait_started(self, replica: Replica, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        log = replica.logs[-1]
        while "scheduler started" not in log.read_text(errors="replace"):
            if replica.process is None or replica.process.poll() is not None:
                raise RuntimeError(f"{replica.name} exited:\n"
                                   f"{log.read_text(errors='replace')[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{replica.name} never started")
            time.sleep(0.2)

    def kill(self, replica: Replica, why: str) -> None:
        process = replica.process  # the supervisor may start a new one as soon as it is gone
        assert process is not None
        self.fault("kill -9", f"{replica.name}: {why}")
        process.send_signal(signal.SIGKILL)
        process.wait(30)

    def fault(self, kind: str, detail: str) -> None:
        assert self.clock is not None
        self.faults.append({"kind": kind, "detail": detail,
                            "at": self.clock.now().isoformat(timespec="minutes")})

    # ------------------------------------------------------------ the members

    def sim_now(self) -> dt.datetime:
        assert self.clock is not None
        return self.clock.now()

    def sim_delay(self, hours: float) -> float:
        """Return the real seconds ``hours`` of simulated time take."""
        return hours * 3600 / self.config.speed

    def members_of(self, workspace: str) -> list[str]:
        number = int(workspace.removeprefix("T0SOAK"))
        return [f"member{number * 100 + m}" for m in range(self.config.members)]

    def new_round_posts(self) -> list[Shown]:
        """Return round posts that appeared in the fake since the last look."""
        def look() -> list[Shown]:
            return [s for s in self.fake.shown if s.kind == "post" and s.channel in self.channels
                    and any(a.startswith("tq:answer:") for a in s.actions)
                    and s.ts not in self.seen_posts]
        def others() -> list[Shown]:
            return [s for s in self.fake.shown if s.kind == "post" and s.channel in self.channels
                    and s.ts not in self.post_seen_at]
        now = self.sim_now()
        for post in self.served.call(others) if self.served else []:
            self.post_seen_at[post.ts] = now
        fresh = self.served.call(look) if self.served else []
        for post in fresh:
            self.seen_posts.add(post.ts)
        return fresh

    async def send_click(self, senders: list[Sender], post: Shown, action: str, member: str,
                         kind: str) -> None:
        round_id = int(action.split(":")[2])
        workspace = self.channels[post.channel]["workspace"]
        for _ in range(len(senders)):
            self.turn += 1
            index = self.turn % len(senders)
            if not self.replicas[index].alive():
                continue
            sent_at = self.sim_now()
            try:
                delivery = await senders[index].click(post, action, member, team=workspace)
                status = delivery.status
            except (TimeoutError, aiohttp.ClientError):
                status = 0  # the replica died with the request: Slack shows the member an error
            self.clicks.append(Click(round_id, post.channel, member, action, sent_at, index,
                                     status, kind))
            return

    async def answer_round(self, senders: list[Sender], post: Shown) -> None:
        """The channel's members answer a round over its first hours, some twice, some late."""
        choices = [a for a in post.actions if a.startswith("tq:answer:")]
        workspace = self.channels[post.channel]["workspace"]
        members = self.members_of(workspace)
        answering = self.rng.sample(members, k=max(1, len(members) // 3))
        plans: list[tuple[float, str, str, str]] = []
        for member in answering:
            at = self.rng.uniform(0.05, 6.0)  # simulated hours after the post
            roll = self.rng.random()
            plans.append((at, member, self.rng.choice(choices), "first"))
            if roll < 0.2:  # a double click: the same button at once
                plans.append((at + 0.01, member, plans[-1][2], "repeat"))
            elif roll < 0.4:  # another try later (a second attempt when the first was wrong)
                plans.append((at + self.rng.uniform(0.1, 2.0), member,
                              self.rng.choice(choices), "repeat"))
        for member in self.rng.sample(members, k=max(1, len(members) // 10)):
            plans.append((24.5, member, self.rng.choice(choices), "late"))  # after the close
        plans.sort()
        started = time.monotonic()
        for at, member, action, kind in plans:
            wait = started + self.sim_delay(at) - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            await self.send_click(senders, post, action, member, kind)

    def new_discord_posts(self) -> list[dict[str, Any]]:
        """Return Discord round posts that appeared since the last look."""
        if self.discord is None:
            return []
        fake = self.discord.fake

        def look() -> list[dict[str, Any]]:
            return [dict(fake.messages[i]) for i in fake.posted
                    if i not in self.discord_seen
                    and fake.messages[i]["channel_id"] in self.discord_channels
                    and any(c.startswith("tq:answer:")
                            for c in fake_discord.custom_ids(fake.messages[i]))]
        fresh = self.discord.call(look)
        for message in fresh:
            self.discord_seen.add(int(message["id"]))
        return fresh

    async def answer_discord_round(self, message: dict[str, Any]) -> None:
        """Members of the server click a Discord round's buttons, as on Slack."""
        assert self.discord is not None
        served = self.discord
        choices = [c for c in fake_discord.custom_ids(message) if c.startswith("tq:answer:")]
        members = [f"member{9000 + m}" for m in range(self.config.members)]
        plans: list[tuple[float, str, str, str]] = []
        for member in self.rng.sample(members, k=max(1, len(members) // 3)):
            at = self.rng.uniform(0.05, 6.0)
            plans.append((at, member, self.rng.choice(choices), "first"))
            if self.rng.random() < 0.2:
                plans.append((at + 0.01, member, plans[-1][2], "repeat"))
        plans.sort()
        started = time.monotonic()
        for at, member, custom_id, kind in plans:
            wait = started + self.sim_delay(at) - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            sent_at = self.sim_now()
            future = asyncio.run_coroutine_threadsafe(
                served.fake.click(int(message["id"]), custom_id, member, shown=message),
                served.loop)
            record = await asyncio.wrap_future(future)
            deadline = time.monotonic() + 10
            while not record.callbacks and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            # Discord's acknowledgement is the interaction's first callback, within 3 s.
            status = 200 if record.callbacks and not record.late else 0
            self.clicks.append(Click(int(custom_id.split(":")[2]), message["channel_id"], member,
                                     custom_id, sent_at, -1, status, kind, "discord"))

    # ------------------------------------------------------------ the run

    def spawn(self, work: Any) -> None:
        """Run a member's work as a task; a failure of this driver is reported, not hidden."""
        task = asyncio.create_task(work)
        self.tasks.add(task)

        def done(finished: asyncio.Task[None]) -> None:
            self.tasks.discard(finished)
            if not finished.cancelled() and finished.exception() is not None:
                self.driver_errors.append(repr(finished.exception()))
        task.add_done_callback(done)

    async def drive(self) -> None:
        assert self.clock is not None
        end = self.clock.start + dt.timedelta(days=self.config.days)
        senders = [Sender(self.fake, r.url) for r in self.replicas]
        schedule = self.fault_schedule() if self.config.faults else []
        next_sample = 0.0
        try:
            while self.sim_now() < end:
                for post in self.new_round_posts():
                    self.spawn(self.answer_round(senders, post))
                for message in self.new_discord_posts():
                    self.spawn(self.answer_discord_round(message))
                while schedule and self.sim_now() >= schedule[0][0]:
                    _, action = schedule.pop(0)
                    self.spawn(asyncio.to_thread(action))  # the members go on meanwhile
                if time.monotonic() >= next_sample:
                    await asyncio.to_thread(self.sample)
                    next_sample = time.monotonic() + 2.0
                for replica in self.processes:
                    if not replica.alive():  # a supervisor restarts a dead replica
                        self.restart(replica)
                await asyncio.sleep(0.1)
            self.finished = True
            for task in list(self.tasks):
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)
        finally:
            for sender in senders:
                await sender.close()

    def restart(self, replica: Replica) -> None:
        self.start(replica)  # not waited for: the others go on meanwhile, as in production

    def fault_schedule(self) -> list[tuple[dt.datetime, Any]]:
        """Return (simulated time, action) pairs spread over the run, in order."""
        assert self.clock is not None
        start, days = self.clock.start, self.config.days

        def at(fraction: float) -> dt.datetime:
            return start + dt.timedelta(days=days * fraction)

        def kill_while_posting() -> None:
            # Hold the next post unanswered (as if accepted), wait for a replica to send it,
            # then kill that replica: the post reached Slack, its answer never came back.
            self.served.call(lambda: self.fake.hold("chat.postMessage", accepted=True))
            deadline = time.monotonic() + self.sim_delay(26)
            while time.monotonic() < deadline and not self.finished:
                if self.served.call(lambda: "chat.postMessage" not in self.fake._holds):
                    break
                time.sleep(0.05)
            else:
                self.served.call(lambda: self.fake._holds.pop("chat.postMessage", None))
                return
            # Kill the replica that sent it (its end of the connection), nothing else: the
            # other one takes the claim over after the lease and finds the post.
            port = self.served.call(lambda: [c.peer_port for c in self.fake.calls
                                             if c.method == "chat.postMessage"][-1])
            alive = {r.process.pid: r for r in self.replicas if r.alive() and r.process}
            owner = _process_with_port(port, list(alive))
            if owner is not None:
                self.kill(alive[owner], "while its round's post was in flight")

        def burst(times: int) -> None:
            # Three are absorbed by the client's retries (bot/adapters/slack/replies.py); five
            # make it give up: the claim stays and the post goes out after its lease.
            self.served.call(lambda: self.fake.rate_limit("chat.postMessage", retry_after=2,
                                                          times=times))
            self.fault("429 burst", f"chat.postMessage: {times} answers of 429, Retry-After 2")

        def pg_restart() -> None:
            subprocess.run([str(PG_SCRIPT), "restart", str(self.pg_dir)], check=True)
            self.fault("PostgreSQL restart", "pg_ctl restart -m fast")

        plan: list[tuple[dt.datetime, Any]] = [
            (at(0.15), lambda: burst(3)),
            (at(0.25), lambda: self.kill(self.replicas[0], "at a random moment")),
            (at(0.40), lambda: burst(5)),
            (at(0.45), pg_restart),
            (at(0.50), lambda: kill_while_posting()),
            (at(0.70), lambda: self.kill(self.replicas[1], "at a random moment")),
            *([(at(0.35), lambda: self.kill(self.shards[0], "at a random moment")),
               (at(0.75), lambda: self.kill(self.shards[1], "at a random moment"))]
              if self.shards else []),
            (at(0.80), pg_restart),
        ]
        return sorted(plan, key=lambda step: step[0])

    def sample(self) -> None:
        now = time.monotonic()
        for replica in self.processes:
            if replica.alive():
                assert replica.process is not None
                replica.memory[replica.starts].append((now, _rss_kib(replica.process.pid)))
        try:
            engine = make_engine(self.url)
            try:
                with engine.connect() as connection:
                    count = connection.scalar(text(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"))
                    self.connections.append(int(count or 0))
            finally:
                engine.dispose()
        except Exception as exc:  # a PostgreSQL restart in progress: no sample this time
            print(f"soak: no connection sample ({type(exc).__name__})", file=sys.stderr)

    def stop(self) -> None:
        for replica in self.processes:
            if replica.alive():
                assert replica.process is not None
                replica.process.terminate()
                try:
                    replica.process.wait(30)
                except subprocess.TimeoutExpired:
                    replica.process.kill()
                    replica.process.wait(30)

    def close(self) -> None:
        self.stop()
        if self.served is not None:
            self.served.close()
        if self.discord is not None:
            self.discord.close()
        subprocess.run([str(PG_SCRIPT), "stop", str(self.pg_dir)], check=False)

    # ------------------------------------------------------------ the invariants

    def check(self) -> dict[str, Any]:
        assert self.clock is not None
        violations: list[str] = []
        # The run's planned end: the processes ran a little longer while the driver stopped.
        end = min(self.sim_now(), self.clock.start + dt.timedelta(days=self.config.days))
        posts = self.served.call(lambda: [s for s in self.fake.shown
                                          if s.channel in self.channels]) if self.served else []
        discord_posts = self.discord.call(lambda: [
            dict(m) for m in (self.discord.fake.messages[i]  # type: ignore[union-attr]
                              for i in self.discord.fake.posted)  # type: ignore[union-attr]
            if m["channel_id"] in self.discord_channels]) if self.discord else []
        calls = self.served.call(lambda: [(c.method, c.status) for c in self.fake.calls])
        engine = make_engine(self.url)
        try:
            store = SqlStore(engine, clock=self.clock)
            with engine.connect() as connection:
                rounds = connection.execute(text(
                    "SELECT r.id, c.external_id, r.local_date, r.message_ref, r.opened_at, "
                    "r.closes_at, r.post_claimed_at "
                    "FROM rounds r JOIN channels c ON c.id = r.channel_id")).all()
                answers = connection.execute(text(
                    "SELECT a.round_id, u.external_id, a.attempt, a.submitted_at "
                    "FROM answers a JOIN users u ON u.id = a.user_id")).all()
            round_by_id = {r.id: r for r in rounds}
            # 1. Every channel's round posted exactly once per local date, none missing.
            posted: Counter[int] = Counter()
            for post in posts:
                if post.kind == "post" and post.thread_ts == "":
                    ids = {int(a.split(":")[2]) for a in post.actions
                           if a.startswith(("tq:answer:", "tq:form:"))}
                    for round_id in ids:
                        posted[round_id] += 1
            for message in discord_posts:
                ids = {int(c.split(":")[2]) for c in fake_discord.custom_ids(message)
                       if c.startswith(("tq:answer:", "tq:form:"))}
                for round_id in ids:
                    posted[round_id] += 1
            for round_id, count in posted.items():
                if count != 1:
                    violations.append(f"round {round_id} was posted {count} times")
            # A claim whose lease has not run out by the end may still be retried: in flight,
            # whether its post went out or not (a replica killed between the platform's
            # accepting the post and recording it leaves the post to be found by the replica
            # that takes the claim over after the lease).
            lease = dt.timedelta(seconds=30 * self.config.speed) + dt.timedelta(hours=1)
            in_flight = [r for r in rounds if r.message_ref is None
                         and (r.post_claimed_at or r.opened_at) > end - lease]
            for row in rounds:
                if row in in_flight:
                    continue
                if row.message_ref is None and posted[row.id] == 0:
                    violations.append(f"round {row.id} ({row.external_id} {row.local_date}) "
                                      "was claimed but never posted")
                elif row.message_ref is None:
                    violations.append(f"round {row.id} was posted but its post never recorded")
            dates = {(r.external_id, r.local_date) for r in rounds}
            for channel, info in {**self.channels, **self.discord_channels}.items():
                for day in self.due_dates(info, end):
                    if (channel, day) not in dates:
                        violations.append(f"{channel} ({info['zone']}) has no round for {day}")
            # 2. Every acknowledged answer stored exactly once.
            stored: dict[tuple[int, str], list[int]] = defaultdict(list)
            for a in answers:
                stored[(a.round_id, a.external_id)].append(a.attempt)
            acked: dict[tuple[int, str], list[Click]] = defaultdict(list)
            for click in self.clicks:
                if click.status == 200:
                    platform_user = (fake_discord.user if click.platform == "discord"
                                     else fake_slack.user)
                    acked[(click.round_id, platform_user(click.member)["id"])].append(click)
            for key, attempts in stored.items():
                if sorted(attempts) != list(range(1, len(attempts) + 1)):
                    violations.append(f"round {key[0]} member {key[1]}: attempts {attempts}")
                if len(attempts) > len(acked.get(key, [])):
                    violations.append(f"round {key[0]} member {key[1]}: {len(attempts)} answers"
                                      f" stored for {len(acked.get(key, []))} acknowledged clicks")
            for key, clicked in acked.items():
                row = round_by_id.get(key[0])
                in_time = [c for c in clicked if row is not None and c.sent_at < row.closes_at
                           - dt.timedelta(minutes=30)]  # well before the close, as sent
                if in_time and not stored.get(key):
                    violations.append(f"round {key[0]} member {key[1]}: {len(in_time)} "
                                      "acknowledged clicks in time, no answer stored")
            for a in answers:
                row = round_by_id[a.round_id]
                if a.submitted_at > row.closes_at:
                    violations.append(f"round {a.round_id}: an answer stored after the close")
            # 3. Boards equal a recount (all time and this week).
            for info in [*self.channels.values(), *self.discord_channels.values()]:
                since_week = week_start(end, info["zone"])
                for since in (None, since_week):
                    recount = [r for r in store.scores(info["id"], since) if r.points > 0]
                    if store.top_scores(info["id"], since, None) != recount:
                        violations.append(f"channel {info['id']}: the board since {since} "
                                          "differs from a recount")
            # 4. One weekly post per channel per week.
            weekly: Counter[tuple[str, str]] = Counter()
            for post in posts:
                if post.kind == "post" and post.thread_ts == "" and not post.actions \
                        and self.is_board(post):
                    posted_at = self.posted_at(post)
                    zone = ZoneInfo(self.channels[post.channel]["zone"])
                    week = posted_at.astimezone(zone).strftime("%G-W%V")
                    weekly[(post.channel, week)] += 1
            for (channel, week), count in weekly.items():
                if count > 1:
                    violations.append(f"{channel}: {count} weekly posts in {week}")
            for channel, info in self.channels.items():
                for week in self.due_weeks(info, end):
                    if weekly[(channel, week)] == 0:
                        violations.append(f"{channel}: no weekly post in {week}")
        finally:
            engine.dispose()
        violations += [f"the soak driver failed: {e}" for e in self.driver_errors]
        # 5. No 5xx, from the replicas or asked of the fake; no traceback in any log.
        for click in self.clicks:
            if click.status >= 500:
                violations.append(f"a click got HTTP {click.status} from replica {click.replica}")
        logs = [log for replica in self.processes for log in replica.logs]
        tracebacks: list[str] = []
        for log in logs:
            lines = log.read_text(errors="replace").splitlines()
            for number, line in enumerate(lines):
                if " ERROR " in line:
                    violations.append(f"{log.name}: {line.strip()[:200]}")
                if line.startswith("Traceback"):
                    tail = next((k for k in range(number + 1, len(lines))
                                 if not lines[k].startswith((" ", "Traceback"))), len(lines))
                    violations.append(f"{log.name}: a traceback ending {lines[tail][:200]!r}"
                                      if tail < len(lines) else f"{log.name}: a traceback")
                    tracebacks.append("\n".join(lines[number:tail + 1]))
        # 6. Memory flat after warm-up; 7. connections within the budget.
        peaks: dict[str, int] = {}
        for replica in self.processes:
            for start, samples in replica.memory.items():
                name = f"{replica.name}-start{start}"
                if not samples:
                    continue
                peaks[name] = max(rss for _, rss in samples)
                if len(samples) < MIN_MEMORY_SAMPLES:
                    continue  # too short a life to call its memory flat or not
                # Warm-up: the first third (the first rounds, clicks and boards import and
                # cache what a process keeps).
                warm = samples[len(samples) // 3][1]
                late = max(rss for _, rss in samples[len(samples) // 3:])
                if late > warm * (1 + MEMORY_GROWTH_LIMIT):
                    violations.append(f"{name}: memory grew {warm} -> {late} KiB after warm-up")
        budget = len(self.processes) * POOL_PER_PROCESS + OWN_CONNECTIONS
        if self.connections and max(self.connections) > budget:
            violations.append(f"{max(self.connections)} PostgreSQL connections > budget {budget}")
        api_5xx = [c for c in calls if c[1] >= 500]
        return {
            "days": self.config.days, "speed": self.config.speed,
            "simulated": {"from": self.clock.start.isoformat(), "to": end.isoformat()},
            "channels": len(self.channels), "workspaces": self.config.workspaces,
            "members": self.config.members * self.config.workspaces,
            "zones": sorted({c["zone"] for c in self.channels.values()}),
            "replicas": self.config.replicas,
            "discord_shard_processes": len(self.shards),
            "discord_channels": len(self.discord_channels),
            "rounds": len(rounds), "rounds_posted": sum(1 for r in rounds if r.message_ref),
            "rounds_in_flight_at_end": len(in_flight),
            "answers": len(answers),
            "clicks": dict(Counter(c.kind for c in self.clicks)),
            "clicks_unanswered": sum(1 for c in self.clicks if c.status == 0),
            "weekly_posts": sum(weekly.values()),
            "api_calls": len(calls), "api_429": sum(1 for c in calls if c[1] == 429),
            "api_5xx": len(api_5xx),
            "faults": self.faults,
            "peak_memory_kib": peaks,
            "connections": {"peak": max(self.connections, default=0), "budget": budget,
                            "samples": len(self.connections)},
            "violations": violations,
            "tracebacks": tracebacks,
        }

    def due_dates(self, info: dict[str, Any], end: dt.datetime) -> list[dt.date]:
        """Return the local dates whose post time fell inside the run (less the start-up)."""
        assert self.clock is not None
        zone = ZoneInfo(info["zone"])
        # Posts due before every process had started may be skipped (more than the grace late).
        first = (self.sim_ready or self.clock.start) + dt.timedelta(minutes=30)
        last = end - dt.timedelta(hours=1)  # a post due just now may be in flight
        day = first.astimezone(zone).date()
        found = []
        while day <= last.astimezone(zone).date():
            due = dt.datetime.combine(day, info["post_time"], tzinfo=zone)
            if first <= due <= last:
                found.append(day)
            day += dt.timedelta(days=1)
        return found

    def due_weeks(self, info: dict[str, Any], end: dt.datetime) -> list[str]:
        """Return the ISO weeks whose board time fell inside the run (less the start-up)."""
        assert self.clock is not None
        zone = ZoneInfo(info["zone"])
        first = (self.sim_ready or self.clock.start) + dt.timedelta(minutes=30)
        last = end - dt.timedelta(hours=1)
        weekday, hour = info["board"]
        found = []
        day = first.astimezone(zone).date()
        while day <= last.astimezone(zone).date():
            due = dt.datetime.combine(day, dt.time(hour), tzinfo=zone)
            if day.weekday() == weekday and first <= due <= last:
                found.append(day.strftime("%G-W%V"))
            day += dt.timedelta(days=1)
        return found

    def is_board(self, post: Shown) -> bool:
        titles = [t(locale, "leaderboard.weekly", week="").rstrip() for locale in ("en", "zh-CN")]
        return any(title in post.shown_text for title in titles)

    def posted_at(self, post: Shown) -> dt.datetime:
        # The fake's ts is a counter, not a time: the clock's time when this run first saw it.
        return self.post_seen_at.get(post.ts) or self.sim_now()

    # ------------------------------------------------------------ the whole run

    def run(self) -> dict[str, Any]:
        started = time.monotonic()
        try:
            self.setup()
            for replica in self.processes:
                self.start(replica)
            for replica in self.processes:
                self.wait_started(replica)
            self.sim_ready = self.sim_now()
            asyncio.run(self.drive())
            self.stop()
            report = self.check()
        finally:
            self.close()
        report["wall_s"] = round(time.monotonic() - started, 1)
        return report


def markdown(report: dict[str, Any]) -> str:
    """Return the report's short table."""
    peak = max(report["peak_memory_kib"].values(), default=0)
    rows = [
        ("simulated days", f"{report['days']:g} ({report['simulated']['from'][:16]} to "
                           f"{report['simulated']['to'][:16]} UTC, x{report['speed']:g})"),
        ("wall time", f"{report['wall_s']} s"),
        ("channels / workspaces / zones", f"{report['channels']} / {report['workspaces']} / "
                                          f"{len(report['zones'])}"),
        ("Slack replicas / Discord shard processes",
         f"{report['replicas']} / {report['discord_shard_processes']}"),
        ("rounds (posted)", f"{report['rounds']} ({report['rounds_posted']})"),
        ("answers stored", str(report["answers"])),
        ("clicks sent", ", ".join(f"{k} {v}" for k, v in sorted(report["clicks"].items()))),
        ("clicks lost with a killed replica", str(report["clicks_unanswered"])),
        ("weekly posts", str(report["weekly_posts"])),
        ("faults injected", str(len(report["faults"])) + (
            " (" + ", ".join(f"{k} {v}" for k, v in sorted(Counter(
                f["kind"] for f in report["faults"]).items())) + ")" if report["faults"] else "")),
        ("invariant violations", str(len(report["violations"]))),
        ("peak memory of a replica", f"{peak / 1024:.0f} MiB"),
        ("PostgreSQL connections (peak / budget)",
         f"{report['connections']['peak']} / {report['connections']['budget']}"),
    ]
    lines = ["| measure | value |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)]
    if report["violations"]:
        lines += ["", "Violations:", *(f"- {v}" for v in report["violations"][:50])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="soak", description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=30.0)
    parser.add_argument("--speed", type=float, default=720.0,
                        help="simulated seconds per real second (720: 30 days in an hour)")
    parser.add_argument("--out", type=Path, default=REPO / "var" / "soak")
    parser.add_argument("--channels", type=int, default=10)
    parser.add_argument("--no-faults", action="store_true")
    parser.add_argument("--no-discord", action="store_true")
    args = parser.parse_args(argv)
    config = Config(days=args.days, speed=args.speed, out=args.out.resolve(),
                    channels=args.channels, faults=not args.no_faults,
                    discord=not args.no_discord)
    report = Soak(config).run()
    (config.out / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    table = markdown(report)
    (config.out / "report.md").write_text(table)
    print(table)
    return 1 if report["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
