"""Record what admins change, from any front end, and read a workspace's log back.

A change is written as the admin typed it (``time=07:30``), before and after, so the log
reads the same whichever front end made it: chat's /quiz-settings or the web page's form.
"""

from __future__ import annotations

from bot.core.audit.change import AdminChange
from bot.core.audit.store import AuditStore
from bot.core.kernel.ports import Clock

AUDIT_PAGE = 100  # the log page lists the latest changes
TEXT_LIMIT = 2000  # before and after are settings lines: longer is cut


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
