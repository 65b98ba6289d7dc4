"""One app, many workspaces: bolt's OAuth install writes an installation the next request uses."""

from __future__ import annotations

import re

import aiohttp
import sqlalchemy
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

from bot.bootstrap import database_url
from db import migrate
from db.engine import make_engine
from tests.fake_slack import CLIENT_ID, OTHER_TEAM, TEAM
from tests.fake_slack_requests import modal_values


async def _install(h, team):
    """Walk the install as a workspace admin's browser would; return the final page."""
    async with aiohttp.ClientSession() as browser:
        async with browser.get(f"{h.base_url}/slack/install") as page:
            assert page.status == 200
            html = await page.text()
            cookie = page.headers["Set-Cookie"].split(";", 1)[0]
        link = re.search(r'href="(https://slack\.com/oauth/v2/authorize\?[^"]+)"', html).group(1)
        state = re.search(r"state=([^&\"]+)", link).group(1)
        assert f"client_id={CLIENT_ID}" in link
        asked = link.replace("%3A", ":").replace("%2C", ",")
        assert ("scope=channels:history,channels:read,chat:write,commands,files:read,"
                "files:write,groups:read,im:write,users:read" in asked)
        code = h.fake.approve_install(team)  # the admin clicks "Allow" on Slack's page
        async with browser.get(f"{h.base_url}/slack/oauth_redirect",
                               params={"code": code, "state": state},
                               headers={"Cookie": cookie}) as done:
            return done.status, await done.text()


def _rows(h, table):
    engine = make_engine(database_url(h.config))
    try:
        with engine.connect() as connection:
            return [dict(r) for r in connection.execute(
                sqlalchemy.text(f"SELECT * FROM {table}")).mappings()]  # noqa: S608
    finally:
        engine.dispose()


def test_an_install_writes_an_installation_that_the_next_request_uses(slack_run):
    async def scenario(h):
        status, page = await _install(h, OTHER_TEAM)
        assert status == 200 and "Thank you!" in page
        [installed] = _rows(h, "slack_installations")
        assert installed["team_id"] == OTHER_TEAM and installed["client_id"] == CLIENT_ID
        token = installed["bot_token"]
        assert token.startswith(f"xoxb-{OTHER_TEAM}-")
        assert [b["bot_token"] for b in _rows(h, "slack_bots")] == [token]
        assert _rows(h, "slack_oauth_states") == []  # the state was used up
        reply = await h.reply(await h.send.command("/explain", "detach", team=OTHER_TEAM))
        assert "detach()" in reply.shown_text
        assert {c.token for c in h.fake.calls_of("users.info")} == {token}
        # The scheduler posts into that workspace's channels with that workspace's token.
        opened = await h.send.command("/quiz-settings", who="admin", team=OTHER_TEAM)
        view_id = await h.modal(opened)
        values = modal_values(h.fake.views[view_id], enabled="on")
        await h.reply(await h.send.submit(view_id, values, "admin", team=OTHER_TEAM))
        channel = h.stored_channel()
        assert channel.workspace_external_id == OTHER_TEAM
        post = await h.post_today(channel)
        assert post.raw.token == token

    slack_run(scenario, oauth=True)


def test_a_workspace_that_never_installed_gets_nothing_done(slack_run):
    async def scenario(h):
        asked = await h.send.command("/explain", "detach", team=TEAM)
        told = await h.reply(asked)  # bolt tells the member to install the app first
        assert "reinstall this app" in told.text
        assert h.fake.calls == [] and len(h.fake.shown) == 1

    slack_run(scenario, oauth=True)


def test_an_install_with_a_forged_state_is_refused(slack_run):
    async def scenario(h):
        async with aiohttp.ClientSession() as browser, browser.get(
                f"{h.base_url}/slack/oauth_redirect",
                params={"code": h.fake.approve_install(OTHER_TEAM), "state": "forged"},
                headers={"Cookie": "slack-app-oauth-state=forged"}) as done:
            assert done.status >= 400
        assert _rows(h, "slack_installations") == []

    slack_run(scenario, oauth=True)


def _slack_tables(name, type_, _parent):
    return type_ != "table" or (name or "").startswith("slack_")


def test_the_migration_builds_exactly_the_tables_slack_sdk_stores_use(empty_database_url):
    migrate.upgrade(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        expected = sqlalchemy.MetaData()
        for store in (SQLAlchemyInstallationStore(CLIENT_ID, engine),
                      SQLAlchemyOAuthStateStore(600, engine)):
            for table in store.metadata.tables.values():
                table.to_metadata(expected)
        assert set(expected.tables) == {"slack_installations", "slack_bots",
                                        "slack_oauth_states"}
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "include_name": _slack_tables})
            assert compare_metadata(context, expected) == []
    finally:
        engine.dispose()
