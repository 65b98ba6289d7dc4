"""Run a store call once more when the database connection dropped under it.

A PostgreSQL restart or failover ends every session: a statement in flight fails, and until the
server is back every new connection is refused. The store's idempotent calls (reads, upserts,
and the answer writes, which recognise their own earlier try) wait for the server and run once
more instead of failing the member's answer. Any other error, or a second failure, is raised.
SQLite has no connection to lose: a locked file is waited out by its busy timeout instead.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, OperationalError

log = logging.getLogger(__name__)

# How long a call waits for the server to accept connections again before its one retry.
# A fast restart took 0.2-0.5 s here; a failover takes seconds. The member's click is already
# acknowledged, so waiting costs only the reply's delay.
RECONNECT_WAIT_S = 15.0
RECONNECT_POLL_S = 0.05


class HasEngine(Protocol):
    """Anything that runs on an engine: the store's parts."""

    @property
    def engine(self) -> Engine:
        """Return the engine the calls run on."""
        ...


P = ParamSpec("P")
T = TypeVar("T")
S = TypeVar("S", bound=HasEngine)


def is_disconnect(exc: BaseException) -> bool:
    """Return whether ``exc`` says the connection was lost, or could not be opened."""
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True  # the connection died mid-use; SQLAlchemy dropped the pool's connections
    # Raised while connecting, before any statement was sent: the server is down or restarting.
    return isinstance(exc, OperationalError) and exc.statement is None


class _Depth(threading.local):
    """How many retrying calls this thread is inside: only the outermost one retries."""

    value = 0


_depth = _Depth()


def run_retrying(engine: Engine, what: str, call: Callable[[bool], T]) -> T:
    """Return ``call(False)``, or after a lost connection ``call(True)`` once the server is back.

    The flag tells the call it is the retry: a write that may have committed on its first try
    (the connection dropped before COMMIT's answer came back) must recognise its own row.
    """
    outermost = _depth.value == 0
    _depth.value += 1
    try:
        try:
            return call(False)
        except DBAPIError as exc:
            # A store call inside another (a write reading its own rows) leaves the retry to
            # the outer one, which runs it all again: one retry per call, never one per level.
            if not outermost or engine.dialect.name == "sqlite" or not is_disconnect(exc):
                raise
            log.warning("%s: database connection lost (%s); retrying once", what,
                        _first_line(exc))
        _wait_for_server(engine, RECONNECT_WAIT_S)
        return call(True)
    finally:
        _depth.value -= 1


def retry_on_disconnect(
    method: Callable[Concatenate[S, P], T],
) -> Callable[Concatenate[S, P], T]:
    """Decorate an idempotent store method: run it once more after a lost connection."""

    @functools.wraps(method)
    def retrying(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return run_retrying(self.engine, method.__name__, lambda _: method(self, *args, **kwargs))

    return retrying


def _wait_for_server(engine: Engine, wait_s: float) -> None:
    """Return once a connection opens, or after ``wait_s``: the retry then fails on its own."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            # Checking a connection out pings a pooled one that outlived the server (engine.py),
            # so this returns only when the server answers.
            with engine.connect():
                return
        except DBAPIError as exc:
            if not is_disconnect(exc) or time.monotonic() >= deadline:
                return
        time.sleep(RECONNECT_POLL_S)


def _first_line(exc: BaseException) -> str:
    """Return the first line of the error: the driver's message, without the SQL."""
    return str(getattr(exc, "orig", exc)).partition("\n")[0]
