"""The quality feature's narrow store port: only the storage it uses (db/ implements it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from typing import Protocol

from bot.core.kernel.models import (
    ItemTally,
    Report,
    ReportCounts,
    ReportDraft,
    Round,
)


class ReportStore(Protocol):
    """Reports of faulty questions."""

    def get_round(self, round_id: int) -> Round | None:
        """Return the round with this id, if any."""
        ...


    def add_report(self, draft: ReportDraft) -> Report | None:
        """Store the report; None when the member already reported this item version."""
        ...


    def reports(
        self, *, status: str | None = "open", platform: str | None = None,
        workspace: str | None = None, limit: int | None = None,
    ) -> list[Report]:
        """Return reports, oldest first: open ones by default, of one workspace if named."""
        ...


    def count_reports(self, *, platform: str | None = None, workspace: str | None = None) -> int:
        """Return how many open reports there are (of one workspace if named)."""
        ...


    def close_report(
        self, report_id: int, reason: str, at: dt.datetime, *,
        platform: str | None = None, workspace: str | None = None,
    ) -> Report | None:
        """Close an open report with a reason; None when there is no such open report (there)."""
        ...



class InsightStore(Protocol):
    """Item analytics: answer tallies, open reports and paused versions."""

    def open_reports(self, item_id: str | None = None) -> list[ReportCounts]:
        """Return the open reports per item version (of ``item_id`` only if named), by reason."""
        ...


    def item_tallies(self, since: dt.date | None = None) -> list[ItemTally]:
        """Return the sums of each answered item version's first tries at daily rounds.

        One aggregate statement whatever the number of answers: per member and version, then
        per member, then per version. ``since``: only rounds dated that day or later.
        """
        ...


    def paused_items(self) -> set[tuple[str, int]]:
        """Return the (item id, version) keys no daily pick may choose (one small read)."""
        ...


    def pause_items(
        self, keys: Collection[tuple[str, int]], reason: str, at: dt.datetime
    ) -> list[tuple[str, int]]:
        """Pause these item versions unless paused (or unpaused) before; return those paused now.

        An admin's unpause is kept: the same version is not paused again by the same evidence.
        """
        ...


    def unpause_item(self, item_id: str, at: dt.datetime) -> list[int]:
        """Unpause every paused version of ``item_id``; return the versions unpaused."""
        ...

    def pause_item(self, item_id: str, version: int, reason: str, at: dt.datetime) -> bool:
        """Pause one item version by an admin's word, even one unpaused before.

        Returns False when that version was paused already (nothing changed).
        """
        ...
