"""One-time sign-in links and the sessions they open, signed with the deployment's secret.

A link is asked for in chat (``/quiz-web``, the console's ``/web``): it carries a random token
and its HMAC, is valid for :data:`LINK_TTL`, opens one session and is bound to the platform,
workspace and member it was given to, with the admin right chat established then. A session
lasts at most :data:`SESSION_TTL` and is kept server-side (revocable); the browser holds only
its token and signature. The secret is ``TORCHQUIZ_WEB_SECRET``, or one generated once and
kept in the database, so the console and ``torchquiz web`` on one database agree on it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets

from bot.core.kernel.models import WebGrant, WebSession
from bot.core.kernel.ports import Clock
from bot.core.signin.store import SignInStore

DEFAULT_WEB_URL = "http://127.0.0.1:8000"
LINK_TTL = dt.timedelta(minutes=10)
SESSION_TTL = dt.timedelta(hours=12)
# Links a member may be given in LINK_WINDOW: enough to retry, too few to flood anyone.
LINKS_PER_WINDOW = 5
LINK_WINDOW = dt.timedelta(minutes=10)
LOGIN_PATH = "/login/"
MAX_WORKSPACES = 25  # servers a platform sign-in checks for one member

_TOKEN = re.compile(r"[0-9a-f]{32,64}\.[0-9a-f]{32}")


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


class SignInService:
    """Give one-time links, turn a link into a session, and find the session of a cookie."""

    def __init__(self, store: SignInStore, clock: Clock, base_url: str = DEFAULT_WEB_URL,
                 secret: str | None = None) -> None:
        self.store = store
        self.clock = clock
        self.base_url = (base_url or DEFAULT_WEB_URL).rstrip("/")
        self._secret = secret.encode() if secret else None

    @property
    def secure(self) -> bool:
        """Say whether the page is served over TLS (its cookies are then Secure)."""
        return self.base_url.lower().startswith("https://")

    def _key(self) -> bytes:
        if self._secret is None:
            self._secret = self.store.keep_web_secret(secrets.token_hex(32)).encode()
        return self._secret

    def sign(self, purpose: str, text: str) -> str:
        """Return the signature of ``text`` for ``purpose`` (a link, a session, a login form)."""
        mac = hmac.new(self._key(), f"{purpose}\0{text}".encode(), hashlib.sha256)
        return mac.hexdigest()[:32]

    def _signed(self, purpose: str, value: str) -> str | None:
        """Return the token of ``TOKEN.SIGNATURE`` when its signature holds, else None."""
        if not isinstance(value, str) or not _TOKEN.fullmatch(value):
            return None
        token, _, signature = value.partition(".")
        return token if hmac.compare_digest(self.sign(purpose, token), signature) else None

    # ------------------------------------------------------------ links
    def link(self, grant: WebGrant) -> str | None:
        """Return a one-time sign-in link for ``grant``; None when the member asked too often."""
        now = self.clock.now()
        if self.store.web_links_since(grant.platform, grant.user,
                                      now - LINK_WINDOW) >= LINKS_PER_WINDOW:
            return None
        token = secrets.token_hex(16)
        self.store.add_web_link(_hash(token), grant, now, now + LINK_TTL)
        return f"{self.base_url}{LOGIN_PATH}{token}.{self.sign('link', token)}"

    def pending(self, value: str) -> WebGrant | None:
        """Return the grant of a link that would still sign in (signed, unused, in time)."""
        token = self._signed("link", value)
        return None if token is None else self.store.web_link(_hash(token), self.clock.now())

    def redeem(self, value: str) -> tuple[str, WebSession] | None:
        """Use a link once: return the session cookie's value and the session, or None."""
        token = self._signed("link", value)
        if token is None:
            return None
        now = self.clock.now()
        session_token = secrets.token_hex(24)
        session = self.store.redeem_web_link(_hash(token), now, _hash(session_token),
                                             secrets.token_hex(16), now + SESSION_TTL)
        if session is None:
            return None
        return f"{session_token}.{self.sign('session', session_token)}", session

    def sign_in(self, grant: WebGrant) -> tuple[str, WebSession] | None:
        """Open a session for a member the platform itself vouched for (Slack, Discord).

        A one-time link made and used at once: the same rate limit, the same session and the
        same revocation as a chat link. None when the member signed in too often.
        """
        link = self.link(grant)
        return None if link is None else self.redeem(link.rsplit("/", 1)[1])

    def member_workspaces(self, platform: str, user: str) -> list[str]:
        """Return the workspaces where the member has answered (a sign-in's candidates)."""
        return self.store.member_workspaces(platform, user, MAX_WORKSPACES)

    # ------------------------------------------------------------ sessions
    def session(self, cookie: str) -> WebSession | None:
        """Return the live session a cookie names, or None (unsigned, unknown, ended, expired)."""
        token = self._signed("session", cookie)
        return None if token is None else self.store.web_session(_hash(token), self.clock.now())

    def end(self, cookie: str) -> None:
        """End the session a cookie names (logout); an unknown cookie ends nothing."""
        token = self._signed("session", cookie)
        if token is not None:
            self.store.end_web_session(_hash(token))

    def end_all(self, platform: str, user: str) -> int:
        """End every session and unused link of a member; return the sessions ended."""
        return self.store.end_web_sessions(platform, user)

    def form_token(self, nonce: str) -> str:
        """Return the CSRF token of the sign-in form, bound to the browser's nonce cookie."""
        return self.sign("login-form", nonce)

    def form_token_holds(self, nonce: str, token: str) -> bool:
        """Say whether a posted sign-in form's token matches the browser's nonce cookie."""
        if not nonce or not isinstance(token, str) or len(token) != 32:
            return False
        return hmac.compare_digest(self.form_token(nonce), token)
