"""Implement the core's QuizStore port on SQLAlchemy (SQLite or PostgreSQL)."""

from __future__ import annotations

from db.store_channels import ChannelStore
from db.store_practice import PracticeStore
from db.store_rounds import RoundStore


class SqlStore(ChannelStore, RoundStore, PracticeStore):
    """Persist the quiz's state; every method is one transaction, claims are race-safe.

    Build it with an engine from db.engine.make_engine on a migrated database:
    ``SqlStore(make_engine(url))``; pass a Clock to control channel creation times in tests.
    """
