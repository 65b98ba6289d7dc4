"""The console's /web: a one-time link to the page, on the database `torchquiz web` serves."""

import asyncio
import datetime as dt
import io
import re

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.adapters.console.channel import ConsoleChannel
from bot.adapters.web.pages import application
from bot.bootstrap import build_app, web_app
from bot.settings import Settings
from tests.adapters.web.support import sign_in
from tests.fakes import FakeClock
from tests.support.core import BANK, RecordingExecutor


def test_console_web_prints_a_link_that_signs_in_to_the_page_on_the_same_database(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK, web_url="http://quiz.example:8123")
    clock = FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC))
    console_app = build_app(settings, clock=clock, executor=RecordingExecutor())
    try:
        out = io.StringIO()
        ConsoleChannel(console_app.quiz, out, user_name="ada").run(iter(["/web\n"]))
    finally:
        console_app.close()
    found = re.search(r"http://quiz\.example:8123/login/[0-9a-f.]+", out.getvalue())
    assert found is not None, out.getvalue()
    # A separate process's wiring (`torchquiz web`): no secret is set; the kept one is shared.
    front, app = web_app(settings, clock=clock)

    async def scenario():
        async with TestClient(TestServer(application(front))) as client:
            signed = await sign_in(client, found.group(0).removeprefix(settings.web_url))
            board = await client.get(signed.headers["Location"])
            return signed.status, await board.text()

    try:
        status, html = asyncio.run(scenario())
    finally:
        app.close()
    assert status == 303 and "Signed in as ada" in html and "#general" in html


@pytest.mark.parametrize("env, offered", [
    ({}, []),
    ({"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "s"}, ["slack"]),
    # Discord's sign-in needs the bot's own token: the bot, not the browser, checks servers.
    ({"DISCORD_CLIENT_ID": "9", "DISCORD_CLIENT_SECRET": "s"}, []),
    ({"DISCORD_CLIENT_ID": "9", "DISCORD_CLIENT_SECRET": "s", "DISCORD_TOKEN": "t"},
     ["discord"]),
])
def test_torchquiz_web_offers_the_sign_ins_its_settings_configure(tmp_path, env, offered):
    settings = Settings(data_dir=tmp_path, content_dir=BANK, **env)
    front, app = web_app(settings)
    try:
        assert sorted(front.providers) == offered
    finally:
        app.close()
