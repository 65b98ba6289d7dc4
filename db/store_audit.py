"""The audit log and the settings stamp on SQLAlchemy."""

from __future__ import annotations

from sqlalchemy import select

from bot.core.kernel.models import AdminChange
from db.store_base import StoreBase
from db.tables import AdminChangeRow


class AuditStore(StoreBase):
    """The AuditStore port: admin changes kept and read back per workspace."""

    def add_admin_change(self, change: AdminChange) -> None:
        """Keep one admin change."""
        with self._transaction() as session:
            session.add(AdminChangeRow(
                platform=change.platform, workspace=change.workspace, actor=change.actor,
                actor_name=change.actor_name, action=change.action, target=change.target,
                before=change.before, after=change.after, at=change.at))

    def admin_changes(self, platform: str, workspace: str, limit: int) -> list[AdminChange]:
        """Return the workspace's latest changes, newest first, at most ``limit``."""
        with self._read() as session:
            rows = session.scalars(
                select(AdminChangeRow)
                .where(AdminChangeRow.platform == platform,
                       AdminChangeRow.workspace == workspace)
                .order_by(AdminChangeRow.at.desc(), AdminChangeRow.id.desc())
                .limit(limit)).all()
            return [AdminChange(platform=r.platform, workspace=r.workspace, actor=r.actor,
                                actor_name=r.actor_name, action=r.action, target=r.target,
                                before=r.before, after=r.after, at=r.at) for r in rows]
