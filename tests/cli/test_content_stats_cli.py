"""`torchquiz content stats --json` and `content unpause` on a database with a mis-keyed question.

Thirty members answered the sample bank's questions; on `t.choice-view` (here the mis-keyed
one) the strongest half were marked wrong and the weakest half right, as a wrong key does.
"""

import datetime as dt
import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.core.quiz import build_quiz
from content.loader import load_bank
from tests.db.builders import answer, make_channel, make_member
from tests.support.core import RecordingExecutor

BANK = Path(__file__).parents[1] / "core" / "bank"
MISKEYED = "t.choice-view"
OTHERS = ("t.text-detach", "t.text-shape", "t.text-number", "t.code-double")
MEMBERS = 30


@pytest.fixture(scope="module")
def bank():
    return load_bank(BANK)


def run(capsys, monkeypatch, url, *argv):
    monkeypatch.setenv("TORCHQUIZ_DATABASE_URL", url)
    monkeypatch.setenv("TORCHQUIZ_CONTENT_DIR", str(BANK))
    code = main(["content", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def history(store, bank, clock):
    """Two rounds of every other item and one of the mis-keyed one, answered by 30 members."""
    channel = make_channel(store, "HIST", name="history")
    members = [make_member(store, f"M{k:02d}", f"member {k}") for k in range(MEMBERS)]
    day = dt.date(2026, 1, 1)
    schedule = [*OTHERS, *OTHERS, MISKEYED]
    for n, item in enumerate(schedule):
        opened = clock.now() - dt.timedelta(days=60 - n)
        rnd = store.claim_round(channel.id, day + dt.timedelta(days=n), item,
                                bank.question(item).version, opened,
                                opened + dt.timedelta(hours=23))
        for k, member in enumerate(members):
            # Member k is right on about k/30 of the others; on the wrong key the strongest
            # half "miss" and the weakest half "get it".
            right = k < MEMBERS // 2 if item == MISKEYED else n < len(OTHERS) * 2 * k // MEMBERS
            answer(store, rnd, member, 1, correct=right, at=opened)
    return channel


def test_stats_json_flags_the_miskeyed_question_and_pauses_it(capsys, monkeypatch,
                                                               database_url, history):
    code, out, err = run(capsys, monkeypatch, database_url, "stats", "--json")
    # stdout is the JSON alone; the pause is logged (to stderr) for the operator.
    assert code == 0 and "Traceback" not in err
    assert f"item paused (suspect_key) item={MISKEYED}" in err
    found = {entry["id"]: entry for entry in json.loads(out)}
    entry = found[MISKEYED]
    assert set(entry) >= {"id", "version", "answered", "p_correct", "discrimination",
                          "reports", "flags", "paused"}
    assert entry["answered"] == MEMBERS
    assert entry["p_correct"] == 0.5
    assert entry["discrimination"] < 0
    assert "suspect_key" in entry["flags"]
    assert entry["paused"] is True
    assert not any(found[item]["paused"] for item in OTHERS)


def test_a_paused_question_is_posted_to_no_channel_until_unpaused(
        capsys, monkeypatch, database_url, history, store, bank, clock):
    run(capsys, monkeypatch, database_url, "stats", "--json")
    quiz = build_quiz(store, bank, clock, RecordingExecutor())
    channels = [quiz.rounds.channel("slack", f"C{n}", "W", None).id for n in range(3)]
    posted = []
    for _ in range(8):  # twice through the four other items in every channel
        posted += [post.round.item_id for post in quiz.rounds.post_rounds(channels)]
        clock.advance(days=1)
    assert len(posted) == 8 * len(channels)
    assert MISKEYED not in posted

    code, out, _ = run(capsys, monkeypatch, database_url, "unpause", MISKEYED)
    assert (code, out.strip()) == (0, f"unpaused {MISKEYED} (version 1)")
    # Never posted in these channels, it is the first choice of each once it may be picked.
    back = [post.round.item_id for post in quiz.rounds.post_rounds(channels)]
    assert back == [MISKEYED] * len(channels)

    # The admin's word stands: the same data does not pause the same version again.
    _, out, _ = run(capsys, monkeypatch, database_url, "stats", "--json")
    entry = next(e for e in json.loads(out) if e["id"] == MISKEYED)
    assert ("suspect_key" in entry["flags"], entry["paused"]) == (True, False)


def test_unpause_of_an_unknown_question_exits_1(capsys, monkeypatch, database_url):
    code, _, err = run(capsys, monkeypatch, database_url, "unpause", "no.such-item")
    assert code == 1
    assert "no question with id 'no.such-item'" in err


def test_stats_without_json_prints_one_line_per_item(capsys, monkeypatch, database_url,
                                                     history):
    code, out, _ = run(capsys, monkeypatch, database_url, "stats", "--since", "2026-01-01")
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith(MISKEYED))
    assert "suspect_key" in line
    assert line.endswith("PAUSED")


def test_since_must_be_a_date(capsys, monkeypatch, database_url):
    with pytest.raises(SystemExit) as stopped:
        run(capsys, monkeypatch, database_url, "stats", "--since", "yesterday")
    assert stopped.value.code == 2
