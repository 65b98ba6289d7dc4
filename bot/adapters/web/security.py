"""What every response of the web page carries, and the few checks every request takes.

The Content-Security-Policy allows no script at all and no framing; forms post only to us.
Cookies are HttpOnly and SameSite=Lax, and Secure when the public URL is https.
"""

from __future__ import annotations

import hmac
import time
from collections import deque
from collections.abc import Callable

from aiohttp import web

SESSION_COOKIE = "tq_session"
LOGIN_COOKIE = "tq_login"  # the sign-in form's nonce: its CSRF token is bound to it
LANGUAGE_COOKIE = "tq_lang"  # the language a member chose on the page, over chat's
CSRF_FIELD = "csrf"

CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
       "frame-ancestors 'none'; base-uri 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    # Sign-in links carry their token in the path: never hand it to another site.
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def harden(response: web.StreamResponse, *, private: bool) -> None:
    """Add the security headers; a page about a member is never cached."""
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    if private:
        response.headers["Cache-Control"] = "no-store"


def set_cookie(response: web.StreamResponse, name: str, value: str, *, max_age: int,
               secure: bool, path: str = "/") -> None:
    """Set a cookie the page's script-free pages never read: HttpOnly, SameSite=Lax."""
    response.set_cookie(name, value, max_age=max_age, path=path, httponly=True,
                        samesite="Lax", secure=secure)


def same(expected: str, given: object) -> bool:
    """Compare a token in constant time; anything that is not a string fails."""
    return isinstance(given, str) and bool(expected) and hmac.compare_digest(
        expected.encode(), given.encode())


class Throttle:
    """Allow at most ``limit`` hits per ``window_s`` per key (a client address), in memory.

    Each web process counts on its own; the chat side limits how many links a member gets.
    """

    def __init__(self, limit: int, window_s: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._hits: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        """Count a hit for ``key``; say whether it is within the limit."""
        now = self.clock()
        if len(self._hits) > 10_000:  # a flood of addresses: forget the idle ones
            self._hits = {k: v for k, v in self._hits.items() if v and v[-1] > now - self.window_s}
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.window_s:
            hits.popleft()
        if len(hits) >= self.limit:
            return False
        hits.append(now)
        return True
