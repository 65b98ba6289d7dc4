"""``/healthz`` and ``/metrics`` of a chat process, on its own port or beside Slack's events.

Ready means all three parts are up: the platform connection (Discord's gateway, Slack's
Socket Mode connection, or for Slack over HTTP the server answering this request, its token
checked at start), the database (it answers a trivial query on a table of ours), and the
scheduler. Anything else is 503 with the parts that are down. The database is asked on a
thread of its own with a deadline, so neither a hung database nor busy core workers stall
the loop or the probe; each ask also refreshes the pending-answers gauge.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

from aiohttp import web

from bot.adapters.chat.runtime import ChatRuntime

log = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"
DATABASE_TIMEOUT_S = 3.0

PlatformCheck = Callable[[], Awaitable[bool]]


async def _always() -> bool:
    return True


class Health:
    """Answer readiness and metrics for one chat runtime and its platform connection."""

    def __init__(self, runtime: ChatRuntime, platform: PlatformCheck = _always) -> None:
        self.runtime = runtime
        self.platform = platform
        self._db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="health-db")
        self._asking: asyncio.Future[int] | None = None

    async def _database_up(self) -> bool:
        probe = self.runtime.probe
        if probe is None:
            return False
        if self._asking is None or self._asking.done():
            # One question at a time: probes during a hung query wait for it, not pile up.
            self._asking = asyncio.get_running_loop().run_in_executor(self._db, probe)
            # Its failure is read here even when every waiter gave up (no "never retrieved").
            self._asking.add_done_callback(lambda done: done.cancelled() or done.exception())
        try:
            pending = await asyncio.wait_for(asyncio.shield(self._asking), DATABASE_TIMEOUT_S)
        except Exception as exc:  # a timeout, a refused connection, a missing table
            log.warning("health: the database does not answer: %s", type(exc).__name__,
                        extra={"platform": self.runtime.platform})
            return False
        self.runtime.metrics.pending(pending)
        return True

    async def _platform_up(self) -> bool:
        try:
            return bool(await self.platform())
        except Exception:
            log.warning("health: the platform check failed", exc_info=True)
            return False

    async def check(self) -> dict[str, bool]:
        """Return each part and whether it is up."""
        return {"platform": await self._platform_up(), "database": await self._database_up(),
                "scheduler": self.runtime.scheduler_running()}

    async def healthz(self, _request: web.Request) -> web.Response:
        """Answer 200 when every part is up, 503 naming the parts that are down."""
        parts = await self.check()
        down = [name for name, up in parts.items() if not up]
        if not down:
            return web.json_response({"ok": True})
        return web.json_response({"ok": False, "down": down}, status=503)

    async def metrics(self, _request: web.Request) -> web.Response:
        """Answer the Prometheus text (the pending gauge refreshed first)."""
        await self._database_up()
        body, content_type = self.runtime.metrics.exposition()
        response = web.Response(body=body)
        response.headers["Content-Type"] = content_type
        return response

    def add_routes(self, app: web.Application) -> None:
        """Serve ``/healthz`` and ``/metrics`` from ``app``."""
        app.router.add_get(HEALTH_PATH, self.healthz)
        app.router.add_get(METRICS_PATH, self.metrics)

    def close(self) -> None:
        """Let go of the database thread (a hung probe is left to finish on its own)."""
        self._db.shutdown(wait=False, cancel_futures=True)


async def serve(health: Health, host: str, port: int) -> web.AppRunner | None:
    """Serve ``health`` on ``host:port`` (port 0: not at all); a taken port is logged, not fatal.

    The process works without its probe, and a probe that cannot connect reports it anyway.
    """
    if port <= 0:
        return None
    app = web.Application()
    health.add_routes(app)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as exc:
        log.error("cannot serve /healthz and /metrics on %s:%s: %s", host, port, exc)
        await runner.cleanup()
        return None
    log.info("serving /healthz and /metrics on http://%s:%s", host, port)
    return runner
