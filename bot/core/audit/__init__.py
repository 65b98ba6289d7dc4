"""The audit log: every change an admin makes (who, what, when, before and after)."""

from bot.core.audit.change import AdminChange, differences
from bot.core.audit.service import AuditService

__all__ = ["AdminChange", "AuditService", "differences"]
