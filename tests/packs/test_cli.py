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
        "ok": True, "errors": [], "items": 3, "cards": 0}
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
    assert report["ok"] is False and report["items"] == 0
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
