"""The admin's desk: team packs on the web, through chat's own /quiz-pack methods.

The checker is the real one (a choice pack runs no code; a pack's code would run only in the
sandbox), the shelf the real pack store; nothing of a pack is imported or run here.
"""

from __future__ import annotations

import aiohttp
import pytest

from bot.bootstrap import library
from bot.core.kernel.models import ChannelDefaults
from bot.core.kernel.ports import PackTools
from bot.core.quiz import build_quiz
from bot.pack_tools import SandboxPackChecker, StorePackShelf
from content.loader import load_bank
from content.packs import MAX_PACK_BYTES, parse_pack
from db.store_packs import PackStore
from tests.adapters.web.support import BASE, csrf_of, link, serve, sign_in, who
from tests.packs.scoped import pack_yaml
from tests.support.core import BANK

ADA = who("ada", admin=True, name="Ada")
BROKEN = b"""\
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
      - key: A
        text: "yes"
        correct: true
      - key: B
        text: "no"
        correct: true
        why: "no"
    explanation: because
"""


def choice_pack(version: int = 1, title: str = "Team pack") -> bytes:
    return (BROKEN.replace(b"correct: true\n        why", b"correct: false\n        why")
            .replace(b"version: 1\n  locales", f"version: {version}\n  locales".encode())
            .replace(b"title: Team pack", f"title: \"{title}\"".encode()))


@pytest.fixture
def tools(engine):
    return PackTools(SandboxPackChecker(load_bank(BANK)), StorePackShelf(PackStore(engine)))


@pytest.fixture
def quiz(store, clock, engine):
    shelf = PackStore(engine)
    for pack_id, scope in (("theirs", "slack:W2"), ("common", "*")):
        pack = parse_pack(pack_yaml(pack_id)).pack
        shelf.add(pack.id, 1, scope, pack.header.title, ("en",), pack.text, pack.document)
    built = build_quiz(store, library(load_bank(BANK), engine), clock, web_url=BASE)
    built.rounds.channel("slack", "C1", "W1", ChannelDefaults(name="general"))
    return built


def _session(quiz, tools, identity, steps):
    """Sign in as ``identity``, then run each step(client, token); return what they return."""
    signin = link(quiz, identity)

    async def scenario(client):
        await sign_in(client, signin)
        token = csrf_of(await (await client.get("/")).text())
        return [await step(client, token) for step in steps]

    return serve(quiz, scenario, packs=tools)


def upload(data: bytes, filename: str = "team.yaml", *, token: bool = True):
    async def step(client, csrf):
        form = aiohttp.FormData()
        if token:
            form.add_field("csrf", csrf)
        form.add_field("pack", data, filename=filename, content_type="application/x-yaml")
        response = await client.post("/packs", data=form)
        return response.status, await response.text()
    return step


def get(path: str):
    async def step(client, _csrf):
        response = await client.get(path)
        return response.status, await response.read(), dict(response.headers)
    return step


def post(path: str, fields: dict[str, str], *, token: bool = True):
    async def step(client, csrf):
        data = {**fields, **({"csrf": csrf} if token else {})}
        response = await client.post(path, data=data)
        return response.status, await response.text()
    return step


def test_an_admin_uploads_a_pack_and_it_is_stored_listed_and_audited(quiz, tools):
    [(status, page), (_, listing, _)] = _session(quiz, tools, ADA, [
        upload(choice_pack()), get("/packs")])
    assert status == 200 and "Pack stored" in page
    assert "p.team.q1" in quiz.library.view("slack:W1").ids
    listing = listing.decode()
    assert "/packs/team/export" in listing and "/packs/common" in listing
    assert "theirs" not in listing  # another workspace's pack is never listed
    [change] = quiz.audit.latest("slack", "W1")
    assert (change.action, change.target, change.before, change.after) == (
        "pack_add", "team", "none", "v1")


def test_a_pack_with_an_error_shows_each_problem_with_its_line_and_column(quiz, tools):
    [(status, page)] = _session(quiz, tools, ADA, [upload(BROKEN)])
    assert status == 422 and "Pack not valid: nothing stored" in page
    problems = page.split('<table class="problems">')[1].split("</table>")[0]
    # The second option's "correct: true", where the validation points.
    assert '<td class="num">14</td>\n        <td class="num">7</td>' in problems
    assert "<bdi>items[0] (q1) choices: exactly one choice must be correct</bdi>" in problems
    assert tools.shelf.versions("team") == []


def test_an_upload_is_bounded_as_in_chat(quiz, tools):
    [(big, big_page), (named, named_page)] = _session(quiz, tools, ADA, [
        upload(b"#" * (MAX_PACK_BYTES + 1)), upload(choice_pack(), "team.txt")])
    assert big == 413 and "a pack may be at most 1,048,576 bytes" in big_page
    assert named == 422 and "ends in .yaml or .yml" in named_page
    assert tools.shelf.versions("team") == []


def test_a_member_gets_403_and_a_forged_upload_is_refused(quiz, tools):
    steps = [get("/packs"), upload(choice_pack()), get("/packs/common"),
             get("/packs/team/export"), post("/packs/team/remove", {"confirm": "yes"})]
    member = _session(quiz, tools, who("bob"), steps)
    assert [s[0] for s in member] == [403, 403, 403, 403, 403]
    [(forged, _)] = _session(quiz, tools, ADA, [upload(choice_pack(), token=False)])
    assert forged == 403
    assert tools.shelf.versions("team") == []


@pytest.mark.parametrize("path", ["/packs/theirs", "/packs/theirs/export",
                                  "/packs/theirs/remove", "/packs/nothing",
                                  "/packs/common/export", "/packs/common/remove",
                                  "/packs/BAD", "/packs/..%2Fetc"])
def test_another_workspaces_pack_and_a_shared_ones_changes_are_not_found(quiz, tools, path):
    [(status, _, _)] = _session(quiz, tools, ADA, [get(path)])
    assert status == 404


def test_removing_another_workspaces_pack_is_not_found_and_changes_nothing(quiz, tools):
    [(status, _)] = _session(quiz, tools, ADA, [post("/packs/theirs/remove", {"confirm": "yes"})])
    assert status == 404 and not tools.shelf.versions("theirs")[-1].removed


def test_history_export_and_a_confirmed_removal(quiz, tools):
    [_, _, (_, history, _), (exported, body, headers), (_, confirm, _), (unconfirmed, _),
     (removed, after)] = _session(quiz, tools, ADA, [
        upload(choice_pack(1)), upload(choice_pack(2, "Second")), get("/packs/team"),
        get("/packs/team/export"), get("/packs/team/remove"),
        post("/packs/team/remove", {}), post("/packs/team/remove", {"confirm": "yes"})])
    history = history.decode()
    assert history.index("<bdi>Second") < history.index("<bdi>Team pack")  # newest first
    assert "current" in history and "older" in history
    assert exported == 200 and b'title: "Second"' in body
    assert headers["Content-Disposition"] == 'attachment; filename="team-v2.yaml"'
    assert "Remove pack team?" in confirm.decode() and 'name="confirm" value="yes"' in (
        confirm.decode())
    assert unconfirmed == 400
    assert removed == 200 and "is removed" in after
    assert "p.team.q1" not in quiz.library.view("slack:W1").ids
    assert [c.action for c in quiz.audit.latest("slack", "W1")][:3] == [
        "pack_remove", "pack_add", "pack_add"]


def test_a_packs_hostile_title_is_shown_as_text(quiz, tools):
    [_, (_, listing, _)] = _session(quiz, tools, ADA, [
        upload(choice_pack(title="<script>alert(1)</script>")), get("/packs")])
    assert b"<script>alert" not in listing and b"&lt;script&gt;alert(1)&lt;/script&gt;" in listing


def test_the_admins_nav_links_the_packs_page_in_both_languages(quiz, tools):
    [(_, en, _)] = _session(quiz, tools, ADA, [get("/packs")])
    [(_, zh, _)] = _session(quiz, tools, who("ada", admin=True, locale="zh-CN"), [get("/packs")])
    [(_, member, _)] = _session(quiz, tools, who("bob"), [get("/")])
    assert b'<a href="/packs">Team packs</a>' in en
    assert '<a href="/packs">团队题包</a>'.encode() in zh
    assert b'href="/packs"' not in member


def _raw(body: bytes, kind: str):
    async def step(client, _csrf):
        response = await client.post("/packs", data=body, headers={"Content-Type": kind},
                                     allow_redirects=False)
        return response.status
    return step


MALFORMED_UPLOADS = [
    (b"--x\r\nnot a part", "multipart/form-data; boundary=x"),
    (b"anything", "multipart/form-data"),
    (b"--x\r\nContent-Disposition: form-data\r\n\r\nnameless\r\n--x--\r\n",
     "multipart/form-data; boundary=x"),
    (b"--x\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\xff\xfe\r\n--x--\r\n",
     "multipart/form-data; boundary=x"),
    (b"--x\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n" + b"a" * 70_000
     + b"\r\n--x--\r\n", "multipart/form-data; boundary=x"),
    # The token after the file: never read, so refused as a forgery.
    (b"--x\r\nContent-Disposition: form-data; name=\"pack\"; filename=\"t.yaml\"\r\n\r\n"
     b"pack: {}\r\n--x\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nz\r\n--x--\r\n",
     "multipart/form-data; boundary=x"),
    (b"csrf=1", "application/x-www-form-urlencoded"),
    (b"\x00" * 2000, "application/octet-stream"),
]


def test_no_malformed_upload_or_pack_path_gets_a_500(quiz, tools):
    steps = [_raw(body, kind) for body, kind in MALFORMED_UPLOADS]
    paths = ["/packs/%00", "/packs/" + "a" * 300, "/packs/a%2f..%2fb/export",
             "/packs/a/remove?x=%ff", "/packs/-bad"]
    statuses = _session(quiz, tools, ADA, steps + [get(p) for p in paths])
    codes = [s if isinstance(s, int) else s[0] for s in statuses]
    assert all(400 <= code < 500 for code in codes), codes
    assert tools.shelf.versions("team") == []


def test_the_report_speaks_the_pages_language_not_the_channels(quiz, tools):
    zh = who("ada", admin=True, locale="zh-CN")
    [(status, page)] = _session(quiz, tools, zh, [upload(BROKEN)])
    assert status == 422 and "题包无效：未存储" in page and "Pack not valid" not in page
