"""The admin's reports queue: each report beside its item's numbers; close many with a reason."""

from __future__ import annotations

import pytest

from bot.core.desk import Desk
from bot.core.kernel.models import Actor
from bot.core.quality import Where
from tests.adapters.web.support import csrf_of, link, serve, sign_in, who
from tests.support.core import only

ADA = who("ada", admin=True, name="Ada")


def _report(quiz, channel, name: str, *, workspace: str = "W1", note: str = "") -> int:
    """``name`` answers today's round of ``channel`` and reports its question; return the id."""
    channel = only(quiz, channel, "t.text-detach")
    rnd = quiz.rounds.store.latest_round(channel.id)
    if rnd is None:
        quiz.rounds.post_round(channel.id)
        rnd = quiz.rounds.store.latest_round(channel.id)
    member = quiz.rounds.member("slack", name.lower(), name)
    quiz.rounds.submit_answer(channel.id, Actor(member), "detach")
    quiz.reports.file_for_round(member, Where("slack", workspace), rnd.id, "ambiguous", note,
                                "en")
    return max(r.id for r in quiz.reports.every_report())


def _post(quiz, fields, identity=ADA, *, token=True, extra=()):
    signin = link(quiz, identity)

    async def scenario(client):
        await sign_in(client, signin)
        page = await client.get("/")
        data = list(fields.items()) + list(extra)
        if token:
            data.append(("csrf", csrf_of(await page.text())))
        response = await client.post("/reports/close", data=data, allow_redirects=False)
        return response.status, await response.text()

    return serve(quiz, scenario)


def _get(quiz, path, identity=ADA):
    signin = link(quiz, identity)

    async def scenario(client):
        await sign_in(client, signin)
        response = await client.get(path, allow_redirects=False)
        return response.status, await response.text()

    return serve(quiz, scenario)


def test_the_queue_shows_each_report_beside_its_items_numbers(quiz, channel):
    first = _report(quiz, channel, "Alice", note="<script>alert(1)</script>")
    second = _report(quiz, channel, "Bob")
    status, html = _get(quiz, "/reports")
    assert status == 200
    assert f'value="{first}"' in html and f'value="{second}"' in html
    row = html.split(f'id="report-{first}"')[1].split("</tr>")[0]
    assert "t.text-detach" in row and "The question is ambiguous" in row
    stats = next(s for s in quiz.insights.stats() if s.item_id == "t.text-detach")
    assert f"{stats.p_correct:.2f}" in row
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_another_workspaces_reports_are_not_listed_and_not_closed(quiz, channel):
    theirs = _report(quiz, channel, "Eve", workspace="W2")
    status, html = _get(quiz, "/reports")
    assert status == 200 and f'value="{theirs}"' not in html and "No open report." in html
    status, html = _post(quiz, {"report": str(theirs), "reason": "not ours"})
    assert status == 200 and f"There is no open report #{theirs} here." in html
    assert [r.id for r in quiz.reports.every_report()] == [theirs]


def test_an_admin_closes_several_with_one_reason_and_the_log_keeps_each(quiz, channel):
    first = _report(quiz, channel, "Alice")
    second = _report(quiz, channel, "Bob")
    third = _report(quiz, channel, "Carol")
    status, html = _post(quiz, {"reason": "fixed in <v2>"},
                         extra=[("report", str(first)), ("report", str(second))])
    assert status == 200 and f"Reports #{first}, #{second} are closed." in html
    assert [r.id for r in quiz.reports.every_report()] == [third]
    changes = quiz.audit.latest("slack", "W1")
    assert {c.target.split()[0] for c in changes} == {f"#{first}", f"#{second}"}
    assert all(c.action == "close_report" and c.actor == "ada" and c.before == "open"
               and c.after == "closed: fixed in <v2>" for c in changes)
    _, audit = _get(quiz, "/audit")
    assert f"report #{first} t.text-detach v1" in audit and "fixed in &lt;v2&gt;" in audit


def test_chats_close_is_in_the_audit_log_too(quiz, channel):
    report_id = _report(quiz, channel, "Alice")
    reply = Desk(quiz).command(ADA, "reports", f"close {report_id} duplicate")
    assert f"Report #{report_id} is closed." in reply.message.body
    (change,) = quiz.audit.latest("slack", "W1")
    assert change.action == "close_report" and change.after == "closed: duplicate"


def test_nothing_ticked_or_no_reason_closes_nothing(quiz, channel):
    report_id = _report(quiz, channel, "Alice")
    status, html = _post(quiz, {"reason": "fixed"})
    assert status == 422 and "Tick at least one report to close." in html
    status, html = _post(quiz, {"report": str(report_id), "reason": "   "})
    assert status == 422 and "Say why the reports are closed." in html
    assert len(quiz.reports.every_report()) == 1


@pytest.mark.parametrize("bad", ["x", "-1", "1" * 12, "1;2", ""])
def test_a_malformed_report_id_is_a_400_not_a_500(quiz, channel, bad):
    _report(quiz, channel, "Alice")
    status, _ = _post(quiz, {"reason": "fixed"}, extra=[("report", bad)])
    assert status == 400 and len(quiz.reports.every_report()) == 1


def test_a_forged_close_without_the_token_is_refused(quiz, channel):
    report_id = _report(quiz, channel, "Alice")
    status, _ = _post(quiz, {"report": str(report_id), "reason": "x"}, token=False)
    assert status == 403 and len(quiz.reports.every_report()) == 1


def test_a_member_gets_403_on_the_queue_and_on_closing(quiz, channel):
    report_id = _report(quiz, channel, "Alice")
    status, _ = _get(quiz, "/reports", who("alice"))
    assert status == 403
    status, _ = _post(quiz, {"report": str(report_id), "reason": "x"}, who("alice"))
    assert status == 403 and len(quiz.reports.every_report()) == 1
    assert quiz.audit.latest("slack", "W1") == []


def test_the_desk_links_the_queue_for_admins_only(quiz, channel):
    _, admin = _get(quiz, "/")
    _, member = _get(quiz, "/", who("alice"))
    assert 'href="/reports"' in admin and 'href="/reports"' not in member


def test_closing_several_speaks_chinese_with_chinese_punctuation(quiz, channel):
    first = _report(quiz, channel, "Alice")
    second = _report(quiz, channel, "Bob")
    status, html = _post(quiz, {"reason": "已修正"},
                         identity=who("ada", admin=True, name="Ada", locale="zh-CN"),
                         extra=[("report", str(first)), ("report", str(second))])
    assert status == 200 and f"报告 #{first}、#{second} 已关闭。" in html
