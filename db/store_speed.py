"""Speed challenges on SQLAlchemy: the open challenge per member, every verdict, the boards."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection, select, update

from bot.core.kernel.models import (
    PENDING,
    RELEASED,
    HeldSpeed,
    OpenSpeed,
    SpeedBoardEntry,
    SpeedShapeFigure,
    SpeedVerdictRecord,
)
from bot.core.kernel.ports import RoundCount
from db.retry import retry_on_disconnect
from db.store_base import StoreBase
from db.tables import SpeedOpenRow, SpeedVerdictRow, UserRow


def _shapes_out(shapes: tuple[SpeedShapeFigure, ...]) -> list[dict[str, Any]]:
    return [{"shape": s.shape, "speedup": s.speedup, "low": s.low, "high": s.high}
            for s in shapes]


def _shapes_in(data: Any) -> tuple[SpeedShapeFigure, ...]:
    if not isinstance(data, list):
        return ()
    return tuple(SpeedShapeFigure(str(s["shape"]), float(s["speedup"]), float(s["low"]),
                                  float(s["high"])) for s in data if isinstance(s, dict))


def _record(row: SpeedVerdictRow) -> SpeedVerdictRecord:
    return SpeedVerdictRecord(
        user_id=row.user_id, channel_id=row.channel_id, workspace=row.workspace,
        item_id=row.item_id, item_version=row.item_version, status=row.status,
        faster=row.faster, held=row.held, score=row.score, shapes=_shapes_in(row.shapes),
        reason=row.reason, created_at=row.created_at, id=row.id, round_id=row.round_id,
        attempt=row.attempt)


def verdict_values(record: SpeedVerdictRecord) -> dict[str, Any]:
    """Return the columns of a new speed verdict row."""
    return {
        "user_id": record.user_id, "channel_id": record.channel_id,
        "workspace": record.workspace, "item_id": record.item_id,
        "item_version": record.item_version, "status": record.status, "faster": record.faster,
        "held": record.held, "score": record.score, "shapes": _shapes_out(record.shapes),
        "reason": record.reason, "created_at": record.created_at, "round_id": record.round_id,
        "attempt": record.attempt,
    }


class SpeedStore(StoreBase):
    """The SpeedStore port (bot/core/speed/store.py)."""

    @retry_on_disconnect
    def open_speed(self, user_id: int, item_id: str, item_version: int, at: dt.datetime) -> None:
        """Make ``item_id`` the member's open speed challenge (replacing any)."""
        values = {"item_id": item_id, "item_version": item_version, "started_at": at}
        stmt = (self._upsert(SpeedOpenRow).values(user_id=user_id, **values)
                .on_conflict_do_update(index_elements=["user_id"], set_=values))
        with self._one_write() as connection:
            connection.execute(stmt)

    def current_speed(self, user_id: int) -> OpenSpeed | None:
        """Return the member's open speed challenge, if any."""
        with self._read() as session:
            row = session.get(SpeedOpenRow, user_id)
            if row is None:
                return None
            return OpenSpeed(row.user_id, row.item_id, row.item_version, row.started_at)

    def add_speed_verdict(self, record: SpeedVerdictRecord) -> int:
        """Keep one speed verdict; return its id."""
        with self._transaction() as session:
            row = SpeedVerdictRow(**verdict_values(record))
            session.add(row)
            session.flush()
            return int(row.id)

    def round_speed_board(self, round_id: int, limit: int) -> list[SpeedBoardEntry]:
        """Return each visible member's best released faster verdict of a daily speed round.

        Best score first, ties by who got there first; one query, read only.
        """
        stmt = (
            select(SpeedVerdictRow.id, SpeedVerdictRow.user_id, SpeedVerdictRow.score,
                   SpeedVerdictRow.created_at, UserRow.display_name)
            .join(UserRow, UserRow.id == SpeedVerdictRow.user_id)
            .where(SpeedVerdictRow.round_id == round_id,
                   SpeedVerdictRow.faster.is_(True),
                   SpeedVerdictRow.status == RELEASED,
                   UserRow.hidden.is_(False))
            .order_by(SpeedVerdictRow.score.desc(), SpeedVerdictRow.created_at,
                      SpeedVerdictRow.id)
        )
        return self._best_each(stmt, limit)

    def _best_each(self, stmt: Any, limit: int) -> list[SpeedBoardEntry]:
        """Return the first row of each member of ``stmt`` (best first), ranked."""
        with self._read() as session:
            rows = session.execute(stmt).all()
        seen: set[int] = set()
        board: list[SpeedBoardEntry] = []
        for row in rows:
            if row.user_id in seen:
                continue
            seen.add(row.user_id)
            board.append(SpeedBoardEntry(len(board) + 1, row.user_id, row.display_name,
                                         row.score, row.created_at))
            if len(board) >= limit:
                break
        return board

    def speed_board(self, item_id: str, item_version: int, channel_id: int,
                    limit: int) -> list[SpeedBoardEntry]:
        """Return each visible member's best released faster verdict in the channel.

        Best score first, ties by who got there first (the earlier verdict, then its id);
        hidden members never appear. One query, read only (a board shown never holds up an
        answer's write); the best per member is taken here.
        """
        stmt = (
            select(SpeedVerdictRow.id, SpeedVerdictRow.user_id, SpeedVerdictRow.score,
                   SpeedVerdictRow.created_at, UserRow.display_name)
            .join(UserRow, UserRow.id == SpeedVerdictRow.user_id)
            .where(SpeedVerdictRow.item_id == item_id,
                   SpeedVerdictRow.item_version == item_version,
                   SpeedVerdictRow.channel_id == channel_id,
                   SpeedVerdictRow.faster.is_(True),
                   SpeedVerdictRow.status == RELEASED,
                   UserRow.hidden.is_(False))
            .order_by(SpeedVerdictRow.score.desc(), SpeedVerdictRow.created_at,
                      SpeedVerdictRow.id)
        )
        return self._best_each(stmt, limit)

    def held_speed(self, workspace: str, limit: int) -> list[HeldSpeed]:
        """Return the workspace's verdicts held for review, oldest first."""
        stmt = (
            select(SpeedVerdictRow, UserRow.display_name)
            .join(UserRow, UserRow.id == SpeedVerdictRow.user_id)
            .where(SpeedVerdictRow.workspace == workspace, SpeedVerdictRow.status == PENDING)
            .order_by(SpeedVerdictRow.created_at, SpeedVerdictRow.id)
            .limit(limit)
        )
        with self._read() as session:
            return [HeldSpeed(row.id, row.item_id, row.item_version, name, row.score,
                              row.reason, _shapes_in(row.shapes), row.created_at)
                    for row, name in session.execute(stmt).all()]

    def review_speed(self, verdict_id: int, workspace: str, status: str,
                     counted: RoundCount | None = None) -> SpeedVerdictRecord | None:
        """Move a pending verdict of ``workspace`` to ``status``; None when none was pending.

        One conditional UPDATE: of two admins clicking at once, one wins, the other is told.
        ``counted``: a daily speed round's verdict adds that answer to its round in the same
        transaction (the release and the points happen together, or neither).
        """
        with self._transaction() as session:
            changed = session.execute(
                update(SpeedVerdictRow)
                .where(SpeedVerdictRow.id == verdict_id,
                       SpeedVerdictRow.workspace == workspace,
                       SpeedVerdictRow.status == PENDING)
                .values(status=status)
                .returning(SpeedVerdictRow.id)).first()
            if changed is None:
                return None
            row = session.get(SpeedVerdictRow, verdict_id)
            if row is None:
                return None
            record = _record(row)
            if counted is not None and record.round_id is not None:
                self._count_in_round(session.connection(), record, counted)
            return record

    def _count_in_round(self, connection: Connection, record: SpeedVerdictRecord,
                        counted: RoundCount) -> None:
        """Add a released verdict's answer to its round (db.store_answers does: the totals)."""
        raise NotImplementedError
