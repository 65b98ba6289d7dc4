"""The page as a person uses it: real headless Chromium (Debian's) driven by Playwright.

Each test serves the page on a real port over the real core and SQLite, signs in through a
link chat gave, and clicks. The browser tests fail, never skip, without Chromium.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from playwright.sync_api import Browser, sync_playwright

from bot.core.desk import Desk
from bot.core.kernel.models import ChannelDefaults
from bot.core.kernel.ports import PackTools
from bot.core.quality import Where
from bot.core.quiz import build_quiz
from bot.pack_tools import SandboxPackChecker, StorePackShelf
from bot.scheduling import QuizScheduler
from content.loader import load_bank
from db.store_packs import PackStore
from tests.adapters.web.browser import (
    PHONE,
    axe_source,
    chromium_path,
    live,
    new_page,
    serious_violations,
    sign_in,
    solve,
)
from tests.adapters.web.support import link, who
from tests.support.core import BANK, RecordingExecutor


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path())
        yield browser
        browser.close()


@pytest.fixture
def database_url(tmp_path: Path, _sqlite_template: Path) -> str:
    """The browser tests run on SQLite: the pages' reads are tested on both in the test client."""
    path = tmp_path / "torchquiz.sqlite3"
    path.write_bytes(_sqlite_template.read_bytes())
    return f"sqlite:///{path}"


def test_a_member_signs_in_by_the_link_chat_gave(browser, quiz, channel):
    page = new_page(browser)
    with live(quiz) as server:
        landed = sign_in(page, server, quiz)
        assert landed == f"/channels/{channel.id}/board"
        assert page.get_by_role("heading", level=1).inner_text() == "Leaderboard of #general"
        assert page.get_by_role("button", name="Sign out").is_visible()
    page.context.close()


def test_the_board_shows_a_member_who_answered_and_not_a_hidden_one(browser, quiz, channel):
    solve(quiz, channel, "Alice", "Bob", "Mallory", hidden=("Mallory",))
    page = new_page(browser)
    with live(quiz) as server:
        sign_in(page, server, quiz, who("bob"))
        table = page.get_by_role("table")
        assert table.get_by_role("row", name="Alice").count() == 1
        mine = table.locator("tr.mine")
        assert "Bob" in mine.inner_text()
        assert "Mallory" not in page.content()
        assert page.get_by_text("+1 member hidden").is_visible()
    page.context.close()


def test_a_member_gets_403_on_the_admins_desk(browser, quiz, channel):
    page = new_page(browser)
    with live(quiz) as server:
        sign_in(page, server, quiz, who("bob", admin=False))
        response = page.goto(server.url(f"/channels/{channel.id}/settings"))
        assert response is not None and response.status == 403
        assert "Only the workspace's admins" in page.inner_text("main")
    page.context.close()


def test_a_forged_post_without_the_csrf_token_is_refused(browser, quiz, channel):
    page = new_page(browser)
    with live(quiz) as server:
        sign_in(page, server, quiz)
        # Same site: the sign-out form with its token taken out of the page.
        page.goto(server.url("/"))
        page.evaluate("document.querySelector('form.logout input[name=csrf]').remove()")
        with page.expect_navigation() as sent:
            page.get_by_role("button", name="Sign out").click()
        assert sent.value is not None and sent.value.status == 403
        # Another site: its page posts a form to ours (the browser adds our cookie or not).
        page.route("http://evil.test/", lambda route: route.fulfill(
            content_type="text/html",
            body=f'<form method="post" action="{server.url("/logout")}">'
                 '<input type="hidden" name="csrf" value="guess">'
                 '<button>win a prize</button></form>'))
        page.goto("http://evil.test/")
        with page.expect_navigation() as forged:
            page.get_by_role("button", name="win a prize").click()
        assert forged.value is not None and forged.value.status == 403
        # Neither ended the session.
        page.goto(server.url(f"/channels/{channel.id}/board"))
        assert page.get_by_role("button", name="Sign out").is_visible()
    page.context.close()


def test_another_workspaces_ids_are_not_found(browser, quiz, channel):
    elsewhere = quiz.rounds.channel("slack", "C9", "W2", ChannelDefaults(name="secret-room"))
    page = new_page(browser)
    with live(quiz) as server:
        sign_in(page, server, quiz, who(admin=True))
        for route in ("board", "me", "settings", "me/mastery.png"):
            response = page.goto(server.url(f"/channels/{elsewhere.id}/{route}"))
            assert response is not None and response.status == 404, route
            assert "secret-room" not in page.content()
        # The session's own channel still answers.
        response = page.goto(server.url(f"/channels/{channel.id}/settings"))
        assert response is not None and response.status == 200
    page.context.close()


def test_logout_revokes_the_session_on_the_server(browser, quiz, channel):
    page = new_page(browser)
    with live(quiz) as server:
        sign_in(page, server, quiz)
        kept = page.context.cookies()
        page.get_by_role("button", name="Sign out").click()
        page.wait_for_load_state()
        assert page.get_by_role("button", name="Sign out").count() == 0
        # A copy of the old cookie, replayed from another browser, opens nothing.
        thief = new_page(browser)
        thief.context.add_cookies(kept)
        thief.goto(server.url(f"/channels/{channel.id}/board"))
        assert thief.url == server.url("/")
        assert "general" not in thief.inner_text("main")
        assert thief.get_by_role("button", name="Sign out").count() == 0
        thief.context.close()
    page.context.close()


def test_an_admin_changes_the_post_time_and_the_chat_side_sees_it(browser, quiz, channel, store,
                                                                  clock):
    # The chat process: its own core over the same database, with its scheduler.
    chat = build_quiz(store, load_bank(BANK), clock, RecordingExecutor())
    scheduler = QuizScheduler(chat, None, "slack", AsyncIOScheduler(timezone=dt.UTC))
    scheduler._stamp = chat.setup.stamp()
    scheduler.rebuild()
    page = new_page(browser)
    with live(quiz) as server:
        sign_in(page, server, quiz, who("ada", admin=True, name="Ada"))
        page.goto(server.url(f"/channels/{channel.id}/settings"))
        page.get_by_label("time").fill("07:30")
        page.get_by_role("button", name="Save").click()
        page.wait_for_load_state()
        assert "Settings saved." in page.get_by_role("status").inner_text()
        assert page.get_by_label("time").input_value() == "07:30"
        # A value chat refuses is refused here with chat's words.
        page.get_by_label("time").fill("7h30")
        page.get_by_role("button", name="Save").click()
        page.wait_for_load_state()
        refused = Desk(chat).settings(who("ada", admin=True), "", "", {"time": "7h30"})
        assert page.get_by_role("status").inner_text() == refused.message.body
    page.context.close()
    # Chat's /quiz-settings shows the new time, and the chat process's job moved with it.
    assert ("time", "07:30") in Desk(chat).settings(who("bob"), "", "", {}).message.fields
    # (Playwright's sync API holds this thread's event loop: the scheduler runs on another.)
    with ThreadPoolExecutor(1) as other:
        other.submit(asyncio.run, scheduler.follow_settings()).result(60)
    fields = {f.name: str(f) for f in
              scheduler.scheduler.get_job(f"post:{channel.id}").trigger.fields}
    assert (fields["hour"], fields["minute"]) == ("7", "30")


PUBLIC_TOKEN = "p" * 43  # a published board's link in the axe check


def _every_page(channel_id: int) -> list[str]:
    return ["/", f"/channels/{channel_id}/board", f"/channels/{channel_id}/board?period=all",
            f"/channels/{channel_id}/board?topic=autograd",
            f"/channels/{channel_id}/me", f"/channels/{channel_id}/settings", "/audit", "/items",
            "/reports", "/me/forget", f"/boards/{PUBLIC_TOKEN}",
            "/packs", "/packs/team", "/packs/team/remove",
            "/cards", "/cards/detach", "/questions", "/questions?kind=text",
            "/questions/t.text-detach", "/questions/t.choice-view"]


@pytest.mark.parametrize("locale", ["en", "zh-CN"])
def test_axe_finds_no_serious_violation_on_any_page(browser, quiz, channel, store, locale):
    solve(quiz, channel, "Alice", "Bob", "Mallory", hidden=("Mallory",))
    _report(quiz, channel, "Bob")
    quiz.board.store.publish_board(channel.id, PUBLIC_TOKEN, quiz.audit.clock.now())
    tools = _pack_tools(store)
    Desk(quiz, tools).pack_add(who("alice", admin=True), "team.yaml", _pack())
    source = axe_source()
    found: dict[str, list[str]] = {}
    page = new_page(browser, axe=True)
    with live(quiz, tools) as server:
        identity = who("alice", admin=True, locale=locale)
        page.goto(server.url(link(quiz, identity)))
        found["login"] = serious_violations(page, source)
        page.get_by_role("button").first.click()
        page.wait_for_load_state()
        for path in _every_page(channel.id):
            response = page.goto(server.url(path))
            assert response is not None and response.status == 200, path
            found[path] = serious_violations(page, source)
        response = page.goto(server.url("/nowhere"))
        assert response is not None and response.status == 404
        found["not found"] = serious_violations(page, source)
        page.get_by_role("button", name="Sign out").or_(
            page.get_by_role("button", name="退出登录")).click()
        page.wait_for_load_state()
        found["signed out"] = serious_violations(page, source)
    page.context.close()
    assert {where: v for where, v in found.items() if v} == {}


def _pack_tools(store) -> PackTools:
    """Team packs on the page: the real checker (no pack code runs here) and the real shelf."""
    return PackTools(SandboxPackChecker(load_bank(BANK)), StorePackShelf(PackStore(store.engine)))


def _pack(*, broken: bool = False) -> bytes:
    """A one-question pack; ``broken``: both options marked right (line 14, column 7)."""
    return f"""\
pack:
  id: team
  title: Team pack
  version: 1
  locales: [en]
items:
  - id: q1
    version: 1
    kind: choice
    topics: [tensors]
    difficulty: 1
    prompt: "Is it?"
    choices:
      - {{key: A, text: "yes", correct: true}}
      - {{key: B, text: "no", correct: {str(broken).lower()}, why: "no"}}
    explanation: because
""".encode()


def test_an_admin_uploads_a_pack_with_an_error_and_sees_its_line(browser, quiz, channel, store):
    tools = _pack_tools(store)
    page = new_page(browser)
    with live(quiz, tools) as server:
        sign_in(page, server, quiz, who("ada", admin=True, name="Ada"))
        page.get_by_role("link", name="Team packs").click()
        page.wait_for_load_state()
        page.get_by_label("Pack file (.yaml or .yml)").set_input_files(
            files=[{"name": "team.yaml", "mimeType": "application/x-yaml",
                    "buffer": _pack(broken=True)}])
        page.get_by_role("button", name="Check and add").click()
        page.wait_for_load_state()
        status = page.get_by_role("status")
        assert "Pack not valid: nothing stored" in status.inner_text()
        row = status.get_by_role("row").filter(has_text="exactly one choice must be correct")
        assert [c.strip() for c in row.locator("td").all_inner_texts()[:2]] == ["14", "7"]
        # Fixed, it is stored and listed; the list offers its history, export and removal.
        page.get_by_label("Pack file (.yaml or .yml)").set_input_files(
            files=[{"name": "team.yaml", "mimeType": "application/x-yaml", "buffer": _pack()}])
        page.get_by_role("button", name="Check and add").click()
        page.wait_for_load_state()
        assert "Pack stored" in page.get_by_role("status").inner_text()
        page.get_by_role("link", name="Remove team").click()
        page.wait_for_load_state()
        assert [v.removed for v in tools.shelf.versions("team")] == [False]  # asked first
        page.get_by_role("button", name="Remove team").click()
        page.wait_for_load_state()
        assert "is removed" in page.get_by_role("status").inner_text()
    page.context.close()
    assert [v.removed for v in tools.shelf.versions("team")] == [True]


def test_the_axe_check_finds_what_it_is_there_to_find(browser):
    """The check above can fail: on a page with faults axe-core reports them."""
    page = new_page(browser, axe=True)
    page.route("http://faulty.test/", lambda route: route.fulfill(
        content_type="text/html",
        body='<html><body><img src="a.png"><p class="x">low</p><input type="text"></body></html>'))
    page.goto("http://faulty.test/")
    found = " ".join(serious_violations(page, axe_source()))
    page.context.close()
    for rule in ("image-alt", "label", "html-has-lang", "document-title"):
        assert rule in found


def _report(quiz, channel, name: str) -> int:
    """``name`` reports the question of the channel's latest round; return the report's id."""
    rnd = quiz.rounds.store.latest_round(channel.id)
    member = quiz.rounds.member("slack", name.lower(), name)
    quiz.reports.file_for_round(member, Where("slack", "W1"), rnd.id, "ambiguous",
                                "<b>unclear</b>", "en")
    return max(r.id for r in quiz.reports.every_report())


def test_an_admin_closes_two_reports_and_the_log_shows_it(browser, quiz, channel):
    solve(quiz, channel, "Alice", "Bob", "Carol")
    first, second = _report(quiz, channel, "Bob"), _report(quiz, channel, "Carol")
    page = new_page(browser)
    with live(quiz) as server:
        sign_in(page, server, quiz, who("ada", admin=True, name="Ada"))
        page.goto(server.url("/reports"))
        assert page.get_by_text("<b>unclear</b>").first.is_visible()  # shown, never markup
        page.get_by_label(f"Close report #{first}").check()
        page.get_by_label(f"Close report #{second}").check()
        page.get_by_label("Why they are closed").fill("reworded in v2")
        page.get_by_role("button", name="Close the ticked reports").click()
        page.wait_for_load_state()
        assert page.get_by_role("status").inner_text() == \
            f"Reports #{first}, #{second} are closed."
        assert page.get_by_text("No open report.").is_visible()
        page.goto(server.url("/audit"))
        assert page.get_by_role("row", name=f"report #{first}").count() == 1
    page.context.close()
    assert quiz.reports.every_report() == []


def test_a_published_board_opens_without_a_session_until_withdrawn(browser, quiz, channel):
    solve(quiz, channel, "Alice", "Mallory", hidden=("Mallory",))
    page = new_page(browser)
    stranger = new_page(browser)
    with live(quiz) as server:
        sign_in(page, server, quiz, who("ada", admin=True, name="Ada"))
        page.get_by_role("button", name="Publish at a link").click()
        page.wait_for_load_state()
        shared = page.locator("a.shared-link").get_attribute("href")
        assert shared is not None
        public = server.url(shared.removeprefix("http://quiz.test"))
        response = stranger.goto(public)
        assert response is not None and response.status == 200
        assert stranger.get_by_role("row", name="Alice").count() == 1
        assert "Mallory" not in stranger.content()
        page.get_by_role("button", name="Withdraw the link").click()
        page.wait_for_load_state()
        response = stranger.goto(public)
        assert response is not None and response.status == 404
    page.context.close()
    stranger.context.close()


def test_forget_me_asks_first_then_deletes_and_signs_out(browser, quiz, channel):
    solve(quiz, channel, "Alice")
    page = new_page(browser)
    with live(quiz) as server:
        sign_in(page, server, quiz, who("alice"))
        page.goto(server.url(f"/channels/{channel.id}/me"))
        page.get_by_role("link", name="Delete my data…").click()
        page.wait_for_load_state()
        assert quiz.people.export(who("alice")) is not None  # opening the page deletes nothing
        page.get_by_role("button", name="Yes, delete my data").click()
        page.wait_for_load_state()
        assert page.get_by_role("heading", level=1).inner_text() == "Your quiz data is deleted"
        assert page.get_by_role("button", name="Sign out").count() == 0
        response = page.goto(server.url(f"/channels/{channel.id}/me"))
        assert response is not None and response.url.endswith("/")  # signed out: sent home
    page.context.close()
    assert quiz.people.export(who("alice")) is None


@pytest.mark.parametrize("path", ["/reports", "/channels/{channel}/board", "/items", "/packs",
                                  "/packs/team"])
def test_an_admins_tables_fit_a_phone_without_scrolling_sideways(browser, quiz, channel, store,
                                                                 path):
    solve(quiz, channel, "Alice", "Bob", "Carol")
    _report(quiz, channel, "Bob")
    tools = _pack_tools(store)
    Desk(quiz, tools).pack_add(who("ada", admin=True), "team.yaml", _pack())
    page = new_page(browser, width=PHONE["width"], height=PHONE["height"])
    with live(quiz, tools) as server:
        sign_in(page, server, quiz, who("ada", admin=True, name="Ada"))
        page.goto(server.url(path.format(channel=channel.id)))
        overflow = page.evaluate(
            "() => [...document.querySelectorAll('.scroll')]"
            ".map(s => s.scrollWidth - s.clientWidth)")
        assert overflow, "the page shows no table"
        assert max(overflow) <= 0, f"a table is {max(overflow)} px wider than the phone"
    page.context.close()
