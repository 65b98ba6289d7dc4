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
import datetime as dt
import json
import os
import random
import re
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
from bot.core.kernel.models import ChannelDefaults, week_start
from db.engine import make_engine
from db.migrate import upgrade
from db.store import SqlStore
from tests import fake_slack
from tests.adapters.processes import ThreadedFake
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
    faults: bool = True
    seed: int = 29


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


@dataclass
class Replica:
    """One `torchquiz slack --http` process slot: restarted under the same port after a kill."""

    index: int
    port: int
    data_dir: Path
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0
    logs: list[Path] = field(default_factory=list)
    memory: dict[int, list[tuple[float, int]]] = field(default_factory=dict)  # start -> samples

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/slack/events"

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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
        self.replicas: list[Replica] = []
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
        # The simulated clock starts a few seconds from now, once the set-up is done.
        self.clock = ScaledClock(SIM_START, self.config.speed, time.time() + 2.0)
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
                self.channels[channel_id] = {"id": stored.id, "workspace": workspace,
                                             "zone": zone, "post_time": post_time}
                fake_slack.CHANNELS[channel_id] = f"soak-{n}"
        finally:
            engine.dispose()
        self.served = ThreadedFake(FakeSlack)
        self.served.call(lambda: self.fake.member_channels.update(self.channels))
        for index in range(self.config.replicas):
            self.replicas.append(Replica(index, _free_port(), self.out / f"replica-{index}"))

    @property
    def fake(self) -> FakeSlack:
        assert self.served is not None
        return self.served.fake

    def env(self, replica: Replica) -> dict[str, str]:
        assert self.clock is not None
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("SLACK_", "DISCORD_", "TORCHQUIZ_"))}
        env.update({
            "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": self.fake.api_url, "TORCHQUIZ_DATABASE_URL": self.url,
            "TORCHQUIZ_DATA_DIR": str(replica.data_dir), "TORCHQUIZ_EXECUTOR": "none",
            "TORCHQUIZ_LOG_LEVEL": "INFO",
            "TORCHQUIZ_SOAK_CLOCK": (f"{self.clock.start.isoformat()} x{self.clock.speed:g} "
                                     f"@{self.clock.anchor:.3f}"),
            # A claim's lease is clock time: 30 real seconds, as long as a stuck post may take.
            "TORCHQUIZ_POST_LEASE_S": str(30 * self.config.speed),
            # Members click many rounds in a few real seconds: the per-member command limit is
            # real time and would refuse them; it has its own tests.
            "TORCHQUIZ_RATE_COMMANDS_PER_10S": "0",
        })
        return env

    def start(self, replica: Replica) -> None:
        replica.data_dir.mkdir(parents=True, exist_ok=True)
        replica.starts += 1
        log = self.out / f"slack-{replica.index}-start{replica.starts}.log"
        replica.logs.append(log)
        with log.open("wb") as sink:
            replica.process = subprocess.Popen(
                [sys.executable, "-m", "bot.cli", "slack", "--http", "--port",
                 str(replica.port)], env=self.env(replica), cwd=REPO, stdout=sink,
                stderr=subprocess.STDOUT)
        replica.memory[replica.starts] = []

    def wait_started(self, replica: Replica, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        log = replica.logs[-1]
        while "scheduler started" not in log.read_text(errors="replace"):
            if replica.process is None or replica.process.poll() is not None:
                raise RuntimeError(f"replica {replica.index} exited:\n"
                                   f"{log.read_text(errors='replace')[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"replica {replica.index} never started")
            time.sleep(0.2)

    def kill(self, replica: Replica, why: str) -> None:
        assert replica.process is not None
        replica.process.send_signal(signal.SIGKILL)
        replica.process.wait(30)
        self.fault("kill -9", f"replica {replica.index}: {why}")

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

    # ------------------------------------------------------------ the run

    async def drive(self) -> None:
        assert self.clock is not None
        end = self.clock.start + dt.timedelta(days=self.config.days)
        senders = [Sender(self.fake, r.url) for r in self.replicas]
        schedule = self.fault_schedule() if self.config.faults else []
        next_sample = 0.0
        try:
            while self.sim_now() < end:
                for post in self.new_round_posts():
                    task = asyncio.create_task(self.answer_round(senders, post))
                    self.tasks.add(task)
                    task.add_done_callback(self.tasks.discard)
                while schedule and self.sim_now() >= schedule[0][0]:
                    _, action = schedule.pop(0)
                    await asyncio.to_thread(action)
                if time.monotonic() >= next_sample:
                    await asyncio.to_thread(self.sample)
                    next_sample = time.monotonic() + 2.0
                for replica in self.replicas:
                    if not replica.alive():  # a supervisor restarts a dead replica
                        await asyncio.to_thread(self.restart, replica)
                await asyncio.sleep(0.1)
            for task in list(self.tasks):
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)
        finally:
            for sender in senders:
                await sender.close()

    def restart(self, replica: Replica) -> None:
        self.start(replica)
        self.wait_started(replica)

    def fault_schedule(self) -> list[tuple[dt.datetime, Any]]:
        """Return (simulated time, action) pairs spread over the run, in order."""
        assert self.clock is not None
        start, days = self.clock.start, self.config.days

        def at(fraction: float) -> dt.datetime:
            return start + dt.timedelta(days=days * fraction)

        def kill_while_posting(replica: Replica) -> None:
            # Hold the next post unanswered (as if accepted), wait for a replica to send it,
            # then kill that replica: the post reached Slack, its answer never came back.
            self.served.call(lambda: self.fake.hold("chat.postMessage", accepted=True))
            deadline = time.monotonic() + self.sim_delay(26)
            while time.monotonic() < deadline:
                if self.served.call(lambda: "chat.postMessage" not in self.fake._holds):
                    break
                time.sleep(0.05)
            else:
                self.served.call(lambda: self.fake._holds.pop("chat.postMessage", None))
                return
            for each in self.replicas:  # which replica posts is the claim's: kill both
                if each.alive():
                    self.kill(each, "while a round's post was in flight")

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
            (at(0.50), lambda: kill_while_posting(self.replicas[1])),
            (at(0.70), lambda: self.kill(self.replicas[1], "at a random moment")),
            (at(0.80), pg_restart),
        ]
        return plan

    def sample(self) -> None:
        now = time.monotonic()
        for replica in self.replicas:
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
        for replica in self.replicas:
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
        subprocess.run([str(PG_SCRIPT), "stop", str(self.pg_dir)], check=False)

    # ------------------------------------------------------------ the invariants

    def check(self) -> dict[str, Any]:
        assert self.clock is not None
        violations: list[str] = []
        end = self.sim_now()
        posts = self.served.call(lambda: [s for s in self.fake.shown
                                          if s.channel in self.channels]) if self.served else []
        calls = self.served.call(lambda: [(c.method, c.status) for c in self.fake.calls])
        engine = make_engine(self.url)
        try:
            store = SqlStore(engine, clock=self.clock)
            with engine.connect() as connection:
                rounds = connection.execute(text(
                    "SELECT r.id, c.external_id, r.local_date, r.message_ref, r.opened_at, "
                    "r.closes_at FROM rounds r JOIN channels c ON c.id = r.channel_id "
                    "WHERE c.platform = 'slack'")).all()
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
            for round_id, count in posted.items():
                if count != 1:
                    violations.append(f"round {round_id} was posted {count} times")
            # A claim whose lease has not run out by the end may still be retried: in flight.
            lease = dt.timedelta(seconds=30 * self.config.speed) + dt.timedelta(hours=1)
            in_flight = [r for r in rounds if r.message_ref is None and posted[r.id] == 0
                         and r.opened_at > end - lease]
            for row in rounds:
                if row in in_flight:
                    continue
                if row.message_ref is None and posted[row.id] == 0:
                    violations.append(f"round {row.id} ({row.external_id} {row.local_date}) "
                                      "was claimed but never posted")
                elif row.message_ref is None:
                    violations.append(f"round {row.id} was posted but its post never recorded")
            dates = {(r.external_id, r.local_date) for r in rounds}
            for channel, info in self.channels.items():
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
                    acked[(click.round_id, fake_slack.user(click.member)["id"])].append(click)
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
            for info in self.channels.values():
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
        finally:
            engine.dispose()
        # 5. No 5xx, from the replicas or asked of the fake; no traceback in any log.
        for click in self.clicks:
            if click.status >= 500:
                violations.append(f"a click got HTTP {click.status} from replica {click.replica}")
        logs = [log for replica in self.replicas for log in replica.logs]
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
        for replica in self.replicas:
            for start, samples in replica.memory.items():
                name = f"slack-{replica.index}-start{start}"
                if not samples:
                    continue
                peaks[name] = max(rss for _, rss in samples)
                if len(samples) < 20:
                    continue  # too short a life to call its memory flat or not
                warm = samples[len(samples) // 4][1]
                late = max(rss for _, rss in samples[len(samples) // 4:])
                if late > warm * (1 + MEMORY_GROWTH_LIMIT):
                    violations.append(f"{name}: memory grew {warm} -> {late} KiB after warm-up")
        budget = self.config.replicas * POOL_PER_PROCESS + OWN_CONNECTIONS
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
        first = self.clock.start + dt.timedelta(hours=3)  # the replicas' start takes a while
        last = end - dt.timedelta(hours=1)  # a post due just now may be in flight
        day = first.astimezone(zone).date()
        found = []
        while day <= last.astimezone(zone).date():
            due = dt.datetime.combine(day, info["post_time"], tzinfo=zone)
            if first <= due <= last:
                found.append(day)
            day += dt.timedelta(days=1)
        return found

    def is_board(self, post: Shown) -> bool:
        return bool(re.search(r"leaderboard|排行榜|board", post.shown_text, re.IGNORECASE))

    def posted_at(self, post: Shown) -> dt.datetime:
        # The fake's ts is a counter, not a time: the clock's time when this run first saw it.
        return self.post_seen_at.get(post.ts) or self.sim_now()

    # ------------------------------------------------------------ the whole run

    def run(self) -> dict[str, Any]:
        started = time.monotonic()
        try:
            self.setup()
            for replica in self.replicas:
                self.start(replica)
            for replica in self.replicas:
                self.wait_started(replica)
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
        ("Slack replicas", str(report["replicas"])),
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
    args = parser.parse_args(argv)
    config = Config(days=args.days, speed=args.speed, out=args.out.resolve(),
                    channels=args.channels, faults=not args.no_faults)
    report = Soak(config).run()
    (config.out / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    table = markdown(report)
    (config.out / "report.md").write_text(table)
    print(table)
    return 1 if report["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
