"""Run the Alembic migrations from code: ``torchquiz db upgrade`` calls ``upgrade(url)``."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from db.engine import make_engine

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def alembic_config() -> Config:
    """Return the Alembic configuration that alembic.ini would hold, built in code."""
    config = Config()
    # Config values go through ConfigParser interpolation: a literal % must be doubled.
    config.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the database at ``url`` up to ``revision``."""
    _run(url, revision, downgrade=False)


def downgrade(url: str, revision: str) -> None:
    """Migrate the database at ``url`` down to ``revision`` ("base" empties it)."""
    _run(url, revision, downgrade=True)


def current(url: str) -> str | None:
    """Return the revision the database at ``url`` is at, or None when never migrated."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def head() -> str:
    """Return the newest revision the code knows."""
    revision = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if revision is None:
        raise RuntimeError(f"no migrations found in {MIGRATIONS_DIR}")
    return revision


def _run(url: str, revision: str, *, downgrade: bool) -> None:
    """Run one migration command over an engine built like the application's."""
    config = alembic_config()
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            # env.py migrates over this connection, so SQLite gets the same PRAGMAs as the bot.
            config.attributes["connection"] = connection
            if downgrade:
                command.downgrade(config, revision)
            else:
                command.upgrade(config, revision)
    finally:
        engine.dispose()
