"""Migration 0015: the web page's tables come and go with the revision, data of others kept."""

import sqlalchemy as sa

from db import migrate
from db.engine import make_engine

WEB_TABLES = {"web_secrets", "web_links", "web_sessions"}


def _tables(url):
    engine = make_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_to_0015_adds_the_web_tables_and_downgrade_removes_them(empty_database_url):
    migrate.upgrade(empty_database_url, "0014")
    engine = make_engine(empty_database_url)
    with engine.begin() as db:
        db.execute(sa.text("INSERT INTO users (id, platform, external_id, display_name, hidden) "
                           "VALUES (1, 'console', 'ada', 'Ada', false)"))
    engine.dispose()
    assert not WEB_TABLES & _tables(empty_database_url)
    migrate.upgrade(empty_database_url, "0015")
    assert _tables(empty_database_url) >= WEB_TABLES
    migrate.downgrade(empty_database_url, "0014")
    assert not WEB_TABLES & _tables(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        with engine.connect() as db:
            assert db.execute(sa.text("SELECT display_name FROM users")).scalars().all() == ["Ada"]
    finally:
        engine.dispose()
    migrate.upgrade(empty_database_url, "0015")
    assert _tables(empty_database_url) >= WEB_TABLES
