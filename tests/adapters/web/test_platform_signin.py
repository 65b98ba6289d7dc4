"""Sign in with Slack (OpenID Connect) and with Discord (OAuth2), against a local fake of each.

The browser carries only a code and a state; what a session is built on comes from the
platforms' servers and the bot's own look at the member. Each lie a server or a browser could
tell is refused here: a token for another app, another nonce, an unpublished key, an expired
token, an unsigned one, a state that did not start here, a server the member is not in.
"""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.adapters.slack.web_people import slack_person
from bot.adapters.web.app import WebFront
from bot.adapters.web.pages import application
from bot.adapters.web.providers import DiscordSignIn, Http, SlackSignIn
from bot.core.kernel.models import Actor, ChannelDefaults
from bot.settings import Settings
from tests.adapters.web.support import BASE, csrf_of
from tests.support.core import only
from tests.support.fake_oauth import (
    BOT_TOKENS,
    CLIENT_ID,
    CLIENT_SECRET,
    DISCORD_BOT,
    DiscordUser,
    FakeOAuth,
    SlackUser,
)

ADMIN_ROLE = {"id": "900", "permissions": str(1 << 5)}  # Manage Server
PLAIN_ROLE = {"id": "901", "permissions": str(1 << 10)}  # View Channel only


class Tokens:
    async def bot_token(self, team_id: str) -> str:
        try:
            return BOT_TOKENS[team_id]
        except KeyError:
            raise LookupError(team_id) from None


def _server(name: str, owner: str = "1") -> dict:
    return {"name": name, "owner_id": owner, "roles": [
        {"id": "SERVER", "permissions": "0"}, ADMIN_ROLE, PLAIN_ROLE]}


def solve(quiz, platform: str, workspace: str, channel: str, user: str) -> None:
    """Post a round in the channel and let ``user`` answer it (so the member has totals)."""
    settings = quiz.rounds.channel(platform, channel, workspace, ChannelDefaults(name="general"))
    settings = only(quiz, settings, "t.text-detach")
    quiz.rounds.post_round(settings.id)
    member = quiz.rounds.member(platform, user, "Ada")
    quiz.rounds.submit_answer(settings.id, Actor(member), "detach")


def run(quiz, scenario, *, fake: FakeOAuth | None = None, platforms=("slack", "discord")):
    """Serve the page with the configured sign-ins over a started fake; run the scenario."""
    fake = fake or FakeOAuth()

    async def main():
        await fake.start()
        http = Http(timeout_s=5.0)
        settings = Settings(**{"SLACK_API_URL": f"{fake.url}/api/"})

        async def servers(user: str) -> list[str]:
            return quiz.signin.member_workspaces("discord", user)

        providers = {
            "slack": SlackSignIn(http, CLIENT_ID, CLIENT_SECRET, f"{fake.url}/api/",
                                 slack_person(settings, Tokens())),
            "discord": DiscordSignIn(http, CLIENT_ID, CLIENT_SECRET, DISCORD_BOT, servers,
                                     api_url=f"{fake.url}/api/v10"),
        }
        front = WebFront(quiz, providers={p: providers[p] for p in platforms})
        try:
            async with TestClient(TestServer(application(front))) as client:
                return await scenario(client, fake)
        finally:
            await fake.close()

    return asyncio.run(main())


async def consent(client: TestClient, provider: str, *, tamper=None):
    """Press "Sign in with P", consent on the fake, come back; return the callback's answer."""
    start = await client.get(f"/signin/{provider}", allow_redirects=False)
    assert start.status == 302, await start.text()
    async with aiohttp.ClientSession() as browser:
        back = await browser.get(start.headers["Location"], allow_redirects=False)
    callback = back.headers["Location"]
    assert callback.startswith(f"{BASE}/signin/{provider}/callback?")
    path = callback.removeprefix(BASE)
    if tamper is not None:
        path = tamper(path)
    return await client.get(path, allow_redirects=False)


async def home(client: TestClient) -> str:
    return await (await client.get("/")).text()


# ---------------------------------------------------------------- Slack
def test_a_slack_member_signs_in_with_slack(quiz):
    quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(name="general"))

    async def scenario(client, fake):
        answer = await consent(client, "slack")
        return answer.status, answer.headers.get("Location"), await home(client), fake.calls

    status, location, html, calls = run(quiz, scenario)
    assert (status, location) == (303, "/")
    assert "Signed in as Ada" in html and "general" in html
    assert 'class="badge"' not in html  # not an admin: users.info said so
    assert "slack.users.info" in calls  # the bot, not the browser, decided the right


def test_a_slack_workspace_admin_gets_the_admin_right_from_users_info(quiz):
    fake = FakeOAuth(slack_user=SlackUser(is_admin=True))

    async def scenario(client, _fake):
        await consent(client, "slack")
        return await home(client)

    assert "admin" in run(quiz, scenario, fake=fake)


def test_a_chinese_slack_member_reads_the_page_in_chinese(quiz):
    fake = FakeOAuth(slack_user=SlackUser(locale="zh-CN"))

    async def scenario(client, _fake):
        await consent(client, "slack")
        return await home(client)

    assert "答题频道" in run(quiz, scenario, fake=fake)


@pytest.mark.parametrize("lie", ["aud", "nonce", "key", "expired", "alg-none", "iss"])
def test_an_id_token_that_is_not_for_this_sign_in_is_refused(quiz, lie):
    fake = FakeOAuth(lie=lie)

    async def scenario(client, _fake):
        answer = await consent(client, "slack")
        return answer.status, await answer.text(), await home(client)

    status, text, after = run(quiz, scenario, fake=fake)
    assert status == 403
    assert "did not confirm who you are" in text
    assert "Signed in as" not in after


def test_a_workspace_without_torchquiz_has_nothing_to_sign_in_to(quiz):
    fake = FakeOAuth(slack_user=SlackUser(team="T9"))

    async def scenario(client, _fake):
        answer = await consent(client, "slack")
        return answer.status, await answer.text()

    status, text = run(quiz, scenario, fake=fake)
    assert status == 403 and "not installed in that Slack workspace" in text


def test_a_callback_whose_state_did_not_start_here_is_refused(quiz):
    async def scenario(client, _fake):
        forged = await consent(client, "slack", tamper=lambda p: p.replace("state=", "state=0"))
        # A browser that never pressed the button here has no state cookie at all.
        client.session.cookie_jar.clear()
        replayed = await consent(client, "slack", tamper=lambda p: p)
        return forged.status, replayed.status, await home(client)

    forged, replayed, after = run(quiz, scenario)
    assert forged == 400
    assert replayed == 303  # a fresh, honest round trip still works
    assert "Signed in as Ada" in after


def test_a_code_is_used_once(quiz):
    async def scenario(client, _fake):
        kept = {}

        def keep(path):
            kept["path"] = path
            return path

        first = await consent(client, "slack", tamper=keep)
        again = await client.get(kept["path"], allow_redirects=False)
        return first.status, again.status

    assert run(quiz, scenario) == (303, 400)


def test_a_member_who_says_no_on_the_platform_is_told_so(quiz):
    async def scenario(client, _fake):
        answer = await consent(client, "slack",
                               tamper=lambda p: p.replace("code=", "error=access_denied&code="))
        return answer.status, await answer.text()

    status, text = run(quiz, scenario)
    assert status == 403 and "did not allow the sign-in" in text


def test_an_unreachable_platform_is_a_clear_page_not_a_500(quiz):
    async def scenario(client, fake):
        start = await client.get("/signin/slack", allow_redirects=False)
        async with aiohttp.ClientSession() as browser:
            back = await browser.get(start.headers["Location"], allow_redirects=False)
        await fake.close()  # Slack goes away between the consent and the code's redemption
        answer = await client.get(back.headers["Location"].removeprefix(BASE))
        return answer.status, await answer.text()

    status, text = run(quiz, scenario)
    assert status == 502 and "did not answer in time" in text


# ---------------------------------------------------------------- Discord
def test_a_discord_member_signs_in_to_the_server_where_they_play(quiz):
    solve(quiz, "discord", "500", "C5", "4242")
    fake = FakeOAuth(discord_user=DiscordUser(member_of={"500": (["901"], "")}),
                     servers={"500": _server("Torch Club")})

    async def scenario(client, _fake):
        answer = await consent(client, "discord")
        return answer.status, await home(client)

    status, html = run(quiz, scenario, fake=fake)
    assert status == 303
    assert "Signed in as Ada" in html and 'class="badge"' not in html


@pytest.mark.parametrize("roles, owner", [(["900"], "1"), ([], "4242")])
def test_manage_server_or_owning_it_makes_a_discord_admin(quiz, roles, owner):
    solve(quiz, "discord", "500", "C5", "4242")
    fake = FakeOAuth(discord_user=DiscordUser(member_of={"500": (roles, "")}),
                     servers={"500": _server("Torch Club", owner=owner)})

    async def scenario(client, _fake):
        await consent(client, "discord")
        return await home(client)

    assert 'class="badge"' in run(quiz, scenario, fake=fake)


def test_a_member_of_two_servers_picks_one_and_cannot_forge_a_third(quiz):
    solve(quiz, "discord", "500", "C5", "4242")
    solve(quiz, "discord", "600", "C6", "4242")
    fake = FakeOAuth(discord_user=DiscordUser(member_of={"500": ([], ""), "600": (["900"], "")}),
                     servers={"500": _server("Torch Club"), "600": _server("Grad School")})

    async def scenario(client, _fake):
        def choices(html):
            return [part.split('"')[0] for part in html.split('name="server" value="')[1:]]

        chooser = await consent(client, "discord")
        html = await chooser.text()
        sealed, token = choices(html), csrf_of(html)
        no_token = await client.post("/signin/discord/choose", allow_redirects=False,
                                     data={"server": sealed[1]})
        forged = await client.post("/signin/discord/choose", allow_redirects=False, data={
            "csrf": token, "server": sealed[1][:-1] + ("0" if sealed[1][-1] != "0" else "1")})
        again = await (await consent(client, "discord")).text()  # a forgery ends the attempt
        picked = await client.post("/signin/discord/choose", allow_redirects=False,
                                   data={"csrf": csrf_of(again), "server": choices(again)[1]})
        return chooser.status, html, forged.status, no_token.status, picked.status, \
            await home(client)

    status, html, forged, no_token, picked, after = run(quiz, scenario, fake=fake)
    assert status == 200 and "Torch Club" in html and "Grad School" in html
    assert (forged, no_token, picked) == (400, 403, 303)
    assert 'class="badge"' in after  # Grad School, where the role gives Manage Server


def test_a_discord_member_who_left_the_server_is_not_signed_in(quiz):
    solve(quiz, "discord", "500", "C5", "4242")
    fake = FakeOAuth(discord_user=DiscordUser(member_of={}), servers={"500": _server("Club")})

    async def scenario(client, _fake):
        answer = await consent(client, "discord")
        return answer.status, await answer.text(), await home(client)

    status, text, after = run(quiz, scenario, fake=fake)
    assert status == 403 and "None of your Discord servers" in text
    assert "Signed in as" not in after


def test_a_discord_grant_without_the_identify_scope_is_refused(quiz):
    solve(quiz, "discord", "500", "C5", "4242")
    fake = FakeOAuth(discord_user=DiscordUser(member_of={"500": ([], "")}),
                     servers={"500": _server("Club")}, discord_scope="guilds")

    async def scenario(client, _fake):
        return (await consent(client, "discord")).status

    assert run(quiz, scenario, fake=fake) == 403


# ---------------------------------------------------------------- the page
def test_the_signed_out_page_offers_the_configured_sign_ins_only(quiz):
    async def scenario(client, _fake):
        return await home(client), (await client.get("/signin/discord")).status

    html, discord = run(quiz, scenario, platforms=("slack",))
    assert 'href="/signin/slack"' in html and "Sign in with Slack" in html
    assert "/signin/discord" not in html and discord == 404


def test_without_providers_there_are_no_sign_in_routes(quiz):
    async def main():
        async with TestClient(TestServer(application(WebFront(quiz)))) as client:
            return (await client.get("/signin/slack")).status, await home(client)

    status, html = asyncio.run(main())
    assert status == 404 and "/signin/" not in html
