"""`torchquiz slack`: run the Slack app over HTTP or Socket Mode until SIGTERM or SIGINT.

Credentials are checked before anything starts, so a typo is one line and exit 2, not a
traceback: ``auth.test`` for the bot token and ``apps.connections.open`` for the app-level
token (its answer is the first Socket Mode URL, used right away).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import ClientError, web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_sdk.errors import SlackApiError

from bot.adapters.chat import health
from bot.adapters.chat.runtime import on_stop_signals
from bot.adapters.slack.bot import SlackBot, web_client
from bot.settings import Settings

log = logging.getLogger(__name__)

EXIT_BAD_CREDENTIALS = 2
EXIT_UNREACHABLE = 1
SHUTDOWN_TIMEOUT_S = 2.0  # in-flight HTTP requests get this long; SIGTERM to exit within 10 s
_REJECTED = ("invalid_auth", "not_authed", "account_inactive", "token_revoked",
             "token_expired", "not_allowed_token_type", "invalid_token")


@dataclass(frozen=True)
class Mode:
    """How the process talks to Slack."""

    http: bool
    host: str = "127.0.0.1"
    port: int = 3000


def _value(secret: object) -> str:
    getter = getattr(secret, "get_secret_value", None)
    return str(getter()).strip() if getter is not None else ""


def missing(settings: Settings, mode: Mode) -> str | None:
    """Say which required setting is missing for this mode, or None."""
    oauth = bool(settings.slack_client_id or _value(settings.slack_client_secret))
    if oauth:
        if not (settings.slack_client_id and _value(settings.slack_client_secret)):
            return "set both SLACK_CLIENT_ID and SLACK_CLIENT_SECRET (or neither)"
        if not mode.http:
            return "installing in many workspaces (SLACK_CLIENT_ID) needs --http"
    elif not _value(settings.slack_bot_token):
        return "set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-...) of your Slack app"
    if mode.http and not _value(settings.slack_signing_secret):
        return "set SLACK_SIGNING_SECRET to the Signing Secret of your Slack app"
    if not mode.http and not _value(settings.slack_app_token):
        return ("set SLACK_APP_TOKEN (xapp-..., Socket Mode) or run with --http "
                "(Slack then needs a public URL for /slack/events)")
    return None


async def check_credentials(settings: Settings, mode: Mode) -> tuple[int, str, str]:
    """Ask Slack whether the tokens work; return (exit status, problem, Socket Mode URL)."""
    client = web_client(settings)
    checks = []
    if not settings.slack_client_id:
        checks.append(("SLACK_BOT_TOKEN", "auth.test", _value(settings.slack_bot_token)))
    if not mode.http:
        checks.append(("SLACK_APP_TOKEN", "apps.connections.open",
                       _value(settings.slack_app_token)))
    url = ""
    for name, method, token in checks:
        try:
            if method == "auth.test":
                answer = await client.auth_test(token=token)
            else:
                answer = await client.apps_connections_open(app_token=token)
        except SlackApiError as exc:
            error = str(exc.response.get("error") or exc.response.status_code)
            if error in _REJECTED:
                return EXIT_BAD_CREDENTIALS, f"Slack rejected {name} ({error})", ""
            return EXIT_UNREACHABLE, f"Slack refused {method}: {error}", ""
        except (ClientError, OSError, TimeoutError) as exc:
            return EXIT_UNREACHABLE, f"cannot reach Slack at {settings.slack_api_url}: {exc}", ""
        if method == "apps.connections.open":
            url = str(answer.get("url") or "")
    return 0, "", url


async def serve(settings: Settings, mode: Mode, build: Callable[[], SlackBot]) -> int:
    """Check the tokens, start the app and the scheduler, run until stopped; return the status."""
    status, problem, socket_url = await check_credentials(settings, mode)
    if status:
        print(f"torchquiz slack: {problem}", file=sys.stderr)
        return status
    stopping = asyncio.Event()

    def stop() -> None:
        log.info("stop requested")
        stopping.set()

    on_stop_signals(stop)
    bot = build()
    runner: web.AppRunner | None = None
    probes: web.AppRunner | None = None
    handler: AsyncSocketModeHandler | None = None
    try:
        await bot.start()
        if mode.http:
            runner = web.AppRunner(bot.web_app(), shutdown_timeout=SHUTDOWN_TIMEOUT_S)
            await runner.setup()
            await web.TCPSite(runner, mode.host, mode.port).start()
            log.info("slack app serving http://%s:%s/slack/events", mode.host, mode.port)
        else:
            handler = bot.socket_mode(_value(settings.slack_app_token))
            bot.connected = handler.client.is_connected
            probes = await health.serve(bot.health, settings.health_host, settings.health_port)
            handler.client.wss_uri = socket_url  # the URL the token check was given
            await handler.connect_async()  # type: ignore[no-untyped-call]
            log.info("slack app connected in Socket Mode")
        await stopping.wait()
    finally:
        if handler is not None:
            await handler.close_async()  # type: ignore[no-untyped-call]
        if probes is not None:
            await probes.cleanup()
        if runner is not None:
            await runner.cleanup()
        await bot.close()
    return 0


def main(settings: Settings, build: Callable[[], SlackBot], *, http: bool = False,
         host: str = "127.0.0.1", port: int = 3000) -> int:
    """Run `torchquiz slack`; missing or rejected credentials are one line and exit 2."""
    mode = Mode(http=http, host=host, port=port)
    problem = missing(settings, mode)
    if problem is not None:
        print(f"torchquiz slack: {problem}", file=sys.stderr)
        return EXIT_BAD_CREDENTIALS
    return asyncio.run(serve(settings, mode, build))
