"""`torchquiz discord`: run the bot until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable

import discord
import discord.http

from bot.adapters.chat.runtime import on_stop_signals
from bot.adapters.discord.client import QuizBot
from bot.adapters.discord.sharding import parse_shards
from bot.settings import Settings

log = logging.getLogger(__name__)

EXIT_BAD_CREDENTIALS = 2


def use_api(url: str | None) -> None:
    """Send REST calls (and so the gateway lookup) to ``url`` instead of Discord's own API."""
    if url:
        discord.http.Route.BASE = url.rstrip("/")


async def serve(token: str, build: Callable[[], QuizBot]) -> int:
    """Log in, run until stopped, and shut down cleanly; return the exit status."""
    bot = build()
    stopping = asyncio.Event()

    def stop() -> None:
        log.info("stop requested")
        stopping.set()

    on_stop_signals(stop)
    try:
        await bot.login(token)
    except discord.LoginFailure:
        print("torchquiz discord: Discord rejected DISCORD_TOKEN (check the bot token)",
              file=sys.stderr)
        await bot.close()
        return EXIT_BAD_CREDENTIALS
    except (discord.HTTPException, OSError) as exc:
        print(f"torchquiz discord: cannot reach Discord: {exc}", file=sys.stderr)
        await bot.close()
        return 1
    connection = asyncio.create_task(bot.connect(reconnect=True))
    stopper = asyncio.create_task(stopping.wait())
    done, _ = await asyncio.wait({connection, stopper}, return_when=asyncio.FIRST_COMPLETED)
    await bot.close()
    if connection in done and connection.exception() is not None:
        failure = connection.exception()
        print(f"torchquiz discord: the gateway connection failed: {failure}", file=sys.stderr)
        return 1
    connection.cancel()
    return 0


def main(settings: Settings, build: Callable[[], QuizBot]) -> int:
    """Run `torchquiz discord` with the bot ``build`` makes; a missing token is exit 2."""
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        print("torchquiz discord: set DISCORD_TOKEN to the bot token of your Discord application",
              file=sys.stderr)
        return EXIT_BAD_CREDENTIALS
    try:
        parse_shards(settings.discord_shards)
    except ValueError as exc:
        print(f"torchquiz discord: {exc}", file=sys.stderr)
        return EXIT_BAD_CREDENTIALS
    use_api(settings.discord_api_url)
    return asyncio.run(serve(settings.discord_token.get_secret_value(), build))
