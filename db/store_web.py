"""The web page's sign-in on SQLAlchemy: one-time links, sessions and the kept secret.

Only a SHA-256 of each token is stored. Using a link is one conditional UPDATE (unused and in
time), so of two browsers redeeming it at once exactly one gets a session.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Delete, Engine, delete, func, select, update
from sqlalchemy.orm import Session

from bot.core.kernel.models import WebGrant, WebSession
from db.retry import retry_on_disconnect
from db.store_base import StoreBase, rowcount
from db.tables import (
    ChannelRow,
    PublishedBoardRow,
    ScoreTotalRow,
    UserRow,
    WebLinkRow,
    WebSecretRow,
    WebSessionRow,
    WorkspaceRow,
)

SECRET_NAME = "signing"  # noqa: S105 - the row's name, not a secret
# Used and expired links are kept a day (the rate limit reads the last minutes), then dropped.
KEEP_LINKS = dt.timedelta(days=1)


def _grant(row: WebLinkRow | WebSessionRow) -> WebGrant:
    return WebGrant(platform=row.platform, workspace=row.workspace, user=row.user,
                    display_name=row.display_name, channel=row.channel, locale=row.locale,
                    is_admin=row.is_admin)


def _session(row: WebSessionRow) -> WebSession:
    return WebSession(id=row.id, grant=_grant(row), csrf=row.csrf, created_at=row.created_at,
                      expires_at=row.expires_at)


def end_member_sessions(session: Session, platform: str, user: str) -> int:
    """End a member's sessions and unused links in the caller's transaction (forget-me too)."""
    rowcount(session, delete(WebLinkRow).where(WebLinkRow.platform == platform,
                                               WebLinkRow.user == user))
    ended: Delete = delete(WebSessionRow).where(WebSessionRow.platform == platform,
                                                WebSessionRow.user == user)
    return rowcount(session, ended)


class WebStore(StoreBase):
    """The SignInStore port: what signing in to the web page reads and writes."""

    @retry_on_disconnect
    def keep_web_secret(self, candidate: str) -> str:
        """Return the kept signing secret, storing ``candidate`` if there is none (first wins)."""
        with self._transaction() as session:
            stmt = self._upsert(WebSecretRow).values(name=SECRET_NAME, value=candidate)
            session.execute(stmt.on_conflict_do_nothing(index_elements=["name"]))
            return session.scalars(select(WebSecretRow.value)
                                   .where(WebSecretRow.name == SECRET_NAME)).one()

    def add_web_link(self, token_hash: str, grant: WebGrant, created_at: dt.datetime,
                     expires_at: dt.datetime) -> None:
        """Keep a new one-time link; drop links and sessions long expired."""
        with self._transaction() as session:
            session.execute(delete(WebLinkRow).where(
                WebLinkRow.expires_at < created_at - KEEP_LINKS))
            session.execute(delete(WebSessionRow).where(WebSessionRow.expires_at < created_at))
            session.add(WebLinkRow(
                token_hash=token_hash, platform=grant.platform, workspace=grant.workspace,
                user=grant.user, display_name=grant.display_name, channel=grant.channel,
                locale=grant.locale, is_admin=grant.is_admin, created_at=created_at,
                expires_at=expires_at, used_at=None))

    @retry_on_disconnect
    def web_links_since(self, platform: str, user: str, since: dt.datetime) -> int:
        """Return how many links the member was given from ``since`` on."""
        with self._read() as session:
            return session.scalar(select(func.count()).select_from(WebLinkRow).where(
                WebLinkRow.platform == platform, WebLinkRow.user == user,
                WebLinkRow.created_at >= since)) or 0

    @retry_on_disconnect
    def web_link(self, token_hash: str, now: dt.datetime) -> WebGrant | None:
        """Return the grant of an unused link still in time, else None."""
        with self._read() as session:
            row = session.scalars(select(WebLinkRow).where(
                WebLinkRow.token_hash == token_hash, WebLinkRow.used_at.is_(None),
                WebLinkRow.expires_at > now)).one_or_none()
            return _grant(row) if row is not None else None

    def redeem_web_link(self, token_hash: str, now: dt.datetime, session_hash: str, csrf: str,
                        session_expires: dt.datetime) -> WebSession | None:
        """Use the link once and open its session in one transaction; None if it cannot."""
        with self._transaction() as session:
            used = rowcount(session, update(WebLinkRow).where(
                WebLinkRow.token_hash == token_hash, WebLinkRow.used_at.is_(None),
                WebLinkRow.expires_at > now).values(used_at=now))
            if used != 1:
                return None
            link = session.scalars(select(WebLinkRow)
                                   .where(WebLinkRow.token_hash == token_hash)).one()
            row = WebSessionRow(
                token_hash=session_hash, platform=link.platform, workspace=link.workspace,
                user=link.user, display_name=link.display_name, channel=link.channel,
                locale=link.locale, is_admin=link.is_admin, csrf=csrf, created_at=now,
                expires_at=session_expires)
            session.add(row)
            session.flush()
            return _session(row)

    @retry_on_disconnect
    def web_session(self, session_hash: str, now: dt.datetime) -> WebSession | None:
        """Return the session if it exists and has not expired at ``now``."""
        with self._read() as session:
            row = session.scalars(select(WebSessionRow).where(
                WebSessionRow.token_hash == session_hash,
                WebSessionRow.expires_at > now)).one_or_none()
            return _session(row) if row is not None else None

    @retry_on_disconnect
    def end_web_session(self, session_hash: str) -> None:
        """End one session (logout)."""
        with self._transaction() as session:
            session.execute(delete(WebSessionRow).where(WebSessionRow.token_hash == session_hash))

    @retry_on_disconnect
    def end_web_sessions(self, platform: str, user: str) -> int:
        """End every session and unused link of a member; return the sessions ended."""
        with self._transaction() as session:
            return end_member_sessions(session, platform, user)

    @retry_on_disconnect
    def member_workspaces(self, platform: str, user: str, limit: int) -> list[str]:
        """Return up to ``limit`` workspaces where the member has totals (has answered)."""
        stmt = (select(WorkspaceRow.external_id).distinct()
                .join(ChannelRow, ChannelRow.workspace_id == WorkspaceRow.id)
                .join(ScoreTotalRow, ScoreTotalRow.channel_id == ChannelRow.id)
                .join(UserRow, UserRow.id == ScoreTotalRow.user_id)
                .where(UserRow.platform == platform, UserRow.external_id == user,
                       WorkspaceRow.platform == platform)
                .order_by(WorkspaceRow.external_id).limit(limit))
        with self._read() as session:
            return list(session.scalars(stmt))


def ping_web(engine: Engine) -> int:
    """Ask the database a trivial question on a table of ours (the web process's /healthz)."""
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(WebSecretRow)) or 0


class PublishedBoardStore(StoreBase):
    """The boards port's published links: one per channel, replaced or withdrawn by an admin."""

    @retry_on_disconnect
    def publish_board(self, channel_id: int, token: str, at: dt.datetime) -> str | None:
        """Publish the channel's board at ``token`` (replacing its link); return the old token."""
        with self._transaction() as session:
            old = session.scalar(select(PublishedBoardRow.token)
                                 .where(PublishedBoardRow.channel_id == channel_id))
            session.execute(delete(PublishedBoardRow)
                            .where(PublishedBoardRow.channel_id == channel_id))
            session.add(PublishedBoardRow(channel_id=channel_id, token=token, published_at=at))
            return old

    @retry_on_disconnect
    def withdraw_board(self, channel_id: int) -> str | None:
        """Withdraw the channel's published board; return the token it had (None: none)."""
        with self._transaction() as session:
            old = session.scalar(select(PublishedBoardRow.token)
                                 .where(PublishedBoardRow.channel_id == channel_id))
            if old is not None:
                session.execute(delete(PublishedBoardRow)
                                .where(PublishedBoardRow.channel_id == channel_id))
            return old

    @retry_on_disconnect
    def board_token(self, channel_id: int) -> str | None:
        """Return the token the channel's board is published at, None when it is not."""
        with self._reading() as connection:
            return connection.execute(
                select(PublishedBoardRow.token)
                .where(PublishedBoardRow.channel_id == channel_id)).scalar()

    @retry_on_disconnect
    def published_channel(self, token: str) -> int | None:
        """Return the channel whose board is published at ``token``, None for any other."""
        with self._reading() as connection:
            return connection.execute(
                select(PublishedBoardRow.channel_id)
                .where(PublishedBoardRow.token == token)).scalar()
