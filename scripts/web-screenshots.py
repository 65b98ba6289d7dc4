#!/usr/bin/env python3
"""Take the README's screenshots of every page of the team's web page, in real Chromium.

    python scripts/web-screenshots.py docs/screenshots

A throwaway SQLite database gets a small team (a week of rounds, a hidden member, a Chinese
name), the page is served on a free port, and Debian's chromium (driven by Playwright) saves
each page at desktop (1280 px) and phone (375 px) width, in English and in Chinese.
Look at every PNG before committing it.
"""

from __future__ import annotations

import datetime as dt
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, sync_playwright  # noqa: E402
from sqlalchemy import Engine  # noqa: E402

from bot.charts import MatplotlibCharts  # noqa: E402
from bot.core.desk import Desk  # noqa: E402
from bot.core.kernel.models import Actor, ChannelDefaults, Review  # noqa: E402
from bot.core.kernel.ports import PackTools  # noqa: E402
from bot.core.quality import Where  # noqa: E402
from bot.core.quiz import Quiz, build_quiz  # noqa: E402
from bot.pack_tools import SandboxPackChecker, StorePackShelf  # noqa: E402
from content.loader import load_bank  # noqa: E402
from content.packs import parse_pack  # noqa: E402
from db.engine import make_engine  # noqa: E402
from db.migrate import upgrade  # noqa: E402
from db.store import SqlStore  # noqa: E402
from db.store_packs import PackStore  # noqa: E402
from tests.adapters.web.browser import DESKTOP, PHONE, chromium_path, live  # noqa: E402
from tests.adapters.web.support import link, who  # noqa: E402
from tests.fakes import CLOCK_START, FakeClock  # noqa: E402
from tests.support.core import BANK, RecordingExecutor, only  # noqa: E402

TEAM = ("Alice", "Bob", "Chen Wei", "Dana", "Émile", "Farah", "刘洋", "Mallory")
# Who solves which day's round (day 0 is Monday); Mallory answers but hides from boards.
SOLVES = {
    "Alice": (0, 1, 2, 3, 4), "Bob": (0, 1, 3, 4), "Chen Wei": (0, 1, 2, 3, 4),
    "Dana": (2, 3), "Émile": (0, 4), "Farah": (1, 2, 3, 4), "刘洋": (0, 1, 2, 3),
    "Mallory": (0, 1, 2),
}
ROUNDS = ("t.text-detach", "t.text-number", "t.text-shape", "t.text-detach", "t.text-number")
RIGHT = {"t.text-detach": "detach", "t.text-number": "3", "t.text-shape": "(2, 3)"}
# The published board's link in the screenshots (a real one is token_urlsafe(32)).
PUBLIC_TOKEN = "Xk3v9QmT2wLp8RzA5nHc7YdF1gJs4KbE6uVo0iWqNtM"  # noqa: S105


def team(quiz: Quiz, clock: FakeClock) -> int:
    """Play a week in #general; return the channel's id."""
    channel = quiz.rounds.channel("slack", "C1", "W1", ChannelDefaults(name="general"))
    for day, item in enumerate(ROUNDS):
        only(quiz, channel, item)
        quiz.rounds.post_round(channel.id)
        for name in TEAM:
            member = quiz.rounds.member("slack", name.lower().replace(" ", "-"), name)
            if day in SOLVES[name]:
                quiz.rounds.submit_answer(channel.id, Actor(member), RIGHT[item])
            elif name in ("Dana", "Émile"):
                quiz.rounds.submit_answer(channel.id, Actor(member), "clone")
            if day == 0 and name == "Mallory":
                quiz.board.privacy(member, "hidden", "en")
        clock.advance(days=1)
    # Two admin changes for the audit log: one from chat, one as the page's form makes them.
    desk = Desk(quiz)
    desk.settings(who("chen-wei", name="Chen Wei", admin=True), "C1", "", {"leaderboard": "mon 9"})
    desk.settings(who("alice", name="Alice", admin=True), "C1", "", {"time": "08:30"})
    # An item whose answer key looks wrong, paused until an admin lets it go.
    quiz.rounds.store.pause_items([("t.text-shape", 1)], "suspect_key", clock.now())
    # A choice round Alice gets wrong (her answers show its why), and a review due for her.
    only(quiz, channel, "t.choice-view")
    posted = quiz.rounds.post_round(channel.id)
    alice = quiz.rounds.member("slack", "alice", "Alice")
    wrong = next(b.label for b in posted.message.buttons if b.action_id.endswith(":A"))
    quiz.rounds.submit_answer(channel.id, Actor(alice), wrong)
    due = clock.now() - dt.timedelta(hours=2)
    quiz.rounds.store.save_review(Review(user_id=alice.id, item_id="t.text-detach", state=2,
                                         step=None, stability=3.0, difficulty=5.0, due_at=due,
                                         reviewed_at=due, last_correct=True))
    # Reports for the queue: one with a note in Chinese; and the board published at a link.
    where = Where("slack", "W1")
    notes = (("Dana", "The accepted answer misses reshape()."), ("刘洋", "题目有点含糊。"))
    for name, note in notes:
        member = quiz.rounds.member("slack", name.lower().replace(" ", "-"), name)
        quiz.reports.file_for_round(member, where, posted.round.id, "ambiguous", note, "en")
    quiz.board.store.publish_board(channel.id, PUBLIC_TOKEN, clock.now())
    return channel.id


def pack(version: int, title: str, *, broken: bool = False) -> bytes:
    """Return a one-question team pack; ``broken``: both options marked right."""
    return f"""\
pack:
  id: onboarding
  title: "{title}"
  version: {version}
  locales: [en, zh-CN]
items:
  - id: q1
    version: 1
    kind: choice
    topics: [tensors]
    difficulty: 1
    prompt: {{en: "Which call leaves autograd's graph?", zh-CN: "哪个调用会离开自动求导图？"}}
    choices:
      - {{key: A, text: {{en: "x.detach()", zh-CN: "x.detach()"}}, correct: true}}
      - key: B
        text: {{en: "x.clone()", zh-CN: "x.clone()"}}
        correct: {str(broken).lower()}
        why: {{en: "A clone stays in the graph.", zh-CN: "clone 仍在计算图中。"}}
    explanation: {{en: "detach() returns a tensor outside the graph.",
                  zh-CN: "detach() 返回计算图之外的张量。"}}
""".encode()


def packs(engine: Engine, quiz: Quiz) -> PackTools:
    """Store two versions of the team's pack and one shared pack; return the page's tools."""
    tools = PackTools(SandboxPackChecker(load_bank(BANK)), StorePackShelf(PackStore(engine)))
    desk = Desk(quiz, tools)
    alice = who("alice", name="Alice", admin=True)
    for version, title in ((1, "Onboarding"), (2, "Onboarding: autograd basics")):
        desk.pack_add(alice, "onboarding.yaml", pack(version, title))
    shared = parse_pack(pack(1, "Company-wide warm-up").replace(b"id: onboarding",
                                                                b"id: warm-up")).pack
    if shared is not None:
        PackStore(engine).add(shared.id, 1, "*", shared.header.title, ("en", "zh-CN"),
                              shared.text, shared.document)
    return tools


def shoot(page: Page, url: str, target: Path) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(target), full_page=True)
    print(target)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'shots.sqlite3'}"
        upgrade(url)
        clock = FakeClock(CLOCK_START)
        engine = make_engine(url)
        quiz = build_quiz(SqlStore(engine, clock=clock), load_bank(BANK), clock,
                          RecordingExecutor(), charts=MatplotlibCharts())
        channel = team(quiz, clock)
        tools = packs(engine, quiz)
        pages = {"board": f"/channels/{channel}/board", "board-all":
                 f"/channels/{channel}/board?period=all", "me": f"/channels/{channel}/me",
                 "settings": f"/channels/{channel}/settings", "audit": "/audit", "items": "/items",
                 "cards": "/cards", "questions": "/questions",
                 "question": "/questions/t.choice-view",
                 "card": "/cards/detach", "channels": "/", "reports": "/reports",
                 "forget": "/me/forget", "not-found": "/channels/999/board",
                 "board-topic": f"/channels/{channel}/board?topic=autograd",
                 "packs": "/packs", "pack": "/packs/onboarding",
                 "pack-remove": "/packs/onboarding/remove"}
        with live(quiz, tools) as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_path())
            for locale, shots in (("en", tuple(pages)), ("zh-CN", tuple(pages))):
                for width, size in (("desktop", DESKTOP), ("phone", PHONE)):
                    context = browser.new_context(viewport=size, device_scale_factor=1)
                    page = context.new_page()
                    tag = "" if locale == "en" else "-zh"
                    identity = who("alice", name="Alice", admin=True, locale=locale)
                    shoot(page, server.url(link(quiz, identity)),
                          out / f"login{tag}-{width}.png")
                    page.get_by_role("button").first.click()
                    page.wait_for_load_state()
                    for name in shots:
                        shoot(page, server.url(pages[name]), out / f"{name}{tag}-{width}.png")
                    # A pack with an error: the sandbox's report, line by line.
                    page.goto(server.url("/packs"))
                    page.set_input_files("#pack", files=[{
                        "name": "onboarding.yaml", "mimeType": "application/x-yaml",
                        "buffer": pack(3, "Onboarding", broken=True)}])
                    page.locator("form.upload button").click()
                    page.wait_for_load_state("networkidle")
                    page.screenshot(path=str(out / f"pack-report{tag}-{width}.png"),
                                    full_page=True)
                    context.close()
                    # The published board, as anyone with its link sees it: no session.
                    context = browser.new_context(viewport=size, device_scale_factor=1,
                                                  locale=locale)
                    shoot(context.new_page(), server.url(f"/boards/{PUBLIC_TOKEN}"),
                          out / f"public-board{tag}-{width}.png")
                    context.close()
            browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots")
