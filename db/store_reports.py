"""Store members' reports of faulty questions, and the first-try counts reveals and weeks show."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from bot.core.kernel.models import FirstTries, Report, ReportCounts, ReportDraft, RoundStatus
from db.retry import retry_on_disconnect
from db.store_base import StoreBase
from db.tables import AnswerRow, BoardPostRow, ReportRow, RoundRow

OPEN, CLOSED = "open", "closed"


def _report(row: ReportRow) -> Report:
    """Return the report row as the core's value."""
    return Report(
        id=row.id, user_id=row.user_id, item_id=row.item_id, item_version=row.item_version,
        reason=row.reason, note=row.note, platform=row.platform, workspace=row.workspace,
        created_at=row.created_at, status=row.status, round_id=row.round_id,
        closed_at=row.closed_at, close_reason=row.close_reason or "",
    )


def _first_tries(*where: Any) -> Any:
    """Return the count of first tries per (round, response, correctness) among ``where``."""
    return (
        select(RoundRow.id, RoundRow.item_id, RoundRow.item_version, AnswerRow.response,
               AnswerRow.correct, func.count())
        .join(AnswerRow, and_(AnswerRow.round_id == RoundRow.id, AnswerRow.attempt == 1))
        .where(*where)
        .group_by(RoundRow.id, RoundRow.item_id, RoundRow.item_version, AnswerRow.response,
                  AnswerRow.correct)
        .order_by(RoundRow.id, func.count().desc(), AnswerRow.response)
    )


def _tries(rows: Sequence[Any]) -> list[FirstTries]:
    return [FirstTries(r[0], r[1], r[2], r[3], bool(r[4]), int(r[5])) for r in rows]


class ReportStore(StoreBase):
    """Reports of the QuizStore port, and the answer counts shown beside them."""

    def add_report(self, draft: ReportDraft) -> Report | None:
        """Store the report; None when the member already reported this item version.

        Not retried on a dropped connection: a retry would find the first insert and say
        "already reported" for a report that went through.
        """
        values = {
            "user_id": draft.user_id, "item_id": draft.item_id,
            "item_version": draft.item_version, "round_id": draft.round_id,
            "reason": draft.reason, "note": draft.note, "platform": draft.platform,
            "workspace": draft.workspace, "status": OPEN, "created_at": draft.created_at,
        }
        stmt = (self._upsert(ReportRow).values(**values)
                .on_conflict_do_nothing(index_elements=["user_id", "item_id", "item_version"])
                .returning(ReportRow.id))
        with self._transaction() as db:
            new_id = db.execute(stmt).scalar_one_or_none()
            if new_id is None:
                return None
            return _report(db.get_one(ReportRow, new_id))

    @retry_on_disconnect
    def reports(
        self, *, status: str | None = OPEN, platform: str | None = None,
        workspace: str | None = None, limit: int | None = None,
    ) -> list[Report]:
        """Return reports, oldest first: open ones by default, of one workspace if named."""
        stmt = select(ReportRow).order_by(ReportRow.id)
        if status is not None:
            stmt = stmt.where(ReportRow.status == status)
        if platform is not None:
            stmt = stmt.where(ReportRow.platform == platform)
        if workspace is not None:
            stmt = stmt.where(ReportRow.workspace == workspace)
        if limit is not None:
            stmt = stmt.limit(limit)
        with self._read() as db:
            return [_report(row) for row in db.scalars(stmt)]

    @retry_on_disconnect
    def count_reports(self, *, platform: str | None = None, workspace: str | None = None) -> int:
        """Return how many open reports there are (of one workspace if named)."""
        stmt = select(func.count()).select_from(ReportRow).where(ReportRow.status == OPEN)
        if platform is not None:
            stmt = stmt.where(ReportRow.platform == platform)
        if workspace is not None:
            stmt = stmt.where(ReportRow.workspace == workspace)
        with self._read() as db:
            return int(db.scalar(stmt) or 0)

    @retry_on_disconnect
    def close_report(
        self, report_id: int, reason: str, at: dt.datetime, *,
        platform: str | None = None, workspace: str | None = None,
    ) -> Report | None:
        """Close an open report with a reason; None when there is no such open report (there).

        Closing twice changes nothing the second time, so a retry is harmless.
        """
        where = [ReportRow.id == report_id, ReportRow.status == OPEN]
        if platform is not None:
            where.append(ReportRow.platform == platform)
        if workspace is not None:
            where.append(ReportRow.workspace == workspace)
        with self._transaction() as db:
            changed = db.execute(update(ReportRow).where(*where).values(
                status=CLOSED, closed_at=at, close_reason=reason).returning(ReportRow.id))
            if changed.scalar_one_or_none() is None:
                return None
            return _report(db.get_one(ReportRow, report_id))

    @retry_on_disconnect
    def open_reports(self, item_id: str | None = None) -> list[ReportCounts]:
        """Return the open reports per item version (of ``item_id`` only if named), by reason."""
        stmt = (select(ReportRow.item_id, ReportRow.item_version, ReportRow.reason, func.count())
                .where(ReportRow.status == OPEN)
                .group_by(ReportRow.item_id, ReportRow.item_version, ReportRow.reason)
                .order_by(ReportRow.item_id, ReportRow.item_version, ReportRow.reason))
        if item_id is not None:
            stmt = stmt.where(ReportRow.item_id == item_id)
        counts: dict[tuple[str, int], list[tuple[str, int]]] = {}
        with self._read() as db:
            for item, version, reason, n in db.execute(stmt):
                counts.setdefault((item, version), []).append((reason, int(n)))
        return [ReportCounts(item, version, tuple(by)) for (item, version), by in counts.items()]

    @retry_on_disconnect
    def first_tries(self, round_id: int) -> list[FirstTries]:
        """Return how many members gave each response on their first try at the round."""
        with self._read() as db:
            return _tries(db.execute(_first_tries(RoundRow.id == round_id)).all())

    def claim_weekly_board(self, channel_id: int, week_start: dt.datetime,
                           at: dt.datetime) -> bool:
        """Claim the channel's weekly board for the week from ``week_start``; False: taken.

        The primary key decides: of several replicas firing at the board's hour, one posts.
        """
        try:
            with self._engine.begin() as connection:
                connection.execute(insert(BoardPostRow).values(
                    channel_id=channel_id, week_start=week_start, claimed_at=at))
        except IntegrityError:
            return False
        return True

    @retry_on_disconnect
    def week_first_tries(
        self, channel_id: int, since: dt.date, until: dt.date
    ) -> list[FirstTries]:
        """Return ``first_tries`` of the channel's closed rounds dated ``since`` <= d < ``until``.

        Closed rounds only: a round still open would have its answers spoiled.
        """
        stmt = _first_tries(RoundRow.channel_id == channel_id, RoundRow.local_date >= since,
                            RoundRow.local_date < until,
                            RoundRow.status == RoundStatus.CLOSED.value)
        with self._read() as db:
            return _tries(db.execute(stmt).all())
