"""The web page's process: `torchquiz web [--host H] [--port P]`."""

from __future__ import annotations

import logging
from collections.abc import Callable

from aiohttp import web

from bot.adapters.web.app import WebFront
from bot.adapters.web.pages import application
from bot.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def main(settings: Settings, build: Callable[[], tuple[WebFront, Callable[[], object]]],
         *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> int:
    """Serve the page until interrupted; return the exit status."""
    front, close = build()
    try:
        print(f"torchquiz web: serving http://{host}:{port} (links start with "
              f"{settings.web_url}); /healthz answers when the database does", flush=True)
        web.run_app(application(front), host=host, port=port, access_log=None, print=None,
                    handle_signals=True)
    except OSError as exc:
        print(f"torchquiz web: cannot listen on {host}:{port}: {exc}", flush=True)
        return 1
    finally:
        close()
    return 0
