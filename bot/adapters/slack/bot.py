"""The Slack app: an unmodified bolt AsyncApp with our listeners, publisher and scheduler.

One workspace runs on SLACK_BOT_TOKEN; with installation stores (SLACK_CLIENT_ID and
SLACK_CLIENT_SECRET) the app serves bolt's OAuth flow and finds each workspace's token in the
database instead. Every Web API call goes to SLACK_API_URL and waits out ``ratelimited`` with
slack-sdk's retry handlers. The HTTP server adds ``/healthz`` and ``/metrics`` to bolt's own
aiohttp server; in Socket Mode they have a port of their own (TORCHQUIZ_HEALTH_PORT).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import web
from slack_bolt.app.async_server import AsyncSlackAppServer
from slack_bolt.async_app import AsyncApp
from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.chat import health
from bot.adapters.chat.coalesce import EditCoalescer, RoundRedraw
from bot.adapters.chat.front import ChatFront
from bot.adapters.chat.runtime import ChatRuntime
from bot.adapters.slack import boundary, listeners
from bot.adapters.slack.boundary import CheckedSocketModeHandler
from bot.adapters.slack.handlers import RESPONSE_HOSTS, Handlers
from bot.adapters.slack.manifest import BOT_SCOPES
from bot.adapters.slack.packs import file_origins
from bot.adapters.slack.people import People
from bot.adapters.slack.publisher import SlackPublisher
from bot.adapters.slack.replies import retry_handlers
from bot.adapters.slack.tokens import InstallationStores, SingleWorkspace, Tokens
from bot.settings import Settings

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = health.HEALTH_PATH
# What the code needs, and so what deploy/slack-manifest.yml asks for (a test keeps them equal):
# commands for the slash commands, chat:write for posts and ephemeral replies, files:write for
# the weekly chart, users:read for names, admin rights and languages (users.info),
# channels:history to look for a round's post before posting it again (conversations.history),
# channels:read and groups:read to check a settings channel exists and has the app in it
# (conversations.info on a public or a private channel), im:write to open the direct message
# a review reminder goes to (conversations.open), files:read for a pack file an admin chose in
# the /quiz-pack add modal (files.info, and its download with the bot token).


def api_url(settings: Settings) -> str:
    """Return the Web API base URL, with the trailing slash slack-sdk needs."""
    return settings.slack_api_url.rstrip("/") + "/"


def web_client(settings: Settings, token: str | None = None) -> AsyncWebClient:
    """Return a Web API client for SLACK_API_URL that waits out rate limits."""
    return AsyncWebClient(token=token, base_url=api_url(settings),
                          retry_handlers=retry_handlers())


def _secret(value: object) -> str:
    getter = getattr(value, "get_secret_value", None)
    return str(getter()) if getter is not None else ""


class SlackBot:
    """Wire the core's runtime to Slack: the bolt app, its listeners, the publisher."""

    def __init__(self, runtime: ChatRuntime, settings: Settings, *,
                 installations: InstallationStores | None = None,
                 tally_delay_s: float = 2.0) -> None:
        self.runtime = runtime
        self.installations = installations
        token = None if installations is not None else _secret(settings.slack_bot_token) or None
        self.client = web_client(settings, token)
        self.tokens: Tokens = installations or SingleWorkspace(token or "")
        oauth: AsyncOAuthSettings | None = None
        authorize: AsyncInstallationStoreAuthorize | None = None
        if installations is not None:
            client_id = settings.slack_client_id or ""
            client_secret = _secret(settings.slack_client_secret)
            oauth = AsyncOAuthSettings(
                client_id=client_id, client_secret=client_secret, scopes=list(BOT_SCOPES),
                user_scopes=[], redirect_uri=settings.slack_redirect_uri,
                installation_store=installations.installation_store,
                state_store=installations.state_store, logger=log)
            # Cached: after the first request of a workspace, authorizing costs one indexed read.
            authorize = AsyncInstallationStoreAuthorize(
                logger=log, installation_store=installations.installation_store,
                client_id=client_id, client_secret=client_secret, cache_enabled=True,
                client=self.client)
        self.signing_secret = _secret(settings.slack_signing_secret)
        self.app = AsyncApp(name="torchquiz", logger=logging.getLogger("bot.adapters.slack.bolt"),
                            client=self.client, signing_secret=self.signing_secret,
                            # bolt takes an AsyncAuthorize object as well as a function.
                            oauth_settings=oauth, authorize=authorize)  # type: ignore[arg-type]
        self.publisher = SlackPublisher(self.client, self.tokens)
        self.coalescer = EditCoalescer(
            RoundRedraw(runtime.post_for, self.publisher.edit), tally_delay_s)
        hosts = RESPONSE_HOSTS | {urlsplit(api_url(settings)).netloc}
        self.handlers = Handlers(ChatFront(runtime, self.coalescer), People(settings.slack_admins),
                                 response_hosts=hosts,
                                 file_origins=file_origins(api_url(settings)))
        self.retries = listeners.register(self.app, self.handlers)
        # Socket Mode sets this to its connection's state. Over HTTP the platform is up when
        # the server answers the probe at all: the token passed auth.test before the app was
        # built (main.check_credentials), and Slack reaches us, not the other way round.
        self.connected: Callable[[], Awaitable[bool]] | None = None
        self.health = health.Health(runtime, self._platform_up)

    async def _platform_up(self) -> bool:
        return True if self.connected is None else await self.connected()

    def socket_mode(self, app_token: str) -> CheckedSocketModeHandler:
        """Return the Socket Mode handler, with the boundary's shape check on each envelope."""
        return CheckedSocketModeHandler(self.app, app_token)

    def web_app(self) -> web.Application:
        """Return the HTTP server: bolt's /slack/events (and OAuth pages), /healthz, /metrics.

        Every POST to /slack/events passes the boundary first (boundary.py): signature and
        timestamp, then the body's shape, so nothing malformed reaches bolt.
        """
        server = AsyncSlackAppServer(port=0, path=EVENTS_PATH, app=self.app)
        # bolt's server builds its own web app; the boundary check goes in front of its route.
        server.web_app.middlewares.append(boundary.middleware(EVENTS_PATH, self.signing_secret))
        self.health.add_routes(server.web_app)
        return server.web_app

    async def start(self) -> None:
        """Start the scheduler with this app's publisher (catch-up runs now)."""
        await self.runtime.start(self.publisher)

    async def close(self) -> None:
        """Flush pending tally edits, then stop the scheduler, the core and the stores."""
        try:
            await self.coalescer.flush()
        finally:
            self.health.close()
            await self.runtime.stop()
            if self.installations is not None:
                self.installations.close()
