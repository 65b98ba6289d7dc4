"""`torchquiz bench web`: the team's page at the size teams reach, beside chat's own board.

One channel with N answers (the same data set as `torchquiz bench core`) on SQLite and
PostgreSQL. A member signs in by a one-time link as in chat; then the board (this week, all
time, and the topic most of the bank covers: its first call, which counts every topic's totals
once, is timed apart) and my-progress pages are fetched over HTTP from
the real aiohttp application on 127.0.0.1, timed as the server spends them (the web front's
own middleware clock), beside the chat `/leaderboard` call over the same core in the same run.
Each page's statements (a constant number, pinned by tests/db/statements) and its size in
bytes are printed too.

    torchquiz bench web [--answers 1000000] [--repeat 30] [--postgres-url URL] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bench.bulk import load_first_revision
from bench.core import (
    Backend,
    FixedClock,
    QueryCounter,
    _postgres,
    generate,
    percentiles,
    postgres_backend,
    sqlite_backend,
)
from bot.adapters.web.app import WebFront
from bot.adapters.web.pages import application
from bot.core.desk import Desk
from bot.core.kernel.models import Identity
from bot.core.quiz import build_quiz
from content.loader import Bank, load_bank
from db.engine import make_engine
from db.migrate import upgrade
from db.store import SqlStore

_LINK = re.compile(r"https?://\S+?(/login/[0-9a-f.]+)")
_CSRF = re.compile(r'name="csrf" value="([0-9a-f]*)"')
PAGES = {
    "page_board_week": "/channels/{channel}/board?period=week",
    "page_board_all": "/channels/{channel}/board?period=all",
    "page_board_topic": "/channels/{channel}/board?topic={topic}",
    "page_progress": "/channels/{channel}/me",
}


class ServerClock:
    """Time each request inside the application (what the server spends, not the loopback)."""

    def __init__(self) -> None:
        self.last_ms = 0.0

    @web.middleware
    async def middleware(self, request: web.Request,
                         handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                         ) -> web.StreamResponse:
        """Wrap the front's own middleware: everything the server does for the page."""
        start = time.perf_counter()
        response = await handler(request)
        self.last_ms = (time.perf_counter() - start) * 1000
        return response


async def _measure_pages(front: WebFront, member: Identity, channel: int, topic: str,
                         repeat: int, counter: QueryCounter) -> dict[str, Any]:
    clock = ServerClock()
    app = application(front)
    app.middlewares.insert(0, clock.middleware)  # outermost: the front's middleware included
    result: dict[str, Any] = {}
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        reply = Desk(front.quiz).command(member, "web")
        said = reply.message.body if reply.message is not None else ""
        found = _LINK.search(said)
        if found is None:
            raise RuntimeError(f"bench web: no link in {said!r}")
        page = await client.get(found.group(1))
        token = _CSRF.search(await page.text())
        signed = await client.post(found.group(1), data={"csrf": token.group(1) if token else ""},
                                   allow_redirects=False)
        if signed.status != 303:
            raise RuntimeError(f"bench web: sign-in answered {signed.status}")
        for name, path in PAGES.items():
            url = path.format(channel=channel, topic=topic)
            body = await (await client.get(url)).read()  # warm-up
            samples = []
            for _ in range(repeat):
                response = await client.get(url)
                await response.read()
                if response.status != 200:
                    raise RuntimeError(f"bench web: {url} answered {response.status}")
                samples.append(clock.last_ms)
            with counter.measuring() as sent:
                await (await client.get(url)).read()
            figures = percentiles(samples)
            result[f"{name}_ms"] = round(figures["p50"], 2)
            result[f"{name}_p95_ms"] = round(figures["p95"], 2)
            result[f"{name}_statements"] = sum(sent.values())
            result[f"{name}_bytes"] = len(body)
    return result


def measure_backend(backend: Backend, args: argparse.Namespace, bank: Bank) -> dict[str, Any]:
    """Load one backend, then time the pages and chat's board side by side."""
    items = sorted(bank.questions)
    data, dataset = generate(args.answers, args.members, args.rounds, items, args.seed)
    result: dict[str, Any] = {"backend": backend.name, "answers": dataset.answers,
                              "members": dataset.members}
    load_first_revision(backend.url, data)
    del data
    upgrade(backend.url)
    engine = make_engine(backend.url)
    counter = QueryCounter()
    counter.attach(engine)
    clock = FixedClock(dataset.now)
    store = SqlStore(engine, clock=clock)
    quiz = build_quiz(store, bank, clock)
    front = WebFront(quiz)
    try:
        channel = store.get_channel(dataset.channel_id)
        if channel is None:
            raise RuntimeError("bench web: the loaded channel is missing")
        member = Identity(platform=channel.platform, workspace="W", channel=channel.external_id,
                          user="U7", display_name="member 0007", locale="en")
        # The topic board of the topic most of the bank covers: the largest board. The first
        # one stores the library's topics and counts every topic from the answers (migration
        # 0030's backfill): timed apart, once.
        topic = Counter(tp for q in bank.questions.values() for tp in q.topics).most_common(1)[0][0]
        result["topic"] = topic
        start = time.perf_counter()
        quiz.board.topic_board(channel, topic, 50)
        result["topic_backfill_s"] = round(time.perf_counter() - start, 2)
        chat: dict[str, Callable[[], Any]] = {
            "chat_leaderboard_week": lambda: quiz.board.leaderboard(channel, "week", "en"),
            "chat_leaderboard_all": lambda: quiz.board.leaderboard(channel, "all", "en"),
        }
        for name, call in chat.items():
            call()
            samples = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                call()
                samples.append((time.perf_counter() - start) * 1000)
            result[f"{name}_ms"] = round(percentiles(samples)["p50"], 2)
        result.update(asyncio.run(_measure_pages(front, member, channel.id, topic, args.repeat,
                                                 counter)))
    finally:
        front.close()
        engine.dispose()
    return result


def report(result: dict[str, Any]) -> str:
    """Return the figures of one backend as a few readable lines."""
    lines = [f"{result['backend']}: {result['answers']:,} answers, {result['members']:,} "
             "members; server time p50 (p95), statements, bytes"]
    for name in PAGES:
        lines.append(f"  {name:<18} {result[name + '_ms']:7.2f} ms "
                     f"({result[name + '_p95_ms']:.2f})  {result[name + '_statements']:>2} "
                     f"statements  {result[name + '_bytes']:>7,} bytes")
    lines.append(f"  chat /leaderboard  week {result['chat_leaderboard_week_ms']:.2f} ms, "
                 f"all {result['chat_leaderboard_all_ms']:.2f} ms (the same core, no HTTP)")
    lines.append(f"  topic totals' backfill (the first topic board) "
                 f"{result['topic_backfill_s']:.2f} s")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchquiz bench web", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--answers", type=int, default=100_000)
    parser.add_argument("--members", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=365)
    parser.add_argument("--repeat", type=int, default=30, help="timed requests per page")
    parser.add_argument("--postgres-url", help="a server to create a scratch database on")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per backend")
    return parser


def main(argv: list[str]) -> int:
    """Run the benchmark; return the exit status."""
    args = _parser().parse_args(argv)
    bank = load_bank()
    workdir = Path(tempfile.mkdtemp(prefix="torchquiz-bench-web-"))
    try:
        makers: list[Callable[[], Backend]] = [lambda: sqlite_backend(workdir)]
        with _postgres(args, workdir) as server:
            if server is not None:
                makers.append(lambda: postgres_backend(server))
            for make in makers:
                backend = make()
                try:
                    result = measure_backend(backend, args, bank)
                finally:
                    backend.drop()
                print(json.dumps(result) if args.json else report(result), flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    with suppress(KeyboardInterrupt):
        raise SystemExit(main(sys.argv[1:]))
