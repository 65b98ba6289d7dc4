"""The PostgreSQL connection budget: a deployment that could exceed it refuses to start."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.bootstrap import database_engine
from bot.settings import Settings


def test_processes_times_the_pool_over_the_budget_is_refused_naming_the_numbers():
    with pytest.raises(ValidationError, match=r"4 processes x \(pool size 5 \+ overflow 10\) = 60"):
        Settings(_env_file=None, database_processes=4, database_connection_budget=50)


def test_a_deployment_within_its_budget_starts():
    settings = Settings(_env_file=None, database_processes=4, database_max_overflow=7,
                        database_connection_budget=48)
    assert settings.database_processes * (
        settings.database_pool_size + settings.database_max_overflow) == 48


def test_the_budget_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("TORCHQUIZ_DATABASE_PROCESSES", "3")
    monkeypatch.setenv("TORCHQUIZ_DATABASE_CONNECTION_BUDGET", "20")
    with pytest.raises(ValidationError, match="over the budget of 20"):
        Settings(_env_file=None)


def test_the_engine_takes_its_pool_from_the_settings():
    settings = Settings(_env_file=None, database_url="postgresql://u@127.0.0.1:1/x",
                        database_pool_size=3, database_max_overflow=2)
    engine = database_engine(settings)
    try:
        assert engine.pool.size() == 3 and engine.pool._max_overflow == 2
    finally:
        engine.dispose()
