"""Packs: the library of question banks a channel draws from, scoped per workspace."""

from bot.core.packs.library import (
    DEFAULT_PACKS,
    SHIPPED,
    Library,
    channel_scope,
    library_of,
    workspace_scope,
)

__all__ = [
    "DEFAULT_PACKS",
    "SHIPPED",
    "Library",
    "channel_scope",
    "library_of",
    "workspace_scope",
]
