"""The audit log's narrow store port (db/ implements it)."""

from __future__ import annotations

from typing import Protocol

from bot.core.audit.change import AdminChange


class AuditStore(Protocol):
    """What the audit log writes and reads."""

    def add_admin_change(self, change: AdminChange) -> None:
        """Keep one admin change."""
        ...

    def admin_changes(self, platform: str, workspace: str, limit: int) -> list[AdminChange]:
        """Return the workspace's latest changes, newest first, at most ``limit``."""
        ...
