"""`torchquiz pack ...` as the authoring guide shows it: new, validate, add, list, export."""

from __future__ import annotations

import json

import pytest

from bot.cli import main


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHQUIZ_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.delenv("TORCHQUIZ_DATABASE_URL", raising=False)


def test_scaffold_validates_then_adds_lists_exports_and_removes(tmp_path, capsys):
    assert main(["pack", "new", str(tmp_path / "p")]) == 0
    file = tmp_path / "p" / "pack.yaml"
    capsys.readouterr()
    assert main(["pack", "validate", str(file), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "ok": True, "errors": [], "problems": [], "items": 3, "cards": 0}
    assert main(["pack", "add", str(file), "--workspace", "console:local"]) == 0
    assert "stored pack my-team version 1 for console:local" in capsys.readouterr().out
    assert main(["pack", "list", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["id"], row["version"], row["scope"]) == ("my-team", 1, "console:local")
    assert main(["pack", "export", "my-team"]) == 0
    assert capsys.readouterr().out == file.read_text(encoding="utf-8")
    assert main(["pack", "remove", "my-team"]) == 0
    capsys.readouterr()
    assert main(["pack", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_invalid_pack_exits_one_with_every_error_placed_and_stores_nothing(tmp_path, capsys):
    file = tmp_path / "bad.yaml"
    file.write_bytes(b"pack: {id: bad, title: B, version: 1, locales: [en]}\n"
                     b"items:\n  - id: q\n    kind: choice\n")
    assert main(["pack", "validate", str(file), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    # The item that failed is still an item of the file: counted.
    assert report["ok"] is False and report["items"] == 1
    assert all(e.startswith("line 3, column 5: ") for e in report["errors"])
    assert main(["pack", "add", str(file)]) == 1
    capsys.readouterr()
    assert main(["pack", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_fifty_megabyte_file_is_refused_without_reading_it_all(tmp_path, capsys):
    file = tmp_path / "huge.yaml"
    with file.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    assert main(["pack", "validate", str(file), "--json"]) == 1
    (error,) = json.loads(capsys.readouterr().out)["errors"]
    assert "a pack may be at most 1,048,576 bytes" in error


def test_malformed_workspace_is_refused(tmp_path, capsys):
    assert main(["pack", "add", str(tmp_path / "x.yaml"), "--workspace", "irc:x"]) == 2
    assert "expected --workspace PLATFORM:ID" in capsys.readouterr().err


def test_unreadable_file_is_not_valid_with_one_json_object(tmp_path, capsys):
    assert main(["pack", "validate", str(tmp_path / "missing.yaml"), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and "cannot read" in report["errors"][0]


def test_pack_new_with_a_yaml_file_name_writes_that_file(tmp_path, capsys):
    target = tmp_path / "mypack" / "pack.yaml"
    assert main(["pack", "new", str(target)]) == 0
    assert target.is_file()
    assert main(["pack", "validate", str(target), "--json"]) == 0


def test_pack_new_over_an_existing_file_is_a_clear_refusal(tmp_path, capsys):
    assert main(["pack", "new", str(tmp_path / "mypack")]) == 0
    capsys.readouterr()
    # Once a traceback (mkdir over the file); now the file is named and kept.
    assert main(["pack", "new", str(tmp_path / "mypack" / "pack.yaml")]) == 2
    assert "exists; not overwritten" in capsys.readouterr().err


def test_pack_new_under_a_file_says_it_cannot_write_there(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    assert main(["pack", "new", str(tmp_path / "afile" / "sub")]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "Traceback" not in err


def test_validate_json_lists_problems_with_line_column_item_and_field(tmp_path, capsys):
    from content.packs import SCAFFOLD

    file = tmp_path / "p.yaml"
    file.write_text(SCAFFOLD.replace("    difficulty: 2\n", "    difficulty: 7\n"))
    assert main(["pack", "validate", str(file), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    (problem,) = report["problems"]
    # The code item's difficulty: not a field inside its 'code' mapping (the kind's name).
    assert problem == {"line": 47, "column": 17, "item": "row-normalise", "field": "difficulty",
                       "message": "items[2] (row-normalise) difficulty: Input should be less "
                                  "than or equal to 3"}
    assert report["errors"] == [f"line 47, column 17: {problem['message']}"]
    assert report["items"] == 3


def test_readding_a_removed_pack_is_refused_before_any_check(tmp_path, capsys, monkeypatch):
    from bot import packs_cli

    assert main(["pack", "new", str(tmp_path / "p")]) == 0
    file = tmp_path / "p" / "pack.yaml"
    assert main(["pack", "add", str(file)]) == 0
    assert main(["pack", "remove", "my-team"]) == 0
    capsys.readouterr()

    def no_check(*args, **kwargs):
        raise AssertionError("the sandbox check ran for a pack the store refuses")

    monkeypatch.setattr(packs_cli, "validate_bytes", no_check)
    assert main(["pack", "add", str(file)]) == 1
    err = capsys.readouterr().err
    assert "already has version 1 (removed; a higher version brings it back)" in err
