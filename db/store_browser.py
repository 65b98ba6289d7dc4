"""The question browser's reads on SQLAlchemy: what a member answered, what is still in play."""

from __future__ import annotations

from sqlalchemy import select, union

from bot.core.kernel.models import RoundStatus
from db.retry import retry_on_disconnect
from db.store_base import StoreBase
from db.tables import (
    AnswerRow,
    ChannelRow,
    PracticeResultRow,
    PracticeSessionRow,
    RoundRow,
    WorkspaceRow,
)


class BrowserStore(StoreBase):
    """The BrowserStore port: two indexed reads per question shown."""

    @retry_on_disconnect
    def answered_items(self, user_id: int) -> set[str]:
        """Return the items the member answered in a round or finished in practice."""
        stmt = union(
            select(RoundRow.item_id).join(AnswerRow, AnswerRow.round_id == RoundRow.id)
            .where(AnswerRow.user_id == user_id),
            select(PracticeResultRow.item_id).where(PracticeResultRow.user_id == user_id))
        with self._read() as session:
            return set(session.scalars(stmt))

    @retry_on_disconnect
    def unsettled_items(self, platform: str, workspace: str, user_id: int) -> set[str]:
        """Return the items of the workspace's open rounds and the member's open practice."""
        stmt = union(
            select(RoundRow.item_id)
            .join(ChannelRow, ChannelRow.id == RoundRow.channel_id)
            .join(WorkspaceRow, WorkspaceRow.id == ChannelRow.workspace_id)
            .where(RoundRow.status == RoundStatus.OPEN.value, WorkspaceRow.platform == platform,
                   WorkspaceRow.external_id == workspace),
            select(PracticeSessionRow.item_id).where(PracticeSessionRow.user_id == user_id))
        with self._read() as session:
            return set(session.scalars(stmt))
