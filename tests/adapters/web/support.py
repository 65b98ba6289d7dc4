"""Drive the web page in-process: a real aiohttp server and client over the real core and store."""

from __future__ import annotations

import asyncio
import re

from aiohttp.test_utils import TestClient, TestServer

from bot.adapters.web.app import WebFront
from bot.adapters.web.pages import application
from bot.core.desk import Desk
from bot.core.kernel.models import Identity

BASE = "http://quiz.test"
_LINK = re.compile(r"https?://\S+/login/[0-9a-f.]+")
_CSRF = re.compile(r'name="csrf" value="([0-9a-f]*)"')


def who(user: str = "alice", *, workspace: str = "W1", channel: str = "C1",
        admin: bool = False, name: str | None = None, platform: str = "slack",
        locale: str | None = "en") -> Identity:
    return Identity(platform=platform, workspace=workspace, channel=channel, user=user,
                    display_name=name or user.title(), locale=locale, is_admin=admin)


def link(quiz, identity: Identity | None = None) -> str:
    """Ask for a link as chat does (/quiz-web) and return its path."""
    reply = Desk(quiz).command(identity or who(), "web")
    found = _LINK.search(reply.message.body)
    assert found is not None, reply.message.body
    return "/login/" + found.group(0).split("/login/")[1]


def csrf_of(html: str) -> str:
    found = _CSRF.search(html)
    assert found is not None, html
    return found.group(1)


async def sign_in(client: TestClient, path: str):
    """Open a link, press its button; return the POST's response (303 when signed in)."""
    page = await client.get(path)
    assert page.status == 200, await page.text()
    return await client.post(path, data={"csrf": csrf_of(await page.text())},
                             allow_redirects=False)


def serve(quiz, scenario, **front_options):
    """Run ``scenario(client)`` against the page over ``quiz``; return what it returns."""
    async def main():
        front = WebFront(quiz, **front_options)
        async with TestClient(TestServer(application(front))) as client:
            return await scenario(client)
    return asyncio.run(main())
