"""Serve a fake platform (or the app under test) on an ephemeral port of 127.0.0.1."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aiohttp import web

MAX_BODY = 32 * 1024 * 1024  # uploads of charts and long answers fit


async def serve_locally(app: web.Application, **runner: Any) -> tuple[web.AppRunner, int]:
    """Start serving ``app``; return its runner and the port the system picked."""
    started = web.AppRunner(app, **runner)
    await started.setup()
    site = web.TCPSite(started, "127.0.0.1", 0)
    await site.start()
    return started, site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]


async def stop_serving(runner: web.AppRunner | None,
                       sockets: Sequence[web.WebSocketResponse] = ()) -> None:
    """Close the open websockets, then the server."""
    for ws in list(sockets):
        await ws.close()
    if runner is not None:
        await runner.cleanup()
