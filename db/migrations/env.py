"""Alembic environment: run migrations from the alembic CLI or from db.migrate."""

from __future__ import annotations

import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection

from db.engine import make_engine, normalize_url
from db.tables import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    """Return the database URL: ``-x url=...``, then TORCHQUIZ_DATABASE_URL, then the ini file."""
    url = context.get_x_argument(as_dictionary=True).get("url")
    url = (
        url or os.environ.get("TORCHQUIZ_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
    )
    if not url:
        raise RuntimeError("no database URL: pass -x url=... or set TORCHQUIZ_DATABASE_URL")
    return normalize_url(url)


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite can only ALTER by copying a table; batch mode does that for later revisions.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )


def run_offline() -> None:
    """Emit the SQL for a URL without connecting (``alembic upgrade --sql``)."""
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Migrate over the connection db.migrate passed in, or over a new one from the URL."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(_url())
    try:
        with engine.connect() as new_connection:
            _configure(new_connection)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


# The CLI reads logging from alembic.ini; db.migrate leaves logging to the application.
if config.config_file_name is not None and config.attributes.get("connection") is None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)

if context.is_offline_mode():
    run_offline()
else:
    run_online()
