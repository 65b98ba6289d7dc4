"""What every long-running chat front end shares: the core, the scheduler, worker threads, a stop.

The core is synchronous (database and executor calls block), so a chat process must never call
it on its event loop: one slow grading would stall the gateway heartbeat or another member's
acknowledgement. :meth:`ChatRuntime.call` runs a core call on a bounded pool of worker threads
(also the loop's default executor, so the scheduler's ``asyncio.to_thread`` shares the bound).
The composition root (bot/bootstrap.py) builds one runtime per chat process from the core it
wired; the platform attaches its Publisher, and stops the runtime on SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, Protocol, TypeVar

from bot.adapters.chat.limits import Busy, Limits
from bot.adapters.chat.metrics import CountingPublisher, Metrics
from bot.core.desk import Desk
from bot.core.kernel.messages import Message
from bot.core.kernel.models import ChannelSettings
from bot.core.kernel.ports import PackTools
from bot.core.quiz import Quiz


class Scheduler(Protocol):
    """The jobs of one platform's process (bot/scheduling.py), as the runtime drives them."""

    async def start(self) -> None:
        """Catch up, schedule every channel and start ticking."""
        ...

    def schedule(self, channel: ChannelSettings) -> None:
        """Reschedule one channel after its settings changed."""
        ...

    def shutdown(self) -> None:
        """Stop every job without waiting for running ones."""
        ...

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")
DEFAULT_WORKERS = 16
STOP_TIMEOUT_S = 5.0  # SIGTERM to exit within 10 s, with room for the platform client


class ChatRuntime:
    """Own the app and the scheduler of one chat platform's process."""

    def __init__(
        self,
        quiz: Quiz,
        platform: str,
        *,
        close: Callable[[], object],
        scheduler: Callable[[Any], Scheduler],
        workers: int = DEFAULT_WORKERS,
        limits: Limits | None = None,
        metrics: Metrics | None = None,
        packs: PackTools | None = None,
    ) -> None:
        self.platform = platform
        self.quiz = quiz
        self.desk = Desk(quiz, packs)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"{platform}-core")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._close = close
        self._make_scheduler = scheduler
        self.scheduler: Scheduler | None = None
        # Counted by the front and the publisher; read by /metrics (and by tests).
        self.metrics = metrics or Metrics(platform)
        # A trivial query on the database that returns the platform's pending answers (the
        # composition root sets it; /healthz asks it on a thread of its own).
        self.probe: Callable[[], int] | None = None
        self._scheduling = False
        self._stopped = False
        self.limits = limits or Limits()
        self._lock = threading.Lock()
        self._in_flight = 0

    async def call(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a blocking core call on a worker thread and return its result.

        Backpressure: with ``limits.max_in_flight`` calls already running or queued for a
        worker, raise Busy at once instead of queueing without limit (the member is told to
        try again). A call counts until its worker finishes, even if its caller gave up.
        """
        with self._lock:
            if self._in_flight >= self.limits.max_in_flight:
                raise Busy(f"{self._in_flight} core calls in flight")
            self._in_flight += 1
        # The caller's context goes along (as asyncio.to_thread does): the core names commands
        # as the asking platform calls them (bot.core.kernel.i18n.speaking_to).
        context = contextvars.copy_context()
        try:
            future = self._pool.submit(context.run, functools.partial(fn, *args, **kwargs))
        except BaseException:
            self._finished(None)
            raise
        future.add_done_callback(self._finished)
        return await asyncio.wrap_future(future)

    def _finished(self, _future: object) -> None:
        with self._lock:
            self._in_flight -= 1

    @property
    def in_flight(self) -> int:
        """Return how many core calls are running or waiting for a worker."""
        return self._in_flight

    async def post_for(self, round_id: int) -> tuple[ChannelSettings, str, Message] | None:
        """Return a posted round's channel, message ref and post as it should look now."""
        return await self.call(self.quiz.rounds.post_for, round_id)

    async def start(self, publisher: Any) -> Scheduler:
        """Start the scheduler with the platform's publisher (catch-up runs now)."""
        self._loop = asyncio.get_running_loop()
        self._loop.set_default_executor(self._pool)
        # Every post the scheduler makes goes through the counting wrapper.
        self.scheduler = self._make_scheduler(CountingPublisher(publisher, self.metrics))
        await self.scheduler.start()
        self._scheduling = True
        return self.scheduler

    def scheduler_running(self) -> bool:
        """Say whether the scheduler started and has not been stopped."""
        return self._scheduling and not self._stopped

    def settings_changed(self, channel: ChannelSettings) -> None:
        """Reschedule a channel whose settings changed (the core calls this on a worker thread)."""
        # The scheduler lives on the loop.
        if self.scheduler is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self.scheduler.schedule, channel)

    async def stop(self) -> None:
        """Stop the scheduler, the executor and the database; safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        if self.scheduler is not None:
            self.scheduler.shutdown()
        loop = asyncio.get_running_loop()
        # Closing the executor waits for its zygote: off the loop, and bounded.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(loop.run_in_executor(None, self._close), STOP_TIMEOUT_S)
        self._pool.shutdown(wait=False, cancel_futures=True)
        log.info("%s runtime stopped", self.platform)


def on_stop_signals(stop: Callable[[], object]) -> None:
    """Call ``stop`` on the running loop when the process gets SIGTERM or SIGINT."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop)
