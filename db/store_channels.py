"""Store channels, their settings and the members who answer in them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Table, bindparam, select, update
from sqlalchemy.orm import Session

from bot.core.kernel.models import (
    ChannelDefaults,
    ChannelSettings,
    ChannelUpdate,
    Member,
    kinds_of,
    week_start,
)
from content.topics import current_topics
from db.retry import retry_on_disconnect
from db.store_answers import lock_channel_answers, recount_week
from db.store_base import StoreBase, batches
from db.tables import ChannelRow, SettingsStampRow, UserRow, WorkspaceRow

PLATFORM_KEY = ["platform", "external_id"]

# Reads built once (see StoreBase._reading): every answer and board looks its channel up.
_CHANNELS = Table("channels", ChannelRow.metadata)
_WORKSPACES = Table("workspaces", WorkspaceRow.metadata)
_USERS = Table("users", UserRow.metadata)
_CHANNEL = (
    select(_CHANNELS, _WORKSPACES.c.external_id.label("workspace_external_id"))
    .join(_WORKSPACES, _WORKSPACES.c.id == _CHANNELS.c.workspace_id)
    .where(_CHANNELS.c.id == bindparam("channel_id"))
)
# A minute's due channels, a batch at a time: Core rows, not ORM objects (10,000 channels as
# ORM objects cost a second of a replica's claim, measured by bench core's fan-out).
_CHANNELS_IN = (
    select(_CHANNELS, _WORKSPACES.c.external_id.label("workspace_external_id"))
    .join(_WORKSPACES, _WORKSPACES.c.id == _CHANNELS.c.workspace_id)
    .where(_CHANNELS.c.id.in_(bindparam("channel_ids", expanding=True)))
)
_MEMBER = select(_USERS).where(_USERS.c.id == bindparam("member_id"))
STAMP_ID = 1  # settings_stamps holds one row
_STAMP = select(SettingsStampRow.version).where(SettingsStampRow.id == STAMP_ID)
_MEMBER_BY_KEY = select(_USERS).where(_USERS.c.platform == bindparam("platform"),
                                      _USERS.c.external_id == bindparam("external_id"))


def _settings(row: Any, workspace_external_id: str) -> ChannelSettings:
    """Return the channel row as the core's value."""
    return ChannelSettings(
        id=row.id,
        platform=row.platform,
        external_id=row.external_id,
        workspace_external_id=workspace_external_id,
        name=row.name,
        post_time=row.post_time,
        timezone=row.timezone,
        locale=row.locale,
        topics=current_topics(row.topics),  # a topic merged since it was chosen reads as now
        difficulties=tuple(row.difficulties),
        packs=tuple(row.packs),
        enabled=row.enabled,
        leaderboard_weekday=row.leaderboard_weekday,
        leaderboard_hour=row.leaderboard_hour,
        round_hours=row.round_hours,
        live_anyone=row.live_anyone,
        live_on_board=row.live_on_board,
        kinds=kinds_of(row.kinds),
    )


def _member(row: Any) -> Member:
    """Return the user row as the core's value."""
    return Member(
        id=row.id, platform=row.platform, external_id=row.external_id,
        display_name=row.display_name, hidden=bool(row.hidden),
    )


def _channels(session: Session, *where: ColumnElement[bool]) -> list[ChannelSettings]:
    """Return the channels matching ``where``, in id order, with their workspace ids."""
    stmt = (
        select(ChannelRow, WorkspaceRow.external_id)
        .join(WorkspaceRow, WorkspaceRow.id == ChannelRow.workspace_id)
        .where(*where)
        .order_by(ChannelRow.id)
    )
    return [_settings(row, workspace) for row, workspace in session.execute(stmt)]


class ChannelStore(StoreBase):
    """Channels and members of the QuizStore port."""

    @retry_on_disconnect
    def ensure_channel(
        self, platform: str, external_id: str, workspace_external_id: str, defaults: ChannelDefaults
    ) -> ChannelSettings:
        """Return the channel, creating it with ``defaults`` when first seen."""
        # ON CONFLICT DO NOTHING: two replicas seeing a new channel at once both succeed.
        key = {"platform": platform, "external_id": external_id}
        with self._transaction() as session:
            session.execute(
                self._upsert(WorkspaceRow)
                .values(platform=platform, external_id=workspace_external_id)
                .on_conflict_do_nothing(index_elements=PLATFORM_KEY)
            )
            workspace_id = session.scalars(
                select(WorkspaceRow.id).where(
                    WorkspaceRow.platform == platform,
                    WorkspaceRow.external_id == workspace_external_id,
                )
            ).one()
            session.execute(
                self._upsert(ChannelRow)
                .values(**key, **_new_channel(defaults), workspace_id=workspace_id)
                .values(created_at=self._clock.now())
                .on_conflict_do_nothing(index_elements=PLATFORM_KEY)
            )
            [channel] = _channels(
                session, ChannelRow.platform == platform, ChannelRow.external_id == external_id
            )
            return channel

    def get_channel(self, channel_id: int) -> ChannelSettings | None:
        """Return the channel with this id, if any."""
        found = self._fetch(_CHANNEL, {"channel_id": channel_id})
        return _settings(found[0], found[0].workspace_external_id) if found else None

    @retry_on_disconnect
    def get_channels(self, channel_ids: Sequence[int]) -> dict[int, ChannelSettings]:
        """Return the channels among these ids that exist, by id, in a few queries at most."""
        found: dict[int, ChannelSettings] = {}
        with self._reading() as connection:
            for chunk in batches(sorted(set(channel_ids))):
                for row in connection.execute(_CHANNELS_IN, {"channel_ids": list(chunk)}):
                    found[row.id] = _settings(row, row.workspace_external_id)
        return found

    @retry_on_disconnect
    def find_channel(self, platform: str, external_id: str) -> ChannelSettings | None:
        """Return the channel known by this platform id, if any."""
        with self._read() as session:
            found = _channels(
                session, ChannelRow.platform == platform, ChannelRow.external_id == external_id
            )
        return found[0] if found else None

    @retry_on_disconnect
    def list_channels(self, *, enabled_only: bool = True) -> list[ChannelSettings]:
        """Return channels in id order."""
        where = [ChannelRow.enabled.is_(True)] if enabled_only else []
        with self._read() as session:
            return _channels(session, *where)

    @retry_on_disconnect
    def update_channel(self, channel_id: int, update: ChannelUpdate) -> ChannelSettings:
        """Apply the non-None fields of ``update`` and return the new settings.

        Raises LookupError when there is no such channel. A new time zone moves the current
        leaderboard week, so that week's totals are counted again under it.
        """
        with self._transaction() as session:
            if update.timezone is not None:
                lock_channel_answers(session, channel_id)
            row = session.get(ChannelRow, channel_id)
            if row is None:
                raise LookupError(f"no channel with id {channel_id}")
            moved = update.timezone is not None and update.timezone != row.timezone
            for name, value in _changes(update).items():
                setattr(row, name, value)
            session.flush()
            if moved:
                recount_week(
                    session, channel_id, row.timezone, week_start(self._clock.now(), row.timezone)
                )
            [channel] = _channels(session, ChannelRow.id == channel_id)
            session.execute(self._upsert(SettingsStampRow).values(id=STAMP_ID, version=1)
                            .on_conflict_do_update(index_elements=["id"], set_={
                                "version": SettingsStampRow.version + 1}))
            return channel

    def settings_stamp(self) -> int:
        """Return the settings stamp (0 before any change): one row, read cheaply and often."""
        found = self._fetch(_STAMP)
        return int(found[0][0]) if found else 0

    @retry_on_disconnect
    def ensure_member(self, platform: str, external_id: str, display_name: str) -> Member:
        """Return the member, creating it or refreshing its display name."""
        with self._transaction() as session:
            return upsert_member(self, session, platform, external_id, display_name)

    @retry_on_disconnect
    def set_hidden(self, user_id: int, hidden: bool) -> None:
        """Keep the member off the public boards (True) or show them again (False)."""
        with self._transaction() as session:
            session.execute(update(UserRow).where(UserRow.id == user_id).values(hidden=hidden))

    def get_member(self, member_id: int) -> Member | None:
        """Return the member with this id, if any."""
        found = self._fetch(_MEMBER, {"member_id": member_id})
        return _member(found[0]) if found else None

    def find_member(self, platform: str, external_id: str) -> Member | None:
        """Return the member known by this platform id, if any (a read: nothing registered)."""
        found = self._fetch(_MEMBER_BY_KEY, {"platform": platform, "external_id": external_id})
        return _member(found[0]) if found else None


def upsert_member(
    store: StoreBase, session: Session, platform: str, external_id: str, display_name: str
) -> Member:
    """Create the member or refresh its display name inside ``session``; return it."""
    insert = store._upsert(UserRow).values(
        platform=platform, external_id=external_id, display_name=display_name
    )
    session.execute(
        insert.on_conflict_do_update(
            index_elements=PLATFORM_KEY,
            set_={"display_name": insert.excluded.display_name},
            # Most calls carry the same name: skip the write then.
            where=UserRow.display_name != insert.excluded.display_name,
        )
    )
    row = session.scalars(
        select(UserRow).where(UserRow.platform == platform, UserRow.external_id == external_id)
    ).one()
    return _member(row)


def _new_channel(defaults: ChannelDefaults) -> dict[str, Any]:
    """Return the column values of a new channel: ``defaults`` over the model's defaults."""
    model = ChannelSettings(id=0, platform="", external_id="", workspace_external_id="", name="")
    return {
        "name": defaults.name,
        "post_time": defaults.post_time,
        "timezone": defaults.timezone,
        "locale": defaults.locale,
        "topics": list(model.topics),
        "difficulties": list(model.difficulties),
        "packs": list(model.packs),
        "enabled": model.enabled,
        "leaderboard_weekday": model.leaderboard_weekday,
        "leaderboard_hour": model.leaderboard_hour,
        "round_hours": model.round_hours,
        "live_anyone": model.live_anyone,
        "live_on_board": model.live_on_board,
        "kinds": list(model.kinds),
    }


def _changes(update: ChannelUpdate) -> dict[str, Any]:
    """Return the column values ``update`` sets (its non-None fields)."""
    changes: dict[str, Any] = {
        "post_time": update.post_time,
        "timezone": update.timezone,
        "locale": update.locale,
        "topics": list(update.topics) if update.topics is not None else None,
        "difficulties": list(update.difficulties) if update.difficulties is not None else None,
        "packs": list(update.packs) if update.packs is not None else None,
        "enabled": update.enabled,
        "leaderboard_weekday": update.leaderboard_weekday,
        "leaderboard_hour": update.leaderboard_hour,
        "live_anyone": update.live_anyone,
        "live_on_board": update.live_on_board,
        "kinds": list(update.kinds) if update.kinds is not None else None,
    }
    return {name: value for name, value in changes.items() if value is not None}
