"""Store the item analytics' inputs and outputs: first-try sums, open reports, paused items.

``item_tallies`` is one statement over every answer: per (member, item version) the first
tries and how many were right, per member the same over every item, then per item version the
sums the point-biserial correlation needs, each member's rest score computed as their totals
minus this item's. The database aggregates a million answers; Python gets one row per item
version.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from typing import Any

from sqlalchemy import (
    Float,
    Select,
    and_,
    case,
    cast,
    func,
    select,
    update,
)

from bot.core.kernel.models import ItemTally
from db.retry import retry_on_disconnect
from db.store_base import StoreBase
from db.tables import AnswerRow, PausedItemRow, RoundRow


def _tallies(since: dt.date | None) -> Select[Any]:
    answers, rounds = AnswerRow.__table__, RoundRow.__table__
    right = case((answers.c.correct, 1), else_=0)
    # A forgotten member's first try (no member) is an observation of its own: it counts for
    # the item, and has no rest score to correlate with.
    who = func.coalesce(answers.c.user_id, -answers.c.id)
    picked = [] if since is None else [rounds.c.local_date >= since]
    # Each round keyed by the first round of its item version: the big grouping (per member
    # and item version) is by two integers, not by the item's text.
    keyed = (
        select(rounds.c.id, func.min(rounds.c.id).over(
            partition_by=(rounds.c.item_id, rounds.c.item_version)).label("item_key"))
        .where(*picked)
        .subquery("keyed")
    )
    firsts = answers.join(keyed, keyed.c.id == answers.c.round_id)
    # Floats from the first sums on: PostgreSQL would carry sums of sums as numeric, slowly.
    per_item = (
        select(who.label("user_id"), keyed.c.item_key,
               cast(func.count(), Float).label("n"), cast(func.sum(right), Float).label("c"))
        .select_from(firsts)
        .where(answers.c.attempt == 1)
        .group_by(who, keyed.c.item_key)
        .subquery("per_item")
    )
    # Each member's totals straight from the answers (a second scan, grouped by member only):
    # reading them off per_item would make the database keep that large result to read twice.
    per_member = (
        select(who.label("user_id"), cast(func.count(), Float).label("n"),
               cast(func.sum(right), Float).label("c"))
        .select_from(firsts)
        .where(answers.c.attempt == 1)
        .group_by(who)
        .subquery("per_member")
    )
    rest_n = per_member.c.n - per_item.c.n
    x = per_item.c.c / per_item.c.n
    y = case((rest_n > 0, (per_member.c.c - per_item.c.c) / rest_n), else_=None)
    rested_x = case((rest_n > 0, x), else_=None)
    sums = (
        select(per_item.c.item_key, func.count().label("n"), func.sum(x).label("sx"),
               func.count(y).label("ny"), func.sum(rested_x).label("rx"),
               func.sum(rested_x * rested_x).label("rxx"), func.sum(y).label("sy"),
               func.sum(y * y).label("syy"), func.sum(x * y).label("sxy"))
        .join(per_member, per_member.c.user_id == per_item.c.user_id)
        .group_by(per_item.c.item_key)
        .subquery("sums")
    )
    # Per item version (a few hundred rows), named by its key round.
    return (
        select(rounds.c.item_id, rounds.c.item_version, sums.c.n, sums.c.sx, sums.c.ny,
               sums.c.rx, sums.c.rxx, sums.c.sy, sums.c.syy, sums.c.sxy)
        .join(sums, sums.c.item_key == rounds.c.id)
        .order_by(rounds.c.item_id, rounds.c.item_version)
    )


_ALL_TALLIES = _tallies(None)
_PAUSED = select(PausedItemRow.item_id, PausedItemRow.item_version).where(
    PausedItemRow.unpaused_at.is_(None))


def _f(value: Any) -> float:
    # PostgreSQL sums come back as Decimal or float, SQLite's as float; an empty sum as None.
    return float(value) if value is not None else 0.0


class InsightStore(StoreBase):
    """Item analytics of the QuizStore port."""

    @retry_on_disconnect
    def item_tallies(self, since: dt.date | None = None) -> list[ItemTally]:
        """Return the sums of each answered item version's first tries at daily rounds."""
        stmt = _ALL_TALLIES if since is None else _tallies(since)
        with self._reading() as connection:
            rows = connection.execute(stmt).all()
        return [ItemTally(item_id=r[0], version=int(r[1]), answered=int(r[2]), sum_x=_f(r[3]),
                          rested=int(r[4]), rest_sum_x=_f(r[5]), rest_sum_xx=_f(r[6]),
                          sum_y=_f(r[7]), sum_yy=_f(r[8]), sum_xy=_f(r[9]))
                for r in rows]

    @retry_on_disconnect
    def paused_items(self) -> set[tuple[str, int]]:
        """Return the (item id, version) keys no daily pick may choose (one small read)."""
        return {(row[0], int(row[1])) for row in self._fetch(_PAUSED)}

    @retry_on_disconnect
    def pause_items(
        self, keys: Collection[tuple[str, int]], reason: str, at: dt.datetime
    ) -> list[tuple[str, int]]:
        """Pause these item versions unless paused (or unpaused) before; return those paused now."""
        wanted = sorted(set(keys))
        if not wanted:
            return []
        table = PausedItemRow.__table__
        with self._transaction() as db:
            known = {(r[0], int(r[1])) for r in db.execute(
                select(table.c.item_id, table.c.item_version)
                .where(table.c.item_id.in_({k[0] for k in wanted})))}
            new = [k for k in wanted if k not in known]
            if new:
                # Another replica may pause the same version meanwhile: the first row stands.
                db.execute(
                    self._upsert(PausedItemRow)
                    .values([{"item_id": i, "item_version": v, "reason": reason,
                              "paused_at": at, "unpaused_at": None} for i, v in new])
                    .on_conflict_do_nothing(index_elements=["item_id", "item_version"])
                )
        return new

    @retry_on_disconnect
    def pause_item(self, item_id: str, version: int, reason: str, at: dt.datetime) -> bool:
        """Pause one item version by an admin's word, even one unpaused before."""
        table = PausedItemRow.__table__
        key = and_(table.c.item_id == item_id, table.c.item_version == version)
        with self._transaction() as db:
            found = db.execute(select(table.c.unpaused_at).where(key)).first()
            if found is None:
                # Another replica may pause the same version meanwhile: the first row stands.
                db.execute(
                    self._upsert(PausedItemRow)
                    .values(item_id=item_id, item_version=version, reason=reason,
                            paused_at=at, unpaused_at=None)
                    .on_conflict_do_nothing(index_elements=["item_id", "item_version"]))
                return True
            if found[0] is None:
                return False  # paused already: nothing changed
            db.execute(update(PausedItemRow).where(key)
                       .values(reason=reason, paused_at=at, unpaused_at=None))
        return True

    @retry_on_disconnect
    def unpause_item(self, item_id: str, at: dt.datetime) -> list[int]:
        """Unpause every paused version of ``item_id``; return the versions unpaused."""
        table = PausedItemRow.__table__
        paused = and_(table.c.item_id == item_id, table.c.unpaused_at.is_(None))
        with self._transaction() as db:
            versions = sorted(int(v) for v in db.execute(
                select(table.c.item_version).where(paused)).scalars())
            if versions:
                db.execute(update(PausedItemRow).where(paused).values(unpaused_at=at))
        return versions
