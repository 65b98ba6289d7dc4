"""A pack added for the console is drawn there, and its challenge is graded via the sandbox."""

from __future__ import annotations

import io

import pytest

from bot.cli import main
from content.packs import SCAFFOLD, parse_pack
from executors.grading import challenges
from executors.grading.challenges import ChallengeBuildError, build_challenge

REFERENCE = ("import torch\n\n\ndef row_normalise(x):\n"
             "    return x / x.sum(dim=1, keepdim=True)\n")


def test_trusted_builder_refuses_a_pack_item():
    item = parse_pack(SCAFFOLD.encode()).pack.code_items()[0]
    with pytest.raises(ChallengeBuildError, match="built only in the sandbox"):
        build_challenge(item)


def test_console_practice_draws_from_the_pack_and_grades_in_the_sandbox(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TORCHQUIZ_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.delenv("TORCHQUIZ_DATABASE_URL", raising=False)

    def refuse(source, filename):
        raise AssertionError(f"trusted exec of {filename}")

    # Only the code item takes the team's topic: practice then has one item to draw, whatever
    # the day's seed.
    code_item = "kind: code\n    topics: [tensors]"
    assert code_item in SCAFFOLD
    file = tmp_path / "pack.yaml"
    file.write_text(SCAFFOLD.replace(code_item, "kind: code\n    topics: [team-rows]"),
                    encoding="utf-8")
    assert main(["pack", "add", str(file), "--workspace", "console:local"]) == 0
    monkeypatch.setattr(challenges, "_exec_trusted", refuse)  # bank challenges untouched here
    script = f"/quiz team-rows\n/practice\n{REFERENCE}/end\n/quit\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    capsys.readouterr()
    assert main(["console"]) == 0
    out = capsys.readouterr().out
    assert "Write `row_normalise(x)`" in out
    assert "All 3 hidden tests passed" in out


def test_a_pack_for_another_workspace_is_not_drawn_in_the_console(tmp_path, monkeypatch,
                                                                 capsys):
    monkeypatch.setenv("TORCHQUIZ_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.delenv("TORCHQUIZ_DATABASE_URL", raising=False)
    file = tmp_path / "pack.yaml"
    file.write_text(SCAFFOLD.replace("topics: [tensors]", "topics: [team-rows]"),
                    encoding="utf-8")
    assert main(["pack", "add", str(file), "--workspace", "slack:T999"]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("/quiz team-rows\n/quit\n"))
    capsys.readouterr()
    assert main(["console"]) == 0
    out = capsys.readouterr().out
    assert "row_normalise" not in out
    assert "team-rows" in out  # named back as an unknown topic, not drawn


def test_hostile_pack_text_is_shown_inert_in_the_console(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TORCHQUIZ_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.delenv("TORCHQUIZ_DATABASE_URL", raising=False)
    start = SCAFFOLD.index("  - id: grad-attribute")
    end = SCAFFOLD.index("  - id: row-normalise")
    text_item = SCAFFOLD[start:end].replace("topics: [autograd]", "topics: [team-inert]")
    hostile = r'"@everyone <@123> **bold** \e[2J\e]0;owned\a which attribute?"'
    text_item = text_item.replace(
        '"After `loss.backward()`, which attribute of a leaf tensor holds its gradient?"', hostile)
    file = tmp_path / "pack.yaml"
    file.write_text(SCAFFOLD[:start] + text_item, encoding="utf-8")
    assert main(["pack", "add", str(file), "--workspace", "console:local"]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("/quiz team-inert\n/quit\n"))
    capsys.readouterr()
    assert main(["console"]) == 0
    out = capsys.readouterr().out
    assert "@everyone <@123> **bold**" in out  # accepted as data, shown as typed
    assert "which attribute?" in out
    assert "\x1b" not in out and "\x07" not in out  # no terminal control reaches the screen
