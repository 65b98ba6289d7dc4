"""The question browser's narrow store port (db/store_browser.py implements it)."""

from __future__ import annotations

from typing import Protocol


class BrowserStore(Protocol):
    """What the browser reads to decide whether a member may see an item's answer."""

    def answered_items(self, user_id: int) -> set[str]:
        """Return the items the member has answered: in a round, or finished in practice."""
        ...

    def unsettled_items(self, platform: str, workspace: str, user_id: int) -> set[str]:
        """Return the items still in play: the workspace's open rounds, the member's practice."""
        ...
