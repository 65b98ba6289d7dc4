"""The audit log: every change an admin makes (who, what, when, before and after)."""

from bot.core.audit.service import AdminChange, AuditService

__all__ = ["AdminChange", "AuditService"]
