"""Record what admins change, from any front end, and read a workspace's log back.

A change is written as the admin typed it (``time=07:30``), before and after, so the log
reads the same whichever front end made it: chat's /quiz-settings or the web page's form.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.core.kernel.ports import Clock

if TYPE_CHECKING:
    from bot.core.audit.store import AuditStore

AUDIT_PAGE = 100  # the log page lists the latest changes
TEXT_LIMIT = 2000  # before and after are settings lines: longer is cut


@dataclass(frozen=True)
class AdminChange:
    """One change an admin made: who (platform id and name), what, when, before and after."""

    platform: str
    workspace: str
    actor: str
    actor_name: str
    action: str  # "settings"
    target: str  # what changed: a channel's name
    before: str
    after: str
    at: dt.datetime


def differences(before: Mapping[str, str], after: Mapping[str, str]) -> tuple[str, str]:
    """Return (before, after) as ``key=value`` lines of the keys whose value changed."""
    keys = [k for k in after if before.get(k) != after[k]]
    return (" ".join(f"{k}={before.get(k, '')}" for k in keys),
            " ".join(f"{k}={after[k]}" for k in keys))


class AuditService:
    """Write admin changes to the log and read a workspace's latest ones."""

    def __init__(self, store: AuditStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock

    def record(self, *, platform: str, workspace: str, actor: str, actor_name: str,
               action: str, target: str, before: str, after: str) -> None:
        """Keep one change, stamped now (nothing changed: nothing is kept)."""
        if before == after:
            return
        self.store.add_admin_change(AdminChange(
            platform=platform, workspace=workspace, actor=actor, actor_name=actor_name[:200],
            action=action, target=target[:200], before=before[:TEXT_LIMIT],
            after=after[:TEXT_LIMIT], at=self.clock.now()))

    def latest(self, platform: str, workspace: str, limit: int = AUDIT_PAGE) -> list[AdminChange]:
        """Return the workspace's latest changes, newest first."""
        return self.store.admin_changes(platform, workspace, limit)
