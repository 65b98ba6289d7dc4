"""One admin change as the log keeps it, and how a settings change is written down."""

from __future__ import annotations

from collections.abc import Mapping

from bot.core.kernel.models import AdminChange

__all__ = ["AdminChange", "differences"]


def differences(before: Mapping[str, str], after: Mapping[str, str]) -> tuple[str, str]:
    """Return (before, after) as ``key=value`` lines of the keys whose value changed."""
    keys = [k for k in after if before.get(k) != after[k]]
    return (" ".join(f"{k}={before.get(k, '')}" for k in keys),
            " ".join(f"{k}={after[k]}" for k in keys))
