"""Back up a running bot's SQLite database, and restore one: `torchquiz db backup|restore FILE`.

A backup goes through SQLite's online backup API: one read snapshot of the live file (WAL
lets the bot keep writing meanwhile), written beside FILE, checked, then moved over FILE, so
FILE is always a whole database. A restore checks that FILE is a torchquiz database at a
migration this version knows, and writes it into the configured database only while no other
process has that open (stop the bots first); replacing a database that holds data needs
``force``. PostgreSQL has its own tools (pg_dump, pg_restore): the command says so.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url

from db.engine import SQLITE_BUSY_TIMEOUT_MS, normalize_url
from db.migrate import alembic_config

# Counted to describe a database, and to tell whether one holds anything worth keeping.
COUNTED = ("channels", "users", "rounds", "answers")
# How long a restore waits for the target's lock before calling it in use.
IN_USE_WAIT_S = 1.0


class BackupError(Exception):
    """A backup or restore that was refused or failed; the message says why, for an operator."""


class NotSqlite(BackupError):
    """The configured database is not a SQLite file: its server's own tools back it up."""


@dataclass(frozen=True)
class DatabaseInfo:
    """What a database file holds: its migration and how many rows of the main tables."""

    path: Path
    revision: str
    rows: dict[str, int]

    def describe(self) -> str:
        """Return one line for the operator."""
        return f"{self.path}: migration {self.revision}; {_counts(self.rows)}"


def backup(url: str, target: Path) -> DatabaseInfo:
    """Copy the live SQLite database at ``url`` to ``target`` and return what it holds."""
    source = sqlite_file(url, "backup", "pg_dump --format=custom --file FILE DATABASE_URL")
    if not source.is_file():
        raise BackupError(f"no database at {source}")
    if target.resolve() == source.resolve():
        raise BackupError(f"{target} is the database itself: name another file")
    target.parent.mkdir(parents=True, exist_ok=True)
    # Beside the target, so that the final move is a rename within one file system.
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    try:
        with (
            closing(sqlite3.connect(source, timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)) as live,
            closing(sqlite3.connect(partial)) as copy,
        ):
            # All pages in one step: one read snapshot. Step by step, every write the bot
            # made meanwhile would restart the copy.
            live.backup(copy)
            # One self-contained file (the copy inherits WAL mode): nothing beside it to lose.
            copy.execute("PRAGMA journal_mode=DELETE")
        inspect(partial)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return inspect(target)


def restore(url: str, source: Path, *, force: bool = False) -> DatabaseInfo:
    """Write the backup ``source`` into the SQLite database at ``url``; return what it holds."""
    target = sqlite_file(url, "restore", "pg_restore --clean --dbname DATABASE_URL FILE")
    found = inspect(source)
    if target.exists() and target.resolve() == source.resolve():
        raise BackupError(f"{source} is the database itself")
    if not target.exists() and Path(f"{target}-wal").exists():
        # SQLite would replay that log into the restored file.
        raise BackupError(f"{target}-wal is left from a database that is gone: move it away")
    target.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(target, timeout=IN_USE_WAIT_S)) as database:
        _refuse_if_in_use(database, target)
        if not force and any((kept := _rows(database)).values()):
            raise BackupError(
                f"{target} already holds data ({_counts(kept)}); "
                "run again with --force to replace it"
            )
        with closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as backup_file:
            backup_file.backup(database)
    restored = inspect(target)
    return DatabaseInfo(restored.path, found.revision, restored.rows)


def inspect(path: Path) -> DatabaseInfo:
    """Return what the SQLite file holds, or raise BackupError if it is no torchquiz database."""
    if not path.is_file():
        raise BackupError(f"{path}: no such file")
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as database:
            [(check,)] = database.execute("PRAGMA quick_check").fetchall()
            if check != "ok":
                raise BackupError(f"{path} is damaged: {check}")
            revisions = database.execute("SELECT version_num FROM alembic_version").fetchall()
            rows = _rows(database)
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path} is not a torchquiz database ({exc})") from exc
    if len(revisions) != 1 or revisions[0][0] not in known_revisions():
        raise BackupError(
            f"{path} is at migration {', '.join(r for (r,) in revisions) or 'none'}, which "
            "this version of torchquiz does not know (made by a newer one?)"
        )
    return DatabaseInfo(path, revisions[0][0], rows)


def known_revisions() -> set[str]:
    """Return every migration this version of the code can run or has run."""
    scripts = ScriptDirectory.from_config(alembic_config())
    return {script.revision for script in scripts.walk_revisions()}


def sqlite_file(url: str, command: str, tool: str) -> Path:
    """Return the file of a SQLite ``url``; raise NotSqlite naming the server's ``tool``."""
    parsed = make_url(normalize_url(url))
    if parsed.get_backend_name() != "sqlite":
        raise NotSqlite(
            f"the database is {parsed.get_backend_name()}, not a SQLite file: "
            f"`torchquiz db {command}` works on SQLite only; use {tool} "
            "(see the README, Operations)"
        )
    if not parsed.database or parsed.database == ":memory:":
        raise BackupError("the database is in memory: there is nothing to back up or restore")
    return Path(parsed.database)


def _refuse_if_in_use(database: sqlite3.Connection, path: Path) -> None:
    """Raise if another process has the database open: a running bot would keep old pages."""
    try:
        # Leaving WAL mode needs the only connection to the file; a bot holds its own open
        # (pooled) even while idle. The bot puts it back into WAL when it next starts.
        database.execute("PRAGMA journal_mode=DELETE")
    except sqlite3.OperationalError as exc:
        raise BackupError(
            f"{path} is in use by another process ({exc}): stop every bot using it first"
        ) from exc
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path} is not a SQLite database ({exc}): move it away") from exc


def _rows(database: sqlite3.Connection) -> dict[str, int]:
    """Return the row counts of the main tables, or {} for a database without them."""
    names = {name for (name,) in database.execute("SELECT name FROM sqlite_master")}
    if not set(COUNTED) <= names:
        return {}
    # The names are this module's constants, never input.
    return {t: database.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in COUNTED}  # noqa: S608


def _counts(rows: dict[str, int]) -> str:
    """Return the row counts as words: "3 channels, 12 users, ..."."""
    return ", ".join(f"{count} {table}" for table, count in rows.items())
