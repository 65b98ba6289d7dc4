"""Signing in to the web page: one-time links asked for in chat, then server-side sessions."""

from bot.core.signin.service import (
    DEFAULT_WEB_URL,
    LINK_TTL,
    LINK_WINDOW,
    LINKS_PER_WINDOW,
    SESSION_TTL,
    SignInService,
)

__all__ = [
    "DEFAULT_WEB_URL",
    "LINKS_PER_WINDOW",
    "LINK_TTL",
    "LINK_WINDOW",
    "SESSION_TTL",
    "SignInService",
]
