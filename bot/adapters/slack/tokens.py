"""Where the Slack app finds a workspace's bot token: one fixed token, or the installations."""

from __future__ import annotations

from typing import Protocol

from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore


class Tokens(Protocol):
    """Where the publisher finds the bot token of a channel's workspace."""

    async def bot_token(self, team_id: str) -> str:
        """Return the bot token for ``team_id``; raise LookupError when it has none."""
        ...


class InstallationStores(Tokens, Protocol):
    """The stores of a multi-workspace app (OAuth installs), built by the composition root."""

    @property
    def installation_store(self) -> AsyncInstallationStore:
        """Return where bolt keeps each workspace's installation."""
        ...

    @property
    def state_store(self) -> AsyncOAuthStateStore:
        """Return where bolt keeps the OAuth flow's states."""
        ...

    def close(self) -> None:
        """Release the stores' worker threads."""
        ...


class SingleWorkspace:
    """The one bot token of a single-workspace app (SLACK_BOT_TOKEN)."""

    def __init__(self, token: str) -> None:
        self._token = token

    async def bot_token(self, team_id: str) -> str:
        """Return the token, whatever the workspace."""
        return self._token
