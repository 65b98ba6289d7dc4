"""Drive the web page in real headless Chromium: the page served on a real port, Playwright.

Debian's ``chromium`` package is the browser (scripts/system-deps.sh --browser installs it;
Playwright's own download is not used). A missing browser fails the tests that need it, with
the command that installs it: the browser tests never skip.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources

from aiohttp import web
from playwright.sync_api import Browser, Page

from bot.adapters.web.app import WebFront
from bot.adapters.web.pages import application
from bot.core.kernel.models import Actor, ChannelSettings, Identity
from bot.core.kernel.ports import PackTools
from bot.core.quiz import Quiz
from tests.adapters.web.support import link, who
from tests.support.core import only

# Where Debian puts the browser; TORCHQUIZ_CHROMIUM names another build.
CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 740}


def chromium_path() -> str:
    """Return the system Chromium's path, or raise (the tests fail, never skip, without it)."""
    named = os.environ.get("TORCHQUIZ_CHROMIUM")
    if named:
        if not os.access(named, os.X_OK):
            raise RuntimeError(f"TORCHQUIZ_CHROMIUM={named} is not an executable")
        return named
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("no Chromium for the browser tests: run scripts/system-deps.sh --browser "
                       "(apt-get install chromium), or set TORCHQUIZ_CHROMIUM")


def axe_source() -> str:
    """Return axe-core (the npm package's axe.min.js, as axe-playwright-python ships it)."""
    return (resources.files("axe_playwright_python") / "axe.min.js").read_text("utf-8")


class LiveServer:
    """Serve the page over ``quiz`` on 127.0.0.1 (a free port) from a thread of its own."""

    def __init__(self, quiz: Quiz, packs: PackTools | None = None) -> None:
        self.front = WebFront(quiz, probe=lambda: 0, packs=packs)
        self._loop = asyncio.new_event_loop()
        self._runner = web.AppRunner(application(self.front))
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.base = ""

    def start(self) -> LiveServer:
        self._thread.start()

        async def up() -> str:
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            await site.start()
            host, port = self._runner.addresses[0][:2]
            return f"http://{host}:{port}"

        self.base = asyncio.run_coroutine_threadsafe(up(), self._loop).result(30)
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop.close()

    def url(self, path: str) -> str:
        """Return the page's address of ``path``."""
        return self.base + path


@contextmanager
def live(quiz: Quiz, packs: PackTools | None = None) -> Iterator[LiveServer]:
    """Serve the page over ``quiz`` for the duration of the block (``packs``: team packs on)."""
    server = LiveServer(quiz, packs).start()
    try:
        yield server
    finally:
        server.stop()


def sign_in(page: Page, server: LiveServer, quiz: Quiz, identity: Identity | None = None) -> str:
    """Ask chat for a link, open it in the browser, press its button; return where it landed."""
    page.goto(server.url(link(quiz, identity or who())))
    page.get_by_role("button").first.click()
    page.wait_for_load_state()
    return page.url.removeprefix(server.base)


def solve(quiz: Quiz, channel: ChannelSettings, *names: str,
          hidden: tuple[str, ...] = ()) -> ChannelSettings:
    """Post a round; each named member (user id = name lower-cased) solves it first try."""
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    for name in names:
        member = quiz.rounds.member("slack", name.lower(), name)
        quiz.rounds.submit_answer(channel.id, Actor(member), "detach")
        if name in hidden:
            quiz.board.privacy(member, "hidden", "en")
    return channel


def new_page(browser: Browser, *, width: int = 1280, height: int = 800,
             axe: bool = False, locale: str = "en-US") -> Page:
    """Open a page in a fresh context (its own cookies).

    ``axe``: the context lets Playwright add axe-core's script despite the page's CSP (which
    allows no script at all); the security tests use contexts that keep the CSP.
    """
    context = browser.new_context(viewport={"width": width, "height": height},
                                  bypass_csp=axe, locale=locale)
    return context.new_page()


def serious_violations(page: Page, source: str) -> list[str]:
    """Run axe-core on the page; return its serious and critical violations, one line each."""
    page.evaluate(source)
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary)}));
    }""")
    return [f"{v['id']} ({v['impact']}): {v['help']}: {'; '.join(v['nodes'])}"
            for v in result if v["impact"] in ("serious", "critical")]
