"""Remember recent request ids so that a retried run returns its first verdict, never a second run.

Used from the server's event loop only (one thread), so it needs no lock. Memory is bounded
twice: an entry lives at most ``ttl_s`` (an hour by default), and at most ``capacity``
finished entries are kept, oldest dropped first. A run still in flight is never dropped: the
server's queue bound already limits how many there can be.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

DEFAULT_TTL_S = 3600.0
DEFAULT_CAPACITY = 4096


class Seen(StrEnum):
    """What the ledger knows about a request id."""

    NEW = "new"  # never seen (or forgotten): the caller reserved it and must run it
    DONE = "done"  # finished: here is the stored verdict
    RUNNING = "running"  # the first request is still running: wait for its verdict
    CONFLICT = "conflict"  # the id was used for a different run


@dataclass
class _Entry:
    fingerprint: str
    done: asyncio.Future[bytes]
    finished_at: float = 0.0


@dataclass(frozen=True)
class Lookup:
    """The answer to :meth:`RequestLedger.claim`."""

    seen: Seen
    verdict: bytes = b""
    pending: asyncio.Future[bytes] | None = field(default=None, compare=False)


class RequestLedger:
    """Map request ids to their verdict (JSON bytes) for an hour, in bounded memory."""

    def __init__(
        self,
        ttl_s: float = DEFAULT_TTL_S,
        capacity: int = DEFAULT_CAPACITY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_s = ttl_s
        self.capacity = capacity
        self._clock = clock
        self._running: dict[str, _Entry] = {}
        # Finished entries in the order they finished: expiry and trimming pop from the front.
        self._finished: OrderedDict[str, _Entry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._running) + len(self._finished)

    def claim(self, request_id: str, fingerprint: str) -> Lookup:
        """Return what is known about ``request_id``; reserve it when it is new."""
        self._expire()
        entry = self._finished.get(request_id) or self._running.get(request_id)
        if entry is None:
            future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
            self._running[request_id] = _Entry(fingerprint, future)
            return Lookup(Seen.NEW)
        if entry.fingerprint != fingerprint:
            return Lookup(Seen.CONFLICT)
        if entry.done.done():
            return Lookup(Seen.DONE, entry.done.result())
        return Lookup(Seen.RUNNING, pending=entry.done)

    def finish(self, request_id: str, verdict: bytes) -> None:
        """Store the verdict of a reserved request and wake those waiting for it."""
        entry = self._running.pop(request_id, None)
        if entry is None:
            return
        entry.done.set_result(verdict)
        entry.finished_at = self._clock()
        self._finished[request_id] = entry
        while len(self._finished) > self.capacity:
            self._finished.popitem(last=False)

    def abandon(self, request_id: str, error: BaseException) -> None:
        """Forget a reserved request that produced no verdict, so a retry may run it."""
        entry = self._running.pop(request_id, None)
        if entry is not None:
            entry.done.set_exception(error)
            # Nobody may be waiting; mark the exception retrieved so asyncio does not log it.
            entry.done.exception()

    def _expire(self) -> None:
        cutoff = self._clock() - self.ttl_s
        while self._finished:
            oldest = next(iter(self._finished.values()))
            if oldest.finished_at >= cutoff:
                return
            self._finished.popitem(last=False)
