"""The people feature's narrow store port: only the storage it uses (db/ implements it)."""

from __future__ import annotations

from typing import Protocol

from bot.core.kernel.models import (
    ForgetReport,
    MemberData,
)


class PeopleStore(Protocol):
    """A member's own data: what export reads and forget-me deletes."""

    def member_data(
        self, platform: str, external_id: str, workspace: str | None = None
    ) -> MemberData | None:
        """Return everything stored about the member, section by section; None if unknown.

        ``workspace`` narrows the sections tied to channels to that workspace's channels (None
        when the platform has no such workspace); the others belong to the member wherever
        they are.
        """
        ...


    def forget_member(self, platform: str, external_id: str) -> ForgetReport | None:
        """Delete the member and every row about them in one transaction; None if unknown.

        The channels' kept totals stay equal to a recount of the answers that remain. Their
        tries at rounds still open stay without them, marked for that person until the round
        closes, and ``attempts`` counts them as theirs if they come back (db/forgotten.py).
        """
        ...
