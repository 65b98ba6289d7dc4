"""Coalesce bursts of "this round's tally changed" into a few edits of the posted question.

At 09:00 a team answers within seconds of each other; editing the channel post once per answer
would hit the platform's rate limits and say nothing the next edit does not. Each round gets at
most one pending edit: the first change schedules it ``delay_s`` later, later changes only mark
it dirty, and a change that arrives while the edit is running schedules one more.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.core.kernel.messages import Message
from bot.core.kernel.models import ChannelSettings

log = logging.getLogger(__name__)

DEFAULT_DELAY_S = 2.0


class EditCoalescer:
    """Run ``update(key)`` at most once per ``delay_s`` per key, after the latest change."""

    def __init__(
        self, update: Callable[[int], Awaitable[None]], delay_s: float = DEFAULT_DELAY_S
    ) -> None:
        self._update = update
        self._delay_s = delay_s
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._dirty: set[int] = set()

    def touch(self, key: int) -> None:
        """Note that ``key`` changed; call from the event loop."""
        self._dirty.add(key)
        if key not in self._tasks:
            self._tasks[key] = asyncio.get_running_loop().create_task(self._run(key))

    async def _run(self, key: int) -> None:
        try:
            while key in self._dirty:
                await asyncio.sleep(self._delay_s)
                self._dirty.discard(key)
                try:
                    await self._update(key)
                except Exception:
                    # A failed edit is cosmetic: the next change or the reveal redraws the post.
                    log.exception("coalesced edit failed key=%s", key)
        finally:
            self._tasks.pop(key, None)

    async def flush(self) -> None:
        """Wait for every pending edit (at shutdown, so the last tally is not lost)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)


class RoundRedraw:
    """Redraw a posted round as the core says it looks now, through a platform's edit.

    The coalescer calls this once per burst of answers; the core composes the post (tally,
    or no buttons once closed) and the platform only edits its message.
    """

    def __init__(
        self,
        post_for: Callable[[int], Awaitable[tuple[ChannelSettings, str, Message] | None]],
        edit: Callable[[ChannelSettings, str, Message], Awaitable[object]],
    ) -> None:
        self._post_for = post_for
        self._edit = edit

    async def __call__(self, round_id: int) -> None:
        """Redraw the round, if it was posted."""
        found = await self._post_for(round_id)
        if found is not None:
            await self._edit(*found)
