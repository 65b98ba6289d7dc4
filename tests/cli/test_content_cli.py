"""The `torchquiz content` contract that other tools rely on (DESIGN.md)."""

import json

import pytest

from bot.cli import main
from tests.support.core import BANK

KINDS = {"choice", "text", "code", "explain", "speed"}


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_content_list_json_is_one_array_with_the_contract_fields(capsys):
    code, out, _ = run(capsys, "content", "list", "--json")
    assert code == 0
    entries = json.loads(out)
    assert isinstance(entries, list) and len(entries) >= 30
    for entry in entries:
        keys = {"id", "kind", "topic", "difficulty", "locales", "seed_refs", "related"}
        assert keys <= entry.keys()
        assert entry["kind"] in KINDS
        assert entry["locales"] == ["en", "zh-CN"]
        # An item beyond the seed documents tests no seed question: its seed_refs may be empty.
        assert all(":" in ref for ref in entry["seed_refs"] + entry["related"])
        if entry["kind"] == "code":
            assert entry["entrypoint"] and isinstance(entry["requires"], list)
    kinds = {e["kind"] for e in entries}
    assert {"choice", "text", "code", "explain"} <= kinds <= KINDS
    assert len({e["id"] for e in entries}) == len(entries)


def test_content_show_json_includes_the_reference_solution_of_a_code_item(capsys):
    _, out, _ = run(capsys, "content", "list", "--json")
    code_id = next(e["id"] for e in json.loads(out) if e["kind"] == "code")
    code, out, _ = run(capsys, "content", "show", code_id, "--json")
    item = json.loads(out)
    assert code == 0 and item["id"] == code_id and "def " in item["solution"]
    assert item["prompt"]["zh-CN"]


def test_content_show_unknown_id_fails_clearly(capsys):
    code, _, err = run(capsys, "content", "show", "no.such-item")
    assert code == 1 and "no item or card" in err


def test_content_validate_reports_every_bad_file(capsys, tmp_path, monkeypatch):
    (tmp_path / "questions").mkdir()
    (tmp_path / "explain").mkdir()
    (tmp_path / "questions" / "a.yaml").write_text("items:\n  - {id: x.bad, kind: choice}\n")
    (tmp_path / "explain" / "b.yaml").write_text("items: [1, 2\n")
    monkeypatch.setenv("TORCHQUIZ_CONTENT_DIR", str(tmp_path))
    code, _, err = run(capsys, "content", "validate")
    assert code == 1
    assert "questions/a.yaml" in err and "explain/b.yaml" in err


def test_content_validate_passes_on_a_good_bank(capsys, monkeypatch):
    monkeypatch.setenv("TORCHQUIZ_CONTENT_DIR", str(BANK))
    code, out, _ = run(capsys, "content", "validate")
    assert code == 0 and "5 questions, 3 explain cards" in out


def test_exec_without_an_executor_exits_non_zero_with_the_reason(capsys, monkeypatch):
    monkeypatch.setenv("TORCHQUIZ_EXECUTOR", "none")
    code, _, err = run(capsys, "exec", "--challenge", "code.masked-mean", "--json", "x.py")
    assert code == 3 and "no executor is configured" in err


@pytest.mark.parametrize("argv", [["db", "upgrade"]])
def test_db_upgrade_creates_the_sqlite_database(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.setenv("TORCHQUIZ_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("TORCHQUIZ_DATABASE_URL", raising=False)
    code, _, _ = run(capsys, *argv)
    assert code == 0 and (tmp_path / "torchquiz.sqlite3").exists()
