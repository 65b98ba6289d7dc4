"""The storage layer behind a real PgBouncer in transaction mode.

In transaction mode consecutive transactions of one client connection may run on different
server sessions, and one server session serves many clients: anything a connection keeps
between transactions (a session advisory lock, LISTEN, a SET, a server-side prepared
statement) breaks. A slice of the storage tests (rounds and their claims, answers and totals,
forgetting a member) runs here unchanged against a database reached through
PgBouncer (Debian's ``pgbouncer``, started on 127.0.0.1 for this module, like the PostgreSQL
test server), with the engine as a deployment behind a pooler builds it
(``TORCHQUIZ_DATABASE_POOLER``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from db.engine import PoolOptions, make_engine
from db.migrate import upgrade
from tests.conftest import PgServer, empty_tables
from tests.db import (
    test_claim_rounds,
    test_store_members,
    test_store_rounds,
    test_store_totals,
)

pytestmark = pytest.mark.postgres

# PgBouncer refuses to run as root; the PostgreSQL test server's system user runs it too.
RUN_AS = "torchquiz-pg"
SLICE = (test_store_rounds, test_claim_rounds, test_store_totals, test_store_members)
# The alias whose pool has one server session: every client shares it, transaction by
# transaction, so a prepared statement left by one client is seen (or missing) by the next.
SHARED = "shared"


def _binary() -> str:
    found = shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer"
                                          if os.path.exists("/usr/sbin/pgbouncer") else None)
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail("pgbouncer is not installed: scripts/system-deps.sh --postgres installs it",
                    pytrace=False)
    pytest.skip("pgbouncer is not installed; run scripts/system-deps.sh --postgres")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"pgbouncer exited: {log.read_text() if log.exists() else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    pytest.fail("pgbouncer did not listen within 15 s")


@pytest.fixture(scope="module")
def bouncer(pg_server: PgServer) -> Iterator[dict[str, Any]]:
    """Start PgBouncer in transaction mode in front of a migrated database; yield its URLs."""
    binary = _binary()
    direct = pg_server.create_database()
    upgrade(direct)  # migrations connect directly, as docs/storage.md says to deploy them
    server = make_url(direct)
    port = _free_port()
    folder = Path(tempfile.mkdtemp(prefix="tq-pgbouncer-"))
    (folder / "users.txt").write_text(f'"{server.username}" ""\n')
    (folder / "pgbouncer.ini").write_text(f"""\
[databases]
{server.database} = host={server.host} port={server.port} dbname={server.database} pool_size=4
{SHARED} = host={server.host} port={server.port} dbname={server.database} pool_size=1

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {folder}/users.txt
pool_mode = transaction
max_client_conn = 200
ignore_startup_parameters = extra_float_digits
server_reset_query =
logfile = {folder}/pgbouncer.log
""")
    command = [binary, str(folder / "pgbouncer.ini")]
    if os.geteuid() == 0:
        shutil.chown(folder, RUN_AS)
        for child in folder.iterdir():
            shutil.chown(child, RUN_AS)
        command = ["runuser", "-u", RUN_AS, "--", *command]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(port, process, folder / "pgbouncer.log")
        through = server.set(host="127.0.0.1", port=port)
        direct_engine = make_engine(direct)
        yield {"url": through.render_as_string(hide_password=False),
               "shared": through.set(database=SHARED).render_as_string(hide_password=False),
               "direct": direct_engine}
        direct_engine.dispose()
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
        pg_server.drop_database(direct)


@pytest.fixture
def database_url(bouncer: dict[str, Any]) -> str:
    """Return the migrated database, emptied, as reached through PgBouncer."""
    empty_tables(bouncer["direct"])
    return str(bouncer["url"])


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """Return an engine built for a transaction pooler, as TORCHQUIZ_DATABASE_POOLER does."""
    engine = make_engine(database_url, pool=PoolOptions(pooler=True))
    yield engine
    engine.dispose()


def _repeat_across_sessions(url: str, pool: PoolOptions) -> None:
    """Run one statement often, in separate transactions, from two clients of one session."""
    first, second = make_engine(url, pool=pool), make_engine(url, pool=pool)
    try:
        for _ in range(8):
            for client in (first, second):
                with client.begin() as connection:
                    connection.execute(text("SELECT count(*) FROM channels WHERE id > :n"),
                                       {"n": 0})
    finally:
        first.dispose()
        second.dispose()


def test_repeated_statements_run_behind_a_shared_server_session(bouncer):
    _repeat_across_sessions(bouncer["shared"], PoolOptions(pooler=True))


def test_without_the_pooler_setting_prepared_statements_collide_there(bouncer):
    # What the setting prevents: psycopg prepares a statement run five times, under one name
    # per client connection, in the server session of the moment.
    with pytest.raises(Exception, match="prepared statement"):
        _repeat_across_sessions(bouncer["shared"], PoolOptions(pooler=False))


def test_the_pooled_engine_prepares_no_statement(bouncer):
    engine = make_engine(bouncer["url"], pool=PoolOptions(pooler=True))
    try:
        with engine.connect() as connection:
            assert connection.connection.dbapi_connection.prepare_threshold is None
    finally:
        engine.dispose()


# The slice: each storage test of these modules, as it is, with this module's database_url
# and engine (its own fixtures come along).
for _module in SLICE:
    _short = _module.__name__.rsplit(".", 1)[1].removeprefix("test_")
    for _name, _value in vars(_module).items():
        if _name.startswith("test_") and callable(_value):
            globals()[f"test_{_short}__{_name.removeprefix('test_')}"] = _value
        elif hasattr(_value, "_pytestfixturefunction") or type(_value).__name__ == (
                "FixtureFunctionDefinition"):
            globals().setdefault(_name, _value)
