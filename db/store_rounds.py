"""Store daily rounds: claim one per channel and date, close it once, list what was posted."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, bindparam, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from bot.core.kernel.models import Round, RoundClaim, RoundStatus
from db.forgotten import clear_forgotten_marks
from db.store_base import StoreBase, batches, rowcount
from db.tables import RoundRow

log = logging.getLogger(__name__)

# Reads built once (see StoreBase._reading); rows are the table's columns.
_ROUNDS = Table("rounds", RoundRow.metadata)
# Every channel's post claims one at its minute: the fan-out runs this statement the most.
_CLAIM = insert(_ROUNDS).returning(*_ROUNDS.c)
_ROUND = select(_ROUNDS).where(_ROUNDS.c.id == bindparam("round_id"))
_ROUND_FOR_DATE = select(_ROUNDS).where(
    _ROUNDS.c.channel_id == bindparam("channel_id"), _ROUNDS.c.local_date == bindparam("day")
)
_LATEST_ROUND = (
    select(_ROUNDS)
    .where(_ROUNDS.c.channel_id == bindparam("channel_id"))
    .order_by(_ROUNDS.c.local_date.desc())
    .limit(1)
)
_ROUND_DATES = (
    select(_ROUNDS.c.local_date)
    .where(_ROUNDS.c.channel_id == bindparam("channel_id"))
    .order_by(_ROUNDS.c.local_date)
)
_USED_ITEMS = (
    select(_ROUNDS.c.item_id, func.max(_ROUNDS.c.local_date))
    .where(_ROUNDS.c.channel_id == bindparam("channel_id"))
    .group_by(_ROUNDS.c.item_id)
)


def _first_round(rows: list[Any]) -> Round | None:
    return _round(rows[0]) if rows else None


def _round(row: Any) -> Round:
    """Return the round row as the core's value."""
    return Round(
        id=row.id,
        channel_id=row.channel_id,
        local_date=row.local_date,
        item_id=row.item_id,
        item_version=row.item_version,
        status=RoundStatus(row.status),
        opened_at=row.opened_at,
        closes_at=row.closes_at,
        message_ref=row.message_ref,
        post_claimed_at=row.post_claimed_at,
    )


class RoundStore(StoreBase):
    """Rounds of the QuizStore port."""

    def claim_round(
        self,
        channel_id: int,
        local_date: dt.date,
        item_id: str,
        item_version: int,
        opened_at: dt.datetime,
        closes_at: dt.datetime,
    ) -> Round | None:
        """Create the round for (channel, date); return None when it already exists."""
        # Claim-then-post: the unique key (channel_id, local_date) decides which replica posts.
        values = {
            "channel_id": channel_id,
            "local_date": local_date,
            "item_id": item_id,
            "item_version": item_version,
            "status": RoundStatus.OPEN.value,
            "opened_at": opened_at,
            "closes_at": closes_at,
        }
        try:
            with self._engine.begin() as connection:
                return _round(connection.execute(_CLAIM, values).one())
        except IntegrityError:
            # Only a lost race means None; a missing channel is a bug and must surface.
            if self.round_for_date(channel_id, local_date) is None:
                raise
            log.info("round already claimed: channel=%s date=%s", channel_id, local_date)
            return None

    def rounds_exist(self, keys: Sequence[tuple[int, dt.date]]) -> set[tuple[int, dt.date]]:
        """Return which of these (channel_id, local_date) keys have a round, in a few queries."""
        wanted = set(keys)
        found: set[tuple[int, dt.date]] = set()
        with self._reading() as connection:
            for chunk in batches(sorted(wanted)):
                # Channels and dates separately (the dates of one minute are one or two): the
                # product may hold pairs nobody asked for, which the intersection drops.
                stmt = select(_ROUNDS.c.channel_id, _ROUNDS.c.local_date).where(
                    _ROUNDS.c.channel_id.in_({c for c, _ in chunk}),
                    _ROUNDS.c.local_date.in_({d for _, d in chunk}),
                )
                found.update((c, d) for c, d in connection.execute(stmt))
        return found & wanted

    def claim_rounds(self, claims: Sequence[RoundClaim]) -> list[Round]:
        """Create every claimed round whose (channel, date) has none yet; return those created.

        INSERT ... ON CONFLICT DO NOTHING RETURNING: the unique (channel_id, local_date) key
        decides between replicas exactly as in ``claim_round``, and the rows returned are the
        ones this call created, a few hundred per statement.
        """
        created: list[Round] = []
        # Every replica inserts in the same key order: two multi-row inserts that meet the same
        # keys in different orders can deadlock on PostgreSQL, each waiting for the other.
        ordered = sorted(claims, key=lambda c: (c.channel_id, c.local_date))
        # One compiled statement run over many rows (SQLAlchemy's insertmanyvalues batches them
        # into multi-row INSERTs); a statement with the rows inlined compiled anew every time,
        # which cost more than the database did.
        stmt = (
            self._upsert(RoundRow)
            .on_conflict_do_nothing(index_elements=["channel_id", "local_date"])
            .returning(*_ROUNDS.c)
        )
        for chunk in batches(ordered):
            rows = [
                {"channel_id": c.channel_id, "local_date": c.local_date, "item_id": c.item_id,
                 "item_version": c.item_version, "status": RoundStatus.OPEN.value,
                 "opened_at": c.opened_at, "closes_at": c.closes_at,
                 "post_claimed_at": c.post_claimed_at}
                for c in chunk
            ]  # fmt: skip
            with self._engine.begin() as connection:
                created += [_round(row) for row in connection.execute(stmt, rows)]
        return created

    def set_round_message(self, round_id: int, message_ref: str) -> None:
        """Remember where the round was posted (ending its post claim), for edits and reveal."""
        with self._transaction() as session:
            session.execute(
                update(RoundRow).where(RoundRow.id == round_id)
                .values(message_ref=message_ref, post_claimed_at=None)
            )

    def claim_round_post(
        self, round_id: int, expected: dt.datetime | None, claimed_at: dt.datetime
    ) -> bool:
        """Move an unposted round's claim from ``expected`` to ``claimed_at``; False if moved."""
        current = (
            RoundRow.post_claimed_at.is_(None) if expected is None
            else RoundRow.post_claimed_at == expected
        )
        stmt = update(RoundRow).where(
            RoundRow.id == round_id, RoundRow.message_ref.is_(None), current
        ).values(post_claimed_at=claimed_at)
        with self._transaction() as session:
            return rowcount(session, stmt) == 1

    def unposted_rounds(self, now: dt.datetime, stale_before: dt.datetime) -> list[Round]:
        """Return unposted open rounds, unclaimed or claimed before ``stale_before``."""
        stmt = (
            select(RoundRow)
            .where(
                RoundRow.status == RoundStatus.OPEN.value,
                RoundRow.closes_at > now,
                RoundRow.message_ref.is_(None),
                or_(RoundRow.post_claimed_at.is_(None),
                    RoundRow.post_claimed_at < stale_before),
            )
            .order_by(RoundRow.id)
        )
        with self._read() as session:
            return [_round(row) for row in session.scalars(stmt)]

    def get_round(self, round_id: int) -> Round | None:
        """Return the round with this id, if any."""
        return _first_round(self._fetch(_ROUND, {"round_id": round_id}))

    def round_for_date(self, channel_id: int, local_date: dt.date) -> Round | None:
        """Return the channel's round for that local date, if any."""
        return _first_round(
            self._fetch(_ROUND_FOR_DATE, {"channel_id": channel_id, "day": local_date})
        )

    def latest_round(self, channel_id: int) -> Round | None:
        """Return the channel's most recent round, open or closed."""
        return _first_round(self._fetch(_LATEST_ROUND, {"channel_id": channel_id}))

    def due_rounds(self, now: dt.datetime) -> list[Round]:
        """Return open rounds whose closing time has passed, soonest closed first."""
        stmt = (
            select(RoundRow)
            .where(RoundRow.status == RoundStatus.OPEN.value, RoundRow.closes_at <= now)
            .order_by(RoundRow.closes_at, RoundRow.id)
        )
        with self._read() as session:
            return [_round(row) for row in session.scalars(stmt)]

    def close_round(self, round_id: int, closed_at: dt.datetime) -> bool:
        """Close an open round; return False when it was already closed."""
        # The status condition makes closing a claim too: only one replica reveals the answer.
        stmt = (
            update(RoundRow)
            .where(RoundRow.id == round_id, RoundRow.status == RoundStatus.OPEN.value)
            .values(status=RoundStatus.CLOSED.value, closed_at=closed_at)
        )
        with self._transaction() as session:
            closed = rowcount(session, stmt) == 1
            # A forgotten member's mark lives only while the round is open (db/forgotten.py).
            clear_forgotten_marks(session)
            return closed

    def used_items(self, channel_id: int) -> dict[str, dt.date]:
        """Return each item the channel has had, with the last date it was posted."""
        return {item: day for item, day in self._fetch(_USED_ITEMS, {"channel_id": channel_id})}

    def used_items_of(self, channel_ids: Sequence[int]) -> dict[int, dict[str, dt.date]]:
        """Return ``used_items`` of every channel among these ids, in a few queries at most."""
        used: dict[int, dict[str, dt.date]] = {channel_id: {} for channel_id in channel_ids}
        with self._reading() as connection:
            for chunk in batches(sorted(set(channel_ids))):
                stmt = (
                    select(_ROUNDS.c.channel_id, _ROUNDS.c.item_id, func.max(_ROUNDS.c.local_date))
                    .where(_ROUNDS.c.channel_id.in_(chunk))
                    .group_by(_ROUNDS.c.channel_id, _ROUNDS.c.item_id)
                )
                for channel_id, item_id, day in connection.execute(stmt):
                    used[channel_id][item_id] = day
        return used

    def round_dates(self, channel_id: int) -> list[dt.date]:
        """Return the local dates of the channel's rounds, oldest first."""
        return [day for (day,) in self._fetch(_ROUND_DATES, {"channel_id": channel_id})]
