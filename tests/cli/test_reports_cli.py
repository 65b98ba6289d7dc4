"""`torchquiz content reports [--json] [--close ID --reason TEXT]` on SQLite and PostgreSQL."""

import json

from bot.cli import main
from bot.core.kernel.models import ReportDraft
from tests.db.builders import T0, make_member
from tests.hostile import HOSTILE_STRINGS, invisible_or_control


def run(capsys, monkeypatch, url, *argv):
    monkeypatch.setenv("TORCHQUIZ_DATABASE_URL", url)
    code = main(["content", "reports", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _filed(store, note=""):
    ada, bob = make_member(store, "U1", "Ada"), make_member(store, "U2", "Bob")
    store.add_report(ReportDraft(ada.id, "tensors.view", 2, "incorrect", note, "slack", "W1", T0))
    store.add_report(ReportDraft(bob.id, "tensors.view", 2, "outdated", "", "discord", "G1", T0))


def test_reports_json_lists_every_workspaces_open_reports(capsys, monkeypatch, database_url,
                                                          store):
    _filed(store, note="B is right too")
    code, out, err = run(capsys, monkeypatch, database_url, "--json")
    assert (code, err) == (0, "")
    rows = json.loads(out)
    assert [(r["id"], r["item_id"], r["version"], r["reason"], r["platform"]) for r in rows] == [
        (1, "tensors.view", 2, "incorrect", "slack"), (2, "tensors.view", 2, "outdated", "discord")]
    assert rows[0]["note"] == "B is right too" and rows[0]["status"] == "open"


def test_closing_needs_a_reason_and_takes_the_report_off_the_list(capsys, monkeypatch,
                                                                   database_url, store):
    _filed(store)
    assert run(capsys, monkeypatch, database_url, "--close", "1")[0] == 2
    code, out, _ = run(capsys, monkeypatch, database_url, "--close", "1", "--reason", "fixed")
    assert code == 0 and "closed report 1" in out
    assert run(capsys, monkeypatch, database_url, "--close", "1", "--reason", "again")[0] == 1
    code, out, _ = run(capsys, monkeypatch, database_url, "--json")
    assert [r["id"] for r in json.loads(out)] == [2]
    code, out, _ = run(capsys, monkeypatch, database_url, "--json", "--all")
    assert json.loads(out)[0]["close_reason"] == "fixed"


def test_the_text_listing_shows_a_hostile_note_inert(capsys, monkeypatch, database_url, store):
    _filed(store, note=HOSTILE_STRINGS["ansi"] + HOSTILE_STRINGS["bidi"])
    code, out, _ = run(capsys, monkeypatch, database_url)
    assert code == 0 and "tensors.view v2" in out
    assert invisible_or_control(out) == [] and "\x1b" not in out
