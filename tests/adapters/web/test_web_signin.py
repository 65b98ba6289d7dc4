"""Signing in to the web page by a one-time link, and signing out."""

from __future__ import annotations

from bot.adapters.web import security
from bot.core.desk import Desk
from tests.adapters.web.support import csrf_of, link, serve, sign_in, who


def test_a_link_signs_in_and_opens_the_channel_it_was_asked_in(quiz, channel):
    path = link(quiz)

    async def scenario(client):
        response = await sign_in(client, path)
        board = await client.get(response.headers["Location"])
        return response.status, response.headers["Location"], await board.text()

    status, location, html = serve(quiz, scenario)
    assert (status, location) == (303, f"/channels/{channel.id}/board")
    assert "Signed in as Alice" in html


def test_a_link_signs_in_once(quiz, channel):
    path = link(quiz)

    async def scenario(client):
        first = await sign_in(client, path)
        client.session.cookie_jar.clear()
        again = await client.get(path)
        return first.status, again.status

    assert serve(quiz, scenario) == (303, 410)


def test_opening_a_link_does_not_use_it(quiz, channel):
    # Link previews fetch it: only the button's POST signs in.
    path = link(quiz)

    async def scenario(client):
        await client.get(path)
        await client.get(path)
        return (await sign_in(client, path)).status

    assert serve(quiz, scenario) == 303


def test_a_link_expires_after_ten_minutes(quiz, channel, clock):
    path = link(quiz)
    clock.advance(minutes=10, seconds=1)

    async def scenario(client):
        return (await client.get(path)).status

    assert serve(quiz, scenario) == 410


def test_a_forged_link_signs_nobody_in(quiz, channel):
    path = link(quiz)
    forged = path[:-1] + ("0" if path[-1] != "0" else "1")

    async def scenario(client):
        posted = await client.post(forged, data={"csrf": "0" * 32})
        return (await client.get(forged)).status, posted.status

    assert serve(quiz, scenario) == (410, 403)


def test_the_sign_in_form_refuses_a_post_without_its_token(quiz, channel):
    # Login CSRF: another site cannot sign a browser in as someone else.
    path = link(quiz)

    async def scenario(client):
        refused = await client.post(path, data={"csrf": "0" * 32}, allow_redirects=False)
        return refused.status, (await sign_in(client, path)).status

    assert serve(quiz, scenario) == (403, 303)


def test_the_session_cookie_is_http_only_and_same_site_lax(quiz, channel):
    path = link(quiz)

    async def scenario(client):
        response = await sign_in(client, path)
        return response.cookies[security.SESSION_COOKIE]

    cookie = serve(quiz, scenario)
    assert cookie["httponly"] and cookie["samesite"] == "Lax" and not cookie["secure"]
    assert int(cookie["max-age"]) == 12 * 3600


def test_the_session_cookie_is_secure_when_the_page_is_served_over_https(store, clock, channel):
    from bot.core.quiz import build_quiz
    from content.loader import load_bank
    from tests.support.core import BANK

    quiz = build_quiz(store, load_bank(BANK), clock, web_url="https://quiz.example")
    path = link(quiz)

    async def scenario(client):
        page = await client.get(path)
        nonce = page.cookies[security.LOGIN_COOKIE]
        # The test client keeps no Secure cookie over plain HTTP: send the nonce back by hand.
        signed = await client.post(path, data={"csrf": csrf_of(await page.text())},
                                   headers={"Cookie": f"{security.LOGIN_COOKIE}={nonce.value}"},
                                   allow_redirects=False)
        return nonce["secure"], signed.cookies[security.SESSION_COOKIE]["secure"]

    assert serve(quiz, scenario) == (True, True)


def test_logout_ends_the_session_on_the_server(quiz, channel):
    path = link(quiz)

    async def scenario(client):
        signed = await sign_in(client, path)
        cookie = signed.cookies[security.SESSION_COOKIE].value
        board = await client.get(f"/channels/{channel.id}/board")
        out = await client.post("/logout", data={"csrf": csrf_of(await board.text())})
        # The old cookie, replayed, opens nothing: the session is gone server-side.
        client.session.cookie_jar.update_cookies({security.SESSION_COOKIE: cookie})
        after = await client.get(f"/channels/{channel.id}/board", allow_redirects=False)
        return out.status, after.status, after.headers.get("Location")

    assert serve(quiz, scenario) == (200, 303, "/")


def test_logout_without_the_csrf_token_is_refused(quiz, channel):
    path = link(quiz)

    async def scenario(client):
        await sign_in(client, path)
        refused = await client.post("/logout", data={"csrf": "forged"})
        still = await client.get(f"/channels/{channel.id}/board", allow_redirects=False)
        return refused.status, still.status

    assert serve(quiz, scenario) == (403, 200)


def test_a_session_ends_after_twelve_hours(quiz, channel, clock):
    path = link(quiz)

    async def scenario(client):
        await sign_in(client, path)
        clock.advance(hours=12, seconds=1)
        return (await client.get(f"/channels/{channel.id}/board", allow_redirects=False)).status

    assert serve(quiz, scenario) == 303


def test_forget_me_ends_the_members_sessions(quiz, channel):
    path = link(quiz)

    async def scenario(client):
        await sign_in(client, path)
        Desk(quiz).forget_me(who(), confirmed=True)
        return (await client.get(f"/channels/{channel.id}/board", allow_redirects=False)).status

    assert serve(quiz, scenario) == 303


def test_a_session_carries_the_admin_right_chat_established(quiz, channel):
    admin, member = link(quiz, who("ada", admin=True)), link(quiz, who("bob"))

    async def scenario(client):
        await sign_in(client, admin)
        as_admin = await (await client.get("/")).text()
        client.session.cookie_jar.clear()
        await sign_in(client, member)
        as_member = await (await client.get("/")).text()
        return as_admin, as_member

    as_admin, as_member = serve(quiz, scenario)
    assert 'class="badge">admin<' in as_admin and 'class="badge">admin<' not in as_member
