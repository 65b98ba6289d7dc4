"""`torchquiz member export|forget PLATFORM:WORKSPACE:USER` on SQLite and PostgreSQL."""

import json

import pytest

from bot.cli import main
from bot.core.kernel.models import ChannelDefaults
from tests.db.builders import make_channel, make_member, open_round
from tests.db.test_store_members import _play


def run(capsys, monkeypatch, url, *argv):
    monkeypatch.setenv("TORCHQUIZ_DATABASE_URL", url)
    code = main(["member", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def played(store):
    """Ada answered in W1 and W2, Bob in W1; both practise (tests.db.test_store_members)."""
    c1 = make_channel(store, "C1", workspace="W1", name="général")
    c2 = make_channel(store, "C2", workspace="W2", name="ml")
    ada, bob = make_member(store, "U1", "Ada 李"), make_member(store, "U2", "Bob")
    r1, r2 = open_round(store, c1), open_round(store, c2)
    _play(store, ada, c1, r1, "ada-c1")
    _play(store, ada, c2, r2, "ada-c2")
    _play(store, bob, c1, r1, "bob-c1")
    return ada, bob


def test_export_prints_one_ascii_json_object_of_the_workspace(capsys, monkeypatch,
                                                               database_url, played):
    code, out, err = run(capsys, monkeypatch, database_url, "export", "slack:W1:U1", "--json")
    assert (code, err) == (0, "")
    assert out.isascii()
    data = json.loads(out)
    assert data["member"] == {"display_name": "Ada 李", "external_id": "U1"}
    assert (data["platform"], data["workspace"]) == ("slack", "W1")
    sections = {s["name"]: s for s in data["sections"]}
    assert list(sections) == ["answers", "pending_answers", "score_totals", "week_totals",
                              "topic_totals", "practice_session", "practice_results",
                              "review_cards", "reports", "reminders", "live_answers",
                              "live_players", "speed_verdicts", "speed_challenge"]
    answers = sections["answers"]["rows"]
    assert sections["answers"]["scope"] == "workspace"
    assert sections["review_cards"]["scope"] == "member"
    assert [a["response"] for a in answers] == ["ada-c1 first", "ada-c1 second"]
    assert answers[0]["submitted_at"] == "2026-03-02T08:00:00+00:00"
    assert answers[0]["round_date"] == "2026-03-02"
    assert answers[0]["channel_name"] == "général"
    assert "bob" not in out.lower()


def test_export_is_the_same_twice(capsys, monkeypatch, database_url, played):
    first = run(capsys, monkeypatch, database_url, "export", "slack:W2:U1", "--json")
    assert first == run(capsys, monkeypatch, database_url, "export", "slack:W2:U1", "--json")


@pytest.mark.parametrize("member", ["slack:W1:U9", "slack:W9:U1", "discord:W1:U1"])
def test_export_of_an_unknown_member_exits_1_with_one_line(capsys, monkeypatch, database_url,
                                                           played, member):
    code, out, err = run(capsys, monkeypatch, database_url, "export", member, "--json")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "no member" in err


@pytest.mark.parametrize("member", ["slack:U1", "slack:W1:U1:x", "irc:W1:U1", "slack::U1",
                                    "slack:W1:U 1", "slack:W1:" + "U" * 200, "slack:W1:U\x00"])
def test_export_of_a_malformed_argument_exits_2(capsys, monkeypatch, database_url, member):
    code, out, err = run(capsys, monkeypatch, database_url, "export", member, "--json")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1


def test_forget_needs_yes_then_deletes_the_member_everywhere(capsys, monkeypatch, database_url,
                                                             played, store):
    code, _, err = run(capsys, monkeypatch, database_url, "forget", "slack:W1:U1")
    assert code == 2 and "--yes" in err
    assert store.member_data("slack", "U1") is not None
    code, out, _ = run(capsys, monkeypatch, database_url, "forget", "slack:W1:U1", "--yes")
    # Her four answers are tries at open rounds: they stay, without her.
    assert code == 0 and "answers 0" in out
    assert "4 tries at open rounds kept without the member" in out
    assert store.member_data("slack", "U1") is None
    assert store.member_data("slack", "U2").counts()["answers"] == 2
    code, _, err = run(capsys, monkeypatch, database_url, "forget", "slack:W1:U1", "--yes")
    assert code == 1 and "no member" in err


def test_a_console_member_is_named_as_the_console_names_them(capsys, monkeypatch, database_url,
                                                              store):
    store.ensure_member("console", "alice smith", "Alice Smith")
    store.ensure_channel("console", "general", "local", ChannelDefaults(name="general"))
    code, out, _ = run(capsys, monkeypatch, database_url, "export", "console:local:alice smith",
                       "--json")
    assert code == 0 and json.loads(out)["member"]["display_name"] == "Alice Smith"
