"""The sign-in feature's narrow store port: links, sessions and the kept secret (db/ implements it).

Tokens are never stored: only a SHA-256 of each, so a copy of the database opens no session.
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.core.kernel.models import WebGrant, WebSession


class SignInStore(Protocol):
    """What signing in to the web page reads and writes."""

    def keep_web_secret(self, candidate: str) -> str:
        """Return the deployment's kept signing secret, storing ``candidate`` if there is none.

        The first writer wins: every process that asks gets the same secret.
        """
        ...


    def add_web_link(self, token_hash: str, grant: WebGrant, created_at: dt.datetime,
                     expires_at: dt.datetime) -> None:
        """Keep a new one-time link (and drop links and sessions long expired)."""
        ...


    def web_links_since(self, platform: str, user: str, since: dt.datetime) -> int:
        """Return how many links the member was given from ``since`` on."""
        ...


    def web_link(self, token_hash: str, now: dt.datetime) -> WebGrant | None:
        """Return the grant of an unused link that has not expired at ``now``, else None."""
        ...


    def redeem_web_link(self, token_hash: str, now: dt.datetime, session_hash: str, csrf: str,
                        session_expires: dt.datetime) -> WebSession | None:
        """Use the link once and open its session, in one transaction.

        None when the link is unknown, used or expired: of two redeemers, one gets the session.
        """
        ...


    def web_session(self, session_hash: str, now: dt.datetime) -> WebSession | None:
        """Return the session if it exists and has not expired at ``now``."""
        ...


    def end_web_session(self, session_hash: str) -> None:
        """End one session (logout)."""
        ...


    def end_web_sessions(self, platform: str, user: str) -> int:
        """End every session and unused link of a member; return the sessions ended."""
        ...


    def member_workspaces(self, platform: str, user: str, limit: int) -> list[str]:
        """Return up to ``limit`` workspaces (platform ids) where the member has answered."""
        ...
