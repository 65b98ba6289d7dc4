"""Safe by construction: headers, escaping, CSRF, health, and no 500 on malformed requests."""

from __future__ import annotations

from pathlib import Path

from bot.core.kernel.models import Actor
from tests.adapters.web.support import csrf_of, link, serve, sign_in, who
from tests.support.core import only

HOSTILE = ("<script>alert(1)</script>", "\u202eevil\u202c", "@everyone", '"><img src=x>')


def test_every_response_carries_the_security_headers(quiz, channel):
    async def scenario(client):
        await sign_in(client, link(quiz))
        return [(await client.get(path, allow_redirects=False)).headers
                for path in ("/", f"/channels/{channel.id}/board", "/nowhere", "/static/style.css")]

    for headers in serve(quiz, scenario):
        csp = headers["Content-Security-Policy"]
        assert "script-src" not in csp and "default-src 'none'" in csp
        assert "frame-ancestors 'none'" in csp
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "no-referrer"


def test_pages_have_no_script_and_no_inline_style(quiz, channel):
    async def scenario(client):
        await sign_in(client, link(quiz))
        return [await (await client.get(p)).text()
                for p in ("/", f"/channels/{channel.id}/board", f"/channels/{channel.id}/me",
                          "/me/forget")]

    for html in serve(quiz, scenario):
        assert "<script" not in html and "style=" not in html and "<style" not in html


def test_member_written_names_are_shown_as_text(quiz, channel):
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    for n, name in enumerate(HOSTILE):
        member = quiz.rounds.member("slack", f"h{n}", name)
        quiz.rounds.submit_answer(channel.id, Actor(member), "detach")

    async def scenario(client):
        await sign_in(client, link(quiz, who("h0", name=HOSTILE[0])))
        return await (await client.get(f"/channels/{channel.id}/board")).text()

    html = serve(quiz, scenario)
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "\u202e" not in html and "\\u202eevil" in html
    assert "<img" not in html and "&#34;&gt;&lt;img src=x&gt;" in html
    assert "@everyone" in html  # plain text on a page: it pings nobody


def test_a_post_without_the_sessions_csrf_token_is_refused(quiz, channel):
    async def scenario(client):
        await sign_in(client, link(quiz))
        page = await (await client.get("/")).text()
        missing = await client.post("/logout", data={})
        other = await client.post("/logout", data={"csrf": csrf_of(page)[::-1]})
        still = await client.get("/", allow_redirects=False)
        return missing.status, other.status, "Sign out" in await still.text()

    assert serve(quiz, scenario) == (403, 403, True)


def test_healthz_answers_when_the_database_does(quiz):
    async def scenario(client):
        response = await client.get("/healthz")
        return response.status, await response.json()

    assert serve(quiz, scenario, probe=lambda: 0) == (200, {"ok": True})


def test_healthz_is_503_when_the_database_does_not_answer(quiz):
    def down():
        raise OSError("connection refused")

    async def scenario(client):
        return (await client.get("/healthz")).status

    assert serve(quiz, scenario, probe=down) == 503


FUZZ_GETS = [
    "/channels/abc/board", "/channels/99999999999999999999/board", "/channels/-1/board",
    "/channels/1/board?period=<script>", "/channels/1/board?page=-5",
    "/channels/1/board?page=99999999999999999999", "/channels/1/board?page=%00",
    "/channels/1/board?period=week&period=all&page=1&page=x", "/channels/1/me?x=%ff%fe",
    "/channels/1/me/mastery.png", "/login/zz", "/login/" + "a" * 200, "/login/..%2f..%2fetc",
    "/login/" + "0" * 32 + "." + "0" * 32, "/static/../app.py", "/%ff", "/channels/1/",
    "/logout", "/channels//board", "/" + "x" * 3000, "/channels/1/settings?x=<",
    "/channels/0/settings", "/channels/1/me/mastery.png?size=%00", "/cards/%00", "/cards/" +
    "a" * 500, "/cards/detach?x=%ff", "/cards/a%2f..%2fb",
    "/channels/1/me?page=%00", "/channels/1/me?page=99999999", "/channels/1/me?page=1&page=x",
    "/me/export?x=%ff", "/me/forget?confirm=yes", "/reports?x=<script>", "/reports/close",
    "/boards/" + "a" * 43, "/boards/" + "%00" * 20, "/boards/..%2f..%2fapp.py",
    "/boards/" + "a" * 43 + "?page=%ff&period=<", "/channels/1/publish", "/channels/1/withdraw",
]
FUZZ_POSTS = [
    ("/logout", b"csrf=%ZZ%", "application/x-www-form-urlencoded"),
    ("/logout", b"\xff\xfe\x00", "application/x-www-form-urlencoded"),
    ("/logout", b"--x\r\nnot a part", "multipart/form-data; boundary=x"),
    ("/logout", b"{}", "application/json"),
    ("/login/" + "0" * 32 + "." + "0" * 32, b"csrf=1", "application/x-www-form-urlencoded"),
    ("/login/zz", b"", "text/plain"),
    ("/channels/1/board", b"a=1", "application/x-www-form-urlencoded"),
    ("/", b"x" * 100_000, "application/x-www-form-urlencoded"),
    ("/language", b"lang=zh-CN&next=%0d%0aSet-Cookie:x", "application/x-www-form-urlencoded"),
]


def test_no_malformed_path_query_or_form_gets_a_500(quiz, channel):
    async def scenario(client):
        statuses = []
        for signed_in in (False, True):
            if signed_in:
                await sign_in(client, link(quiz))
            for path in FUZZ_GETS:
                statuses.append((path, (await client.get(path, allow_redirects=False)).status))
            for path, body, kind in FUZZ_POSTS:
                response = await client.post(path, data=body, headers={"Content-Type": kind},
                                             allow_redirects=False)
                statuses.append((path, response.status))
        return statuses

    assert [(p, s) for p, s in serve(quiz, scenario) if s >= 500] == []


# Posted with the session's own token, by an admin: the handlers themselves read these.
ADMIN_FUZZ_POSTS = [
    ("/reports/close", [("report", "1"), ("report", "x"), ("reason", "r")]),
    ("/reports/close", [("report", "9" * 30), ("reason", "r")]),
    ("/reports/close", [("report", str(n)) for n in range(500)] + [("reason", "r")]),
    ("/reports/close", [("report", "1"), ("reason", "\x00\u202e" * 400)]),
    ("/reports/close", [("report", "1"), ("report", "1"), ("reason", "twice")]),
    ("/me/forget", [("confirm", "YES")]),
    ("/me/forget", [("confirm", "yes\x00")]),
    ("/channels/abc/publish", []),
    ("/channels/99999999999999999999/withdraw", []),
    ("/channels/0/publish", []),
]


def test_no_malformed_form_of_an_admin_gets_a_500(quiz, channel):
    async def scenario(client):
        await sign_in(client, link(quiz, who("ada", admin=True)))
        token = csrf_of(await (await client.get("/")).text())
        statuses = []
        for path, fields in ADMIN_FUZZ_POSTS:
            response = await client.post(path, data=[*fields, ("csrf", token)],
                                         allow_redirects=False)
            statuses.append((path, response.status))
        return statuses

    statuses = serve(quiz, scenario)
    assert [(p, s) for p, s in statuses if s >= 500] == []
    assert [s for _, s in statuses] == [400, 400, 400, 200, 200, 400, 400, 404, 404, 404]


def test_no_template_turns_escaping_off():
    # Jinja2 escapes everything; `|safe` or `autoescape false` would let a member's text be markup.
    templates = Path(__file__).resolve().parents[3] / "bot" / "adapters" / "web" / "templates"
    found = [p.name for p in templates.glob("*.html")
             if "|safe" in p.read_text().replace(" ", "") or "autoescape" in p.read_text()]
    assert found == [] and len(list(templates.glob("*.html"))) >= 5


def test_sign_in_attempts_from_one_address_are_throttled(quiz, channel):
    forged = "/login/" + "0" * 32 + "." + "0" * 32

    async def scenario(client):
        return [(await client.get(forged)).status for _ in range(4)]

    assert serve(quiz, scenario, logins_per_minute=3) == [410, 410, 410, 429]


def test_a_full_board_page_stays_under_100_kb(quiz, channel):
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    for n in range(60):
        member = quiz.rounds.member("slack", f"m{n}", f"{n:02d}" + "名" * 198)
        quiz.rounds.submit_answer(channel.id, Actor(member), "detach")

    async def scenario(client):
        await sign_in(client, link(quiz))
        return await (await client.get(f"/channels/{channel.id}/board")).read()

    body = serve(quiz, scenario)
    assert body.count(b"<th scope=\"row\">") == 50 and len(body) < 100_000, len(body)


def test_metrics_count_requests_by_route_pattern_and_sign_ins(quiz, channel):
    async def scenario(client):
        await sign_in(client, link(quiz))
        await client.get(f"/channels/{channel.id}/board")
        await client.get("/channels/424242/board")
        await client.get("/no/such/page")
        return await (await client.get("/metrics")).text()

    text = serve(quiz, scenario)
    assert 'torchquiz_web_sign_ins_total{outcome="signed_in"} 1.0' in text
    assert ('torchquiz_web_requests_total{method="GET",route="/channels/{channel}/board",'
            'status="200"} 1.0') in text
    assert 'route="/channels/{channel}/board",status="404"} 1.0' in text
    assert 'route="unmatched",status="404"} 1.0' in text
    assert "424242" not in text and "alice" not in text.lower()


def test_chats_code_marks_become_code_and_everything_else_stays_text():
    from bot.adapters.web.app import code_marks

    assert str(code_marks("use `x.detach()` then `<b>`")) == (
        "use <code>x.detach()</code> then <code>&lt;b&gt;</code>")
    assert str(code_marks("one ` mark <i>")) == "one ` mark &lt;i&gt;"
