"""`torchquiz exec` grades a team pack's challenge: a stored pack's, or a file not yet stored.

The pack's generator and reference run only in the sandbox, as when the bot grades.
"""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from content.packs import SCAFFOLD
from executors.grading import challenges

GOOD = "import torch\n\n\ndef row_normalise(x):\n    return x / x.sum(dim=1, keepdim=True)\n"
WRONG = "import torch\n\n\ndef row_normalise(x):\n    return x / x.sum()\n"


@pytest.fixture(autouse=True)
def setting(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHQUIZ_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.delenv("TORCHQUIZ_DATABASE_URL", raising=False)
    monkeypatch.delenv("TORCHQUIZ_EXECUTOR_URLS", raising=False)

    def refuse(source, filename):
        raise AssertionError(f"pack code reached the trusted side: {filename}")

    monkeypatch.setattr(challenges, "_exec_trusted", refuse)


@pytest.fixture
def files(tmp_path):
    pack = tmp_path / "pack.yaml"
    pack.write_text(SCAFFOLD)
    good, wrong = tmp_path / "good.py", tmp_path / "wrong.py"
    good.write_text(GOOD)
    wrong.write_text(WRONG)
    return pack, str(good), str(wrong)


def verdicts(out: str) -> list[tuple[str, str, int]]:
    return [(v["challenge_id"], v["status"], v["passed_tests"])
            for v in map(json.loads, out.splitlines())]


@pytest.mark.sandbox
def test_exec_grades_a_stored_packs_challenge(files, capsys):
    pack, good, wrong = files
    assert main(["pack", "add", str(pack), "--workspace", "console:local"]) == 0
    capsys.readouterr()
    assert main(["exec", "--challenge", "p.my-team.row-normalise", "--json", good, wrong]) == 0
    found = verdicts(capsys.readouterr().out)
    assert found[0] == ("p.my-team.row-normalise", "passed", 3)
    assert found[1][:2] == ("p.my-team.row-normalise", "failed")


@pytest.mark.sandbox
def test_exec_grades_against_a_pack_file_not_yet_stored(files, capsys):
    pack, good, wrong = files
    assert main(["exec", "--challenge", "row-normalise", "--pack", str(pack), "--json",
                 good, wrong]) == 0
    found = verdicts(capsys.readouterr().out)
    assert [v[:2] for v in found] == [("p.my-team.row-normalise", "passed"),
                                      ("p.my-team.row-normalise", "failed")]
    assert main(["pack", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []  # nothing was stored


def test_exec_of_a_pack_that_is_not_stored_says_how(files, capsys):
    _, good, _ = files
    assert main(["exec", "--challenge", "p.nope.row-normalise", "--json", good]) == 2
    err = capsys.readouterr().err
    assert "no stored pack 'nope'" in err and "--pack FILE" in err


def test_exec_with_an_invalid_pack_file_lists_its_problems(files, tmp_path, capsys):
    _, good, _ = files
    bad = tmp_path / "bad.yaml"
    bad.write_text(SCAFFOLD.replace("difficulty: 2", "difficulty: 9"))
    assert main(["exec", "--challenge", "row-normalise", "--pack", str(bad), good]) == 2
    err = capsys.readouterr().err
    assert "is not a valid pack" in err and "difficulty" in err


def test_exec_of_an_item_the_pack_file_lacks_names_its_challenges(files, capsys):
    pack, good, _ = files
    assert main(["exec", "--challenge", "p.other.x", "--pack", str(pack), good]) == 2
    assert "p.my-team.row-normalise" in capsys.readouterr().err
