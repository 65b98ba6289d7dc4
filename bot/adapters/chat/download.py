"""Fetch a member's uploaded file from the platform's own file host, bounded.

A pack file reaches the bot as a URL the platform gave (a Discord attachment, a Slack file's
``url_private_download``). It is fetched only from the one file host the client is configured
for (so a forged URL can neither receive Slack's bot token nor point the bot at an internal
address), without following redirects, and never more than ``limit`` + 1 bytes: a file that
claimed to be small and is not is refused as too big, not loaded.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from urllib.parse import urlsplit

import aiohttp

log = logging.getLogger(__name__)

CHUNK = 64 * 1024
TIMEOUT_S = 30.0


class DownloadRefused(ValueError):
    """The URL is not on the platform's file host: nothing was sent to it."""


def origin(url: str) -> tuple[str, str]:
    """Return (scheme, host[:port]) of ``url``, lower-cased."""
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


async def fetch_bounded(url: str, *, allowed: Collection[tuple[str, str]], limit: int,
                        headers: Mapping[str, str] | None = None,
                        timeout_s: float = TIMEOUT_S) -> bytes | None:
    """Return at most ``limit`` + 1 bytes of ``url``; None when the host did not serve it.

    Raise DownloadRefused, before any connection, when ``url`` is not on an ``allowed``
    (scheme, host) origin; ``headers`` (a token) go to that origin only, and a redirect is not
    followed anywhere.
    """
    if origin(url) not in allowed or "@" in urlsplit(url).netloc:
        raise DownloadRefused(f"not a file host of the platform: {origin(url)[1][:80]!r}")
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    async with aiohttp.ClientSession(timeout=timeout) as session, session.get(
            url, headers=dict(headers or {}), allow_redirects=False) as answer:
        if answer.status != 200:
            log.warning("file download answered %s from %s", answer.status, origin(url)[1])
            return None
        data = bytearray()
        async for chunk in answer.content.iter_chunked(CHUNK):
            data += chunk
            if len(data) > limit:
                break  # one byte past the limit is all the refusal needs
        return bytes(data[: limit + 1])
