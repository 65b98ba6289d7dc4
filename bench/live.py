"""`torchquiz bench live`: 200 players answer one live question within 2 seconds.

Each platform's unmodified client library (discord.py, slack-bolt) runs the real app against
the local fake of its platform (tests/fake_discord.py, tests/fake_slack.py), on SQLite and on
PostgreSQL, exactly as the chat harness's scenarios drive them (tests/adapters/chat/). A
session opens with one choice question; the players' clicks are spread evenly over the burst
(a share of them click twice, as a double click does). Measured: each click's
acknowledgement, from the platform's sending it to the app's answering it (Discord: the
interaction callback; Slack: the HTTP 200), against the platform's 3-second window and a
p99 of 1 s. Checked: every answer recorded once, and the reveal's count per option equal to
the database's.

It runs from a checkout (it uses the test suite's fakes and drivers) and needs no executor:
a live session asks no code question unless the host asks for one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.core import percentiles, postgres_backend, throwaway_postgres
from bot.core.kernel.errors import GradingUnavailable
from bot.core.live import compose
from content.options import display_order
from tests.adapters.chat.discord_driver import DiscordDriver
from tests.adapters.chat.driver import Harness, Post
from tests.adapters.chat.slack_driver import SlackDriver

ITEM = "t.choice-view"  # a choice question of the harness's bank, pinned to the channel
ACK_WINDOW_S = 3.0
P99_TARGET_S = 1.0
WAIT_S = 120.0


class _NoExecutor:
    """The executor a live session without code questions never calls."""

    def run(self, challenge_id: str, code: str, *, seed: int | None = None) -> Any:
        raise GradingUnavailable("the live bench grades no code")

    def supports(self, challenge_id: str) -> tuple[bool, str]:
        return False, "the live bench grades no code"


def _driver(kind: type[Harness[Any]], workdir: Path, database_url: str | None,
            max_in_flight: int | None = None) -> Harness[Any]:
    class Bench(kind):  # type: ignore[valid-type,misc]
        def base_settings(self, **extra: Any) -> Any:
            if database_url is not None:
                extra.setdefault("database_url", database_url)
            if max_in_flight is not None:
                extra.setdefault("max_in_flight", max_in_flight)
            return super().base_settings(**extra)

        def new_executor(self) -> Any:
            return _NoExecutor()

    return Bench(workdir, None)


async def _wait(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"bench live: {what} did not happen in {WAIT_S:.0f} s")
        await asyncio.sleep(0.05)


async def _click_discord(d: Any, post: Post, action: str, who: str) -> tuple[float, bool]:
    record = await d.fake.click(post.key, action, who, shown=post.raw)
    # A click answered after the window is never answered (Discord drops the interaction):
    # wait past the window, then count it as missed.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(record.answered.wait(), ACK_WINDOW_S + 5)
    if record.answered_at is None:
        return float("inf"), False
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(record.finished.wait(), WAIT_S)
    ok = record.finished.is_set() and not record.late and not record.doubled
    return record.answered_at - record.sent_at, ok


async def _click_slack(d: Any, post: Post, action: str, who: str) -> tuple[float, bool]:
    delivery = await d.send.click(post.raw, action, who)
    return delivery.ack_s, delivery.status == 200


def _private_replies(d: Any) -> list[str]:
    """Return the text of every private reply to a click so far (Slack's follow the ack)."""
    if d.platform == "discord":
        return [r.text() for r in d.fake.interactions.values()
                if r.kind == 3 and r.finished.is_set()]
    return [s.shown_text for s in d.fake.shown if s.kind in ("ephemeral", "response")]


async def _scenario(d: Any, args: argparse.Namespace, out: dict[str, Any]) -> None:
    rng = random.Random(args.seed)  # noqa: S311 - who clicks what, not a secret
    await d.enable_channel(ITEM)
    opened = await d.command("live", "admin", action="start",
                             options="questions=1 seconds=120 lobby=0")
    if "lobby is posted" not in opened.text:
        raise RuntimeError(f"bench live: the session did not open: {opened.text}")
    # The app's own 2-second sweep may post the question first: either way it is posted once.
    await d.advance_live()
    await _wait(lambda: "Live · question 1/1" in d.live_posts()[-1].text, "the question")
    question = d.live_posts()[-1]
    if "Live · question 1/1" not in question.text:
        raise RuntimeError(f"bench live: no question was posted: {question.text}")
    buttons = [b for b in question.buttons if b.startswith("tq:live:")]
    players = [f"member{n}" for n in range(1, args.players + 1)]
    twice = set(rng.sample(players, int(len(players) * args.double_share)))
    plan = [(i * args.spread / len(players), who, rng.choice(buttons))
            for i, who in enumerate(players)]
    plan += [(at + 0.05, who, action) for at, who, action in plan if who in twice]
    click = _click_discord if d.platform == "discord" else _click_slack
    started = time.monotonic()

    async def one(at: float, who: str, action: str) -> tuple[float, bool]:
        await asyncio.sleep(max(0.0, started + at - time.monotonic()))
        return await click(d, question, action, who)

    results = await asyncio.gather(*(one(*step) for step in plan))
    burst_s = time.monotonic() - started
    session_id = int(buttons[0].split(":")[2].split("-")[0])
    store = d.quiz.live.store
    # Each click acknowledged gets a private reply ("Locked in", "already", "busy"; on Slack
    # after the ack, from a lazy listener): wait for all of them, then reveal.
    await _wait(lambda: len(_private_replies(d)) >= sum(ok for _, ok in results),
                "a private reply to every acknowledged click")
    d.clock.advance(seconds=121)  # the host did not answer: the deadline closes it
    await d.advance_live()
    reveal = next(p for p in reversed(d.live_posts()) if "answer to question 1/1" in p.text)
    # Read after the close: no answer lands after it, so these are what the reveal counted.
    answers = store.live_answers(session_id)
    replies = _private_replies(d)
    item = d.quiz.live.bank.question(ITEM)
    live_q = store.live_questions(session_id)[0]
    order = display_order(item, compose.question_seed(session_id, live_q)).labelled()
    stored = Counter(a.response for a in answers)
    shown = [int(m.group(1)) for m in re.finditer(r": (\d+) \(\d+ %\)", reveal.text)]
    acks = [ack for ack, _ in results]
    finite = [a for a in acks if a != float("inf")] or [0.0]
    out.update({
        "platform": d.platform, "players": len(players), "clicks": len(plan),
        "double_clicks": len(twice), "burst_s": round(burst_s, 2),
        "ack_ms": {k: round(v * 1000, 1) for k, v in percentiles(acks).items()
                   if k != "n"},
        "ack_max_ms": round(max(finite) * 1000, 1),
        "never_acked": len(acks) - len(finite),
        "within_3s": sum(ack < ACK_WINDOW_S for ack in acks),
        "acknowledged_ok": sum(ok for _, ok in results),
        "answers_recorded": len(answers),
        "distinct_players": len({a.user_id for a in answers}),
        "reveal_counts": shown,
        "db_counts": [stored[choice.key] for _, choice in order],
    })
    out["locked_in"] = sum("Locked in" in r for r in replies)
    out["told_busy"] = sum("busy" in r.lower() for r in replies)
    out["exactly_once"] = (out["answers_recorded"] == out["distinct_players"]
                           == out["locked_in"])
    out["reveal_matches_db"] = shown == out["db_counts"]


def measure(kind: type[Harness[Any]], backend: str, url: str | None,
            args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """Run the burst once on one platform and one database; return its figures."""
    folder = Path(tempfile.mkdtemp(prefix=f"live-{kind.platform}-", dir=workdir))
    out: dict[str, Any] = {"backend": backend, "max_in_flight": args.max_in_flight or "default"}
    driver = _driver(kind, folder, url, args.max_in_flight)
    driver.run(lambda d: _scenario(d, args, out))
    out["load_avg"] = [round(v, 2) for v in os.getloadavg()]
    p99 = out["ack_ms"]["p99"] / 1000
    out["ok"] = (out["within_3s"] == out["clicks"] and out["exactly_once"]
                 and out["locked_in"] == out["players"]
                 and out["reveal_matches_db"] and out["acknowledged_ok"] == out["clicks"]
                 and (backend != "postgresql" or p99 <= P99_TARGET_S))
    return out


def report(r: dict[str, Any]) -> str:
    """Return one run's figures as lines."""
    ack = r["ack_ms"]
    return "\n".join([
        f"== {r['platform']} on {r['backend']}: {r['players']} players, {r['clicks']} clicks "
        f"({r['double_clicks']} double) in {r['burst_s']} s; max_in_flight "
        f"{r['max_in_flight']}; load {r['load_avg']}",
        f"  ack p50 {ack['p50']} ms, p95 {ack['p95']} ms, p99 {ack['p99']} ms, "
        f"max {r['ack_max_ms']} ms; within 3 s: {r['within_3s']}/{r['clicks']} "
        f"(never answered: {r['never_acked']})",
        f"  answers recorded {r['answers_recorded']} (distinct {r['distinct_players']}, "
        f"'Locked in' {r['locked_in']}, told busy {r['told_busy']}): "
        f"exactly once {r['exactly_once']}",
        f"  reveal {r['reveal_counts']} vs database {r['db_counts']}: "
        f"{'equal' if r['reveal_matches_db'] else 'DIFFERENT'}",
        f"  {'ok' if r['ok'] else 'NOT MET'}",
    ])


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchquiz bench live", description=__doc__)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--spread", type=float, default=2.0,
                        help="seconds over which the clicks are spread")
    parser.add_argument("--double-share", type=float, default=0.1,
                        help="share of players who click twice")
    parser.add_argument("--platform", choices=("discord", "slack", "both"), default="both")
    parser.add_argument("--postgres-url", help="a server to create a scratch database on")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    parser.add_argument("--max-in-flight", type=int,
                        help="the app's max_in_flight setting (default: the product's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per run")
    return parser


@contextmanager
def _server(args: argparse.Namespace, workdir: Path) -> Iterator[str | None]:
    if args.no_postgres:
        yield None
    elif args.postgres_url:
        yield args.postgres_url
    else:
        with throwaway_postgres(workdir) as url:
            yield url


def main(argv: list[str]) -> int:
    """Run the burst on each platform and database; return 0 when every target is met."""
    args = _parser().parse_args(argv)
    kinds: list[type[Harness[Any]]] = [
        k for k in (DiscordDriver, SlackDriver) if args.platform in ("both", k.platform)]
    workdir = Path(tempfile.mkdtemp(prefix="torchquiz-bench-live-"))
    met = True
    try:
        with _server(args, workdir) as server:
            runs: list[tuple[str, Callable[[], tuple[str | None, Callable[[], None]]]]] = []
            if not args.no_sqlite:
                runs.append(("sqlite", lambda: (None, lambda: None)))
            if server is not None:
                def scratch(server: str = server) -> tuple[str | None, Callable[[], None]]:
                    backend = postgres_backend(server)
                    return backend.url, backend.drop
                runs.append(("postgresql", scratch))
            elif not args.no_postgres:
                print("bench live: PostgreSQL skipped (no --postgres-url, no server started)",
                      file=sys.stderr)
            for name, make in runs:
                for kind in kinds:
                    url, drop = make()
                    try:
                        result = measure(kind, name, url, args, workdir)
                    finally:
                        drop()
                    met = met and result["ok"]
                    print(json.dumps(result) if args.json else report(result), flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
