"""What every long-running chat front end shares: the app, the scheduler, worker threads, a stop.

The core is synchronous (database and executor calls block), so a chat process must never call
it on its event loop: one slow grading would stall the gateway heartbeat or another member's
acknowledgement. :meth:`ChatRuntime.call` runs a core call on a bounded pool of worker threads
(also the loop's default executor, so the scheduler's ``asyncio.to_thread`` shares the bound).
Discord and Slack each build one runtime, attach their Publisher, and stop it on SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import logging
import signal
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from bot.bootstrap import App, build_app
from bot.core.app import Quiz
from bot.core.models import ChannelSettings
from bot.core.ports import Clock, Executor
from bot.scheduling import Publisher, QuizScheduler
from bot.settings import Settings

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")
DEFAULT_WORKERS = 16
STOP_TIMEOUT_S = 5.0  # SIGTERM to exit within 10 s, with room for the platform client


class ChatRuntime:
    """Own the app and the scheduler of one chat platform's process."""

    def __init__(
        self,
        settings: Settings,
        platform: str,
        *,
        clock: Clock | None = None,
        executor: Executor | None = None,
        workers: int = DEFAULT_WORKERS,
        grace: dt.timedelta | None = None,
    ) -> None:
        self.platform = platform
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"{platform}-core")
        self._loop: asyncio.AbstractEventLoop | None = None
        self.app: App = build_app(settings, clock=clock, executor=executor,
                                  on_settings_changed=self._settings_changed)
        self._grace = grace
        self.scheduler: QuizScheduler | None = None
        self._stopped = False

    @property
    def quiz(self) -> Quiz:
        """Return the core (the Quiz object adapters call)."""
        return self.app.quiz

    async def call(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a blocking core call on a worker thread and return its result."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(fn, *args, **kwargs))

    async def start(self, publisher: Publisher) -> QuizScheduler:
        """Start the scheduler with the platform's publisher (catch-up runs now)."""
        self._loop = asyncio.get_running_loop()
        self._loop.set_default_executor(self._pool)
        kwargs = {} if self._grace is None else {"grace": self._grace}
        self.scheduler = QuizScheduler(self.app.quiz, publisher, self.platform, **kwargs)
        await self.scheduler.start()
        return self.scheduler

    def _settings_changed(self, channel: ChannelSettings) -> None:
        # Called from a worker thread (the core runs there); the scheduler lives on the loop.
        if self.scheduler is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self.scheduler.schedule, channel)

    async def stop(self) -> None:
        """Stop the scheduler, the executor and the database; safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        if self.scheduler is not None and self.scheduler.scheduler.running:
            self.scheduler.scheduler.shutdown(wait=False)
        loop = asyncio.get_running_loop()
        # Closing the executor waits for its zygote: off the loop, and bounded.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(loop.run_in_executor(None, self.app.close), STOP_TIMEOUT_S)
        self._pool.shutdown(wait=False, cancel_futures=True)
        log.info("%s runtime stopped", self.platform)


def on_stop_signals(stop: Callable[[], object]) -> None:
    """Call ``stop`` on the running loop when the process gets SIGTERM or SIGINT."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop)
