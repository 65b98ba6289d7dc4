"""Implement the core's QuizStore port on SQLAlchemy (SQLite or PostgreSQL)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from db.store_answers import AnswerStore
from db.store_audit import AuditStore
from db.store_browser import BrowserStore
from db.store_channels import ChannelStore
from db.store_insights import InsightStore
from db.store_live import LiveStore
from db.store_members import MemberStore
from db.store_pending import PendingStore
from db.store_practice import PracticeStore
from db.store_reminders import ReminderStore
from db.store_reports import ReportStore
from db.store_requests import RequestStore
from db.store_rounds import RoundStore
from db.store_scores import ScoreStore
from db.store_speed import SpeedStore
from db.store_web import PublishedBoardStore, WebStore

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from bot.core.store import QuizStore


class SqlStore(
    RequestStore, ChannelStore, RoundStore, PendingStore, AnswerStore, ScoreStore, PracticeStore,
    MemberStore, ReportStore, InsightStore, ReminderStore, WebStore, LiveStore, BrowserStore,
    AuditStore, PublishedBoardStore, SpeedStore,
):
    """Persist the quiz's state; every method is one transaction, claims are race-safe.

    Build it with an engine from db.engine.make_engine on a migrated database:
    ``SqlStore(make_engine(url))``; pass a Clock to control channel creation times in tests.
    """


if TYPE_CHECKING:

    def _implements_the_port(engine: Engine) -> QuizStore:
        # `mypy db` fails here as soon as SqlStore and the QuizStore port drift apart.
        return SqlStore(engine)
