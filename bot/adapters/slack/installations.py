"""Slack installations: every workspace that installed the app, for bolt's async OAuth flow.

With SLACK_CLIENT_ID and SLACK_CLIENT_SECRET the app serves bolt's OAuth flow, and each
workspace's installation (its own bot token) is kept in the project's database through
slack-sdk's SQLAlchemy stores (the composition root builds them over the one engine; the Alembic
migrations create their tables). Those stores are synchronous, and bolt's async app wants async
ones: the wrappers here run them on a small pool of their own, so looking up a token never waits
behind a grading that fills the core's pool.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from logging import Logger
from typing import Any, TypeVar

from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.installation_store.installation_store import InstallationStore
from slack_sdk.oauth.installation_store.models.bot import Bot
from slack_sdk.oauth.installation_store.models.installation import Installation
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore
from slack_sdk.oauth.state_store.state_store import OAuthStateStore

log = logging.getLogger(__name__)

T = TypeVar("T")
STATE_EXPIRES_S = 600
STORE_WORKERS = 4


class NotInstalled(LookupError):
    """The workspace has no installation of the app (never installed, or uninstalled)."""


class _Pool:
    def __init__(self, workers: int = STORE_WORKERS) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="slack-store")

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(fn, *args, **kwargs))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class ThreadedInstallationStore(AsyncInstallationStore):
    """A synchronous slack-sdk installation store, run off the event loop."""

    def __init__(self, store: InstallationStore, pool: _Pool) -> None:
        self.store = store
        self._pool = pool

    @property
    def logger(self) -> Logger:
        """Return the wrapped store's logger."""
        return self.store.logger

    async def async_save(self, installation: Installation) -> None:
        """Save an installation and its bot."""
        await self._pool.run(self.store.save, installation)
        log.info("slack app installed team=%s enterprise=%s", installation.team_id,
                 installation.enterprise_id)

    async def async_save_bot(self, bot: Bot) -> None:
        """Save a bot."""
        await self._pool.run(self.store.save_bot, bot)

    async def async_find_bot(self, *, enterprise_id: str | None, team_id: str | None,
                             is_enterprise_install: bool | None = False) -> Bot | None:
        """Return the latest bot of a workspace."""
        return await self._pool.run(self.store.find_bot, enterprise_id=enterprise_id,
                                    team_id=team_id, is_enterprise_install=is_enterprise_install)

    async def async_find_installation(self, *, enterprise_id: str | None, team_id: str | None,
                                      user_id: str | None = None,
                                      is_enterprise_install: bool | None = False,
                                      ) -> Installation | None:
        """Return the latest installation of a workspace (by a user, if given)."""
        return await self._pool.run(self.store.find_installation, enterprise_id=enterprise_id,
                                    team_id=team_id, user_id=user_id,
                                    is_enterprise_install=is_enterprise_install)

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        """Forget a workspace's bot (its token was revoked)."""
        await self._pool.run(self.store.delete_bot, enterprise_id=enterprise_id, team_id=team_id)

    async def async_delete_installation(self, *, enterprise_id: str | None,
                                        team_id: str | None, user_id: str | None = None) -> None:
        """Forget a workspace's installation (the app was uninstalled)."""
        await self._pool.run(self.store.delete_installation, enterprise_id=enterprise_id,
                             team_id=team_id, user_id=user_id)

    async def async_delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        """Forget everything about a workspace."""
        await self.async_delete_bot(enterprise_id=enterprise_id, team_id=team_id)
        await self.async_delete_installation(enterprise_id=enterprise_id, team_id=team_id)


class ThreadedStateStore(AsyncOAuthStateStore):
    """A synchronous slack-sdk OAuth state store, run off the event loop."""

    def __init__(self, store: OAuthStateStore, pool: _Pool) -> None:
        self.store = store
        self._pool = pool

    @property
    def logger(self) -> Logger:
        """Return the wrapped store's logger."""
        return self.store.logger

    async def async_issue(self, *args: Any, **kwargs: Any) -> str:
        """Issue a new state for an install about to start."""
        return await self._pool.run(self.store.issue)

    async def async_consume(self, state: str) -> bool:
        """Use a state up; False when it is unknown, used or expired."""
        return await self._pool.run(self.store.consume, state)


class Installations:
    """The installations of a multi-workspace app, over the stores the composition root built."""

    def __init__(self, installations: InstallationStore, states: OAuthStateStore) -> None:
        self._pool = _Pool()
        self.installation_store = ThreadedInstallationStore(installations, self._pool)
        self.state_store = ThreadedStateStore(states, self._pool)

    async def bot_token(self, team_id: str) -> str:
        """Return the bot token the workspace's installation holds."""
        bot = await self.installation_store.async_find_bot(enterprise_id=None, team_id=team_id)
        if bot is None or not bot.bot_token:
            raise NotInstalled(f"no installation for team {team_id}")
        return bot.bot_token

    def close(self) -> None:
        """Stop the stores' threads (their database is the app's: the app closes it)."""
        self._pool.close()
