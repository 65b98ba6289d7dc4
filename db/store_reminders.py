"""Store review reminders: the members' settings, the minute's due list and its claim."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Date, Table, and_, bindparam, case, func, literal, select, update

from bot.core.kernel.models import DueReminder, Reminder, ReminderClaim
from db.retry import retry_on_disconnect
from db.store_base import StoreBase, batches
from db.tables import ChannelRow, ReminderRow, ReviewRow, UtcDateTime, WorkspaceRow

_REMINDERS: Table = ReminderRow.__table__  # type: ignore[assignment]
_REVIEWS: Table = ReviewRow.__table__  # type: ignore[assignment]
_CHANNELS: Table = ChannelRow.__table__  # type: ignore[assignment]
_WORKSPACES: Table = WorkspaceRow.__table__  # type: ignore[assignment]

_REMINDER = select(_REMINDERS).where(_REMINDERS.c.user_id == bindparam("user_id"))
_NOTICE = select(_REMINDERS.c.user_id, _REMINDERS.c.notice).where(
    _REMINDERS.c.platform == bindparam("platform"),
    _REMINDERS.c.member_external_id == bindparam("member"),
)
# Counted per member through the reviews' key (user_id, item_id): a member's cards only.
_DUE_COUNT = (
    select(func.count())
    .where(_REVIEWS.c.user_id == _REMINDERS.c.user_id, _REVIEWS.c.due_at <= bindparam("now"))
    .correlate(_REMINDERS)
    .scalar_subquery()
)
# The same count, leaving out items no longer served (a removed pack's): few, listed by the core.
_DUE_COUNT_SERVED = (
    select(func.count())
    .where(_REVIEWS.c.user_id == _REMINDERS.c.user_id, _REVIEWS.c.due_at <= bindparam("now"),
           _REVIEWS.c.item_id.not_in(bindparam("hidden", expanding=True)))
    .correlate(_REMINDERS)
    .scalar_subquery()
)


def _due(count: Any) -> Any:
    return (select(_REMINDERS, count.label("due_reviews"),
           _CHANNELS.c.external_id.label("channel_external_id"),
           _WORKSPACES.c.external_id.label("workspace_external_id"), _CHANNELS.c.locale)
    .join(_CHANNELS, _CHANNELS.c.id == _REMINDERS.c.channel_id)
    .join(_WORKSPACES, _WORKSPACES.c.id == _CHANNELS.c.workspace_id)
    .where(_REMINDERS.c.platform == bindparam("platform"), _REMINDERS.c.enabled.is_(True),
           _REMINDERS.c.next_at <= bindparam("now"))
    .order_by(_REMINDERS.c.next_at, _REMINDERS.c.user_id)
    .limit(bindparam("limit")))


_DUE = _due(_DUE_COUNT)
_DUE_SERVED = _due(_DUE_COUNT_SERVED)


def _reminder(row: Any) -> Reminder:
    """Return a reminders row as the core's value."""
    return Reminder(
        user_id=row.user_id, platform=row.platform, member_external_id=row.member_external_id,
        channel_id=row.channel_id, at=row.local_time, timezone=row.timezone,
        enabled=row.enabled, next_at=row.next_at, last_sent=row.last_sent,
        snoozed_until=row.snoozed_until, stopped=row.stopped, notice=row.notice,
    )


def _values(reminder: Reminder) -> dict[str, Any]:
    return {
        "platform": reminder.platform, "member_external_id": reminder.member_external_id,
        "channel_id": reminder.channel_id, "local_time": reminder.at,
        "timezone": reminder.timezone, "enabled": reminder.enabled, "next_at": reminder.next_at,
        "last_sent": reminder.last_sent, "snoozed_until": reminder.snoozed_until,
        "stopped": reminder.stopped, "notice": reminder.notice,
    }


class ReminderStore(StoreBase):
    """Reminders of the QuizStore port."""

    @retry_on_disconnect
    def save_reminder(self, reminder: Reminder) -> Reminder:
        """Insert or replace the member's reminder setting."""
        values = _values(reminder)
        stmt = (
            self._upsert(ReminderRow)
            .values(user_id=reminder.user_id, **values)
            .on_conflict_do_update(index_elements=["user_id"], set_=values)
        )
        with self._transaction() as db:
            db.execute(stmt)
        return reminder

    def get_reminder(self, user_id: int) -> Reminder | None:
        """Return the member's reminder setting, if any."""
        rows = self._fetch(_REMINDER, {"user_id": user_id})
        return _reminder(rows[0]) if rows else None

    def due_reminders(self, platform: str, now: dt.datetime, limit: int,
                      hidden: Collection[str] = ()) -> list[DueReminder]:
        """Return up to ``limit`` enabled reminders due at ``now``, each with its due reviews.

        ``hidden``: items whose reviews are no longer served (a removed pack's), not counted.
        """
        params: dict[str, Any] = {"platform": platform, "now": now, "limit": limit}
        if hidden:
            params["hidden"] = sorted(hidden)
        rows = self._fetch(_DUE_SERVED if hidden else _DUE, params)
        return [DueReminder(_reminder(row), int(row.due_reviews), row.channel_external_id,
                            row.workspace_external_id, row.locale) for row in rows]

    def claim_reminders(self, claims: Sequence[ReminderClaim], now: dt.datetime) -> set[int]:
        """Move each reminder still due at ``now`` to its next time; return the members moved.

        One UPDATE ... RETURNING per few hundred claims, the new values chosen per member by a
        CASE: only a row whose ``next_at`` has not moved yet matches, so two replicas claiming
        the same minute split it, and each nudge is sent by one of them.
        """
        won: set[int] = set()
        ordered = sorted(claims, key=lambda c: c.user_id)  # the same lock order on every replica
        for chunk in batches(ordered):
            ids = [c.user_id for c in chunk]
            next_at = case({c.user_id: literal(c.next_at, UtcDateTime()) for c in chunk},
                           value=_REMINDERS.c.user_id)
            sent = {c.user_id: literal(c.sent_on, Date()) for c in chunk if c.sent_on}
            last_sent = (case(sent, value=_REMINDERS.c.user_id, else_=_REMINDERS.c.last_sent)
                         if sent else _REMINDERS.c.last_sent)
            stmt = (
                update(_REMINDERS)
                .where(and_(_REMINDERS.c.user_id.in_(ids), _REMINDERS.c.enabled.is_(True),
                            _REMINDERS.c.next_at <= now))
                .values(next_at=next_at, last_sent=last_sent)
                .returning(_REMINDERS.c.user_id)
            )
            with self._engine.begin() as connection:
                won.update(user_id for (user_id,) in connection.execute(stmt))
        return won

    def stop_reminder(self, user_id: int, reason: str | None = None) -> bool:
        """Turn the member's reminder off; with ``reason`` they are told once, later."""
        stmt = (
            update(_REMINDERS)
            .where(_REMINDERS.c.user_id == user_id, _REMINDERS.c.enabled.is_(True))
            .values(enabled=False, stopped=reason, notice=reason is not None)
            .returning(_REMINDERS.c.user_id)
        )
        with self._engine.begin() as connection:
            return connection.execute(stmt).first() is not None

    def take_reminder_notice(self, platform: str, member_external_id: str) -> str | None:
        """Return why the member's reminder was turned off, once; None when nothing to tell."""
        # A read first, by the platform's ids: a private command asks before it knows the
        # member, and a write would take SQLite's lock every time.
        rows = self._fetch(_NOTICE, {"platform": platform, "member": member_external_id})
        if not rows or not rows[0].notice:
            return None
        stmt = (
            update(_REMINDERS)
            .where(_REMINDERS.c.user_id == rows[0].user_id, _REMINDERS.c.notice.is_(True))
            .values(notice=False)
            .returning(_REMINDERS.c.stopped)
        )
        with self._engine.begin() as connection:
            taken = connection.execute(stmt).first()
        return str(taken.stopped) if taken is not None and taken.stopped else None
