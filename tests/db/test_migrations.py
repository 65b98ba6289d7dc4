"""Alembic: the first revision builds exactly the schema the models describe, and back."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from db import migrate
from db.engine import make_engine
from db.tables import Base

ROOT = Path(__file__).resolve().parents[2]


def _ours(name: str | None, type_: str, _parent: object) -> bool:
    # The slack_* tables are slack-sdk's installation and OAuth-state stores, not our models;
    # tests/adapters/slack/test_slack_installations.py compares them with slack-sdk's own.
    return type_ != "table" or not (name or "").startswith("slack_")


def _diff(url: str) -> list[object]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "include_name": _ours})
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_head_matches_the_models(empty_database_url):
    migrate.upgrade(empty_database_url)
    assert _diff(empty_database_url) == []


def test_unmigrated_database_has_no_revision(empty_database_url):
    assert migrate.current(empty_database_url) is None


def test_upgrade_records_the_head_revision(empty_database_url):
    migrate.upgrade(empty_database_url)
    assert migrate.current(empty_database_url) == migrate.head()


def test_upgrade_twice_changes_nothing(empty_database_url):
    migrate.upgrade(empty_database_url)
    migrate.upgrade(empty_database_url)
    assert migrate.current(empty_database_url) == migrate.head()
    assert _diff(empty_database_url) == []


def test_downgrade_to_base_removes_every_table(empty_database_url):
    migrate.upgrade(empty_database_url)
    migrate.downgrade(empty_database_url, "base")
    assert _tables(empty_database_url) <= {"alembic_version"}


def test_migrations_create_every_model_table(empty_database_url):
    migrate.upgrade(empty_database_url)
    assert set(Base.metadata.tables) <= _tables(empty_database_url)


def test_alembic_cli_migrates_with_the_same_environment(empty_database_url):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "alembic",
            "-c",
            str(ROOT / "db" / "alembic.ini"),
            "-x",
            f"url={empty_database_url}",
            "upgrade",
            "head",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert migrate.current(empty_database_url) == migrate.head()
