"""Store team question packs: every version, scoped to one workspace or to all of them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import case, func, select, update

from db.retry import retry_on_disconnect
from db.store_base import StoreBase
from db.tables import TeamPackRow

EVERY_WORKSPACE = "*"


class PackRefused(ValueError):
    """Raise when a pack cannot be stored as asked; the message is safe to show its author."""


@dataclass(frozen=True)
class StoredPack:
    """One stored version of a pack."""

    pack_id: str
    version: int
    scope: str  # "PLATFORM:WORKSPACE", or "*" for every workspace
    title: str
    locales: tuple[str, ...]
    text: str
    removed: bool
    created_at: dt.datetime
    document: str = ""  # the validated data as JSON (content.packs.load_stored_pack reads it)


def _stored(row: TeamPackRow) -> StoredPack:
    return StoredPack(row.pack_id, row.version, row.scope, row.title, tuple(row.locales),
                      row.text, row.removed, row.created_at, row.document)


def visible_to(pack_scope: str, workspace: str | None) -> bool:
    """Say whether a pack stored for ``pack_scope`` is seen from ``workspace`` (None: the CLI)."""
    return workspace is None or pack_scope in (EVERY_WORKSPACE, workspace)


class PackStore(StoreBase):
    """Packs in the database, so every replica sees the same packs and restarts lose none."""

    def add(self, pack_id: str, version: int, scope: str, title: str,
            locales: tuple[str, ...], text: str, document: str = "") -> StoredPack:
        """Store a new version of ``pack_id`` for ``scope``; raise PackRefused when it cannot be.

        A pack id belongs to the scope that first stored it (its item ids are global), and a
        version is stored once: a new upload must raise it.
        """
        with self._transaction() as session:
            rows = session.scalars(select(TeamPackRow).where(TeamPackRow.pack_id == pack_id)
                                   .order_by(TeamPackRow.version)).all()
            if rows and rows[0].scope != scope:
                raise PackRefused(f"pack id {pack_id!r} belongs to another workspace; "
                                  "choose another id")
            if rows and version <= rows[-1].version:
                raise PackRefused(f"pack {pack_id!r} already has version {rows[-1].version}; "
                                  f"raise 'version' above it")
            if rows:
                # A new version revives a removed pack: its history is one line.
                session.execute(update(TeamPackRow).where(TeamPackRow.pack_id == pack_id)
                                .values(removed=False))
            row = TeamPackRow(pack_id=pack_id, version=version, scope=scope, title=title,
                              locales=list(locales), text=text, document=document,
                              removed=False,
                              created_at=self._clock.now())
            session.add(row)
            session.flush()
            return _stored(row)

    @retry_on_disconnect
    def latest(self, workspace: str | None = None) -> list[StoredPack]:
        """Return the newest version of each pack ``workspace`` sees (None: all), by id."""
        with self._read() as session:
            rows = session.scalars(select(TeamPackRow).where(TeamPackRow.removed.is_(False))
                                   .order_by(TeamPackRow.pack_id, TeamPackRow.version)).all()
        newest: dict[str, StoredPack] = {}
        for row in rows:
            if visible_to(row.scope, workspace):
                newest[row.pack_id] = _stored(row)
        return [newest[k] for k in sorted(newest)]

    @retry_on_disconnect
    def versions(self, pack_id: str, workspace: str | None = None) -> list[StoredPack]:
        """Return every stored version of ``pack_id`` that ``workspace`` sees, oldest first."""
        with self._read() as session:
            rows = session.scalars(select(TeamPackRow).where(TeamPackRow.pack_id == pack_id)
                                   .order_by(TeamPackRow.version)).all()
        return [_stored(r) for r in rows if visible_to(r.scope, workspace)]

    def remove(self, pack_id: str, workspace: str | None = None) -> bool:
        """Hide ``pack_id`` from lists and draws (history stays); False when none was seen."""
        with self._transaction() as session:
            rows = session.scalars(select(TeamPackRow).where(
                TeamPackRow.pack_id == pack_id, TeamPackRow.removed.is_(False))).all()
            rows = [r for r in rows if workspace is None or r.scope == workspace]
            for row in rows:
                row.removed = True
            return bool(rows)

    @retry_on_disconnect
    def stamp(self) -> tuple[int, int, int]:
        """Return (rows, newest row id, rows removed): it changes with every add and remove.

        One aggregate query, cheap whatever the packs weigh: a replica asks it every few
        seconds to learn whether another one (or the command line) stored or removed a pack.
        An add inserts a row (rows and newest id grow; reviving a removed pack comes with
        one), a remove hides rows (the removed count grows).
        """
        query = select(func.count(TeamPackRow.id), func.coalesce(func.max(TeamPackRow.id), 0),
                       func.coalesce(func.sum(case((TeamPackRow.removed.is_(True), 1),
                                                   else_=0)), 0))
        with self._read() as session:
            rows, newest, removed = session.execute(query).one()
        return int(rows), int(newest), int(removed)

    @retry_on_disconnect
    def every_version(self) -> list[StoredPack]:
        """Return every stored version of every pack, removed ones too, by id then version."""
        with self._read() as session:
            rows = session.scalars(select(TeamPackRow)
                                   .order_by(TeamPackRow.pack_id, TeamPackRow.version)).all()
        return [_stored(r) for r in rows]
