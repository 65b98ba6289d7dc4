"""`torchquiz content validate` prints the coverage table, lists every problem, sets its exit."""

import json

import pytest

from bot.cli import main
from content.coverage import validate
from content.loader import BANK_ROOT, load_bank
from tests.content.builders import TARGETS, bank_of, card, choice_q, code_q, text_q, write_bank


def run(capsys, monkeypatch, root, *argv):
    monkeypatch.setenv("TORCHQUIZ_CONTENT_DIR", str(root))
    code = main(["content", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _good_bank():
    return bank_of(
        text_q("q.a", seeds=("000:1", "000:2", "000:3", "003:1")),
        text_q("q.b", topics=("autograd",), difficulty=2,
               seeds=("000:1", "000:2", "000:3", "003:1"), links=("card-b",)),
        choice_q("q.c"),
        code_q("code.d"),
        text_q("q.e", difficulty=3, topics=("autograd",)),
        text_q("q.f", difficulty=1, topics=("autograd",)),
        card("card-a"),
        card("card-b", topic="autograd"),
    )


def _fixtures(root, item_id):
    folder = root / "fixtures" / item_id
    folder.mkdir(parents=True)
    for n, body in enumerate(("x * 1", "x.clone()")):
        (folder / f"correct_{n}.py").write_text(f"def f(x):\n    return {body}\n")
    for n in range(3):
        (folder / f"wrong_{n}.py").write_text(f"# expect: failed values differ\nX = {n}\n")


def _glossary(root):
    (root / "glossary.yaml").write_text(
        "terms:\n  - {en: computational graph, zh-CN: 计算图, avoid: [运算图]}\n", encoding="utf-8")


def test_a_bank_meeting_its_targets_passes_with_the_table(capsys, monkeypatch, tmp_path):
    write_bank(tmp_path, _good_bank(), {**TARGETS, "cuda_challenges": 0})
    _fixtures(tmp_path, "code.d")
    _glossary(tmp_path)
    code, out, err = run(capsys, monkeypatch, tmp_path, "validate")
    assert (code, err) == (0, "")
    assert "Questions by primary topic and kind" in out
    assert "Questions by difficulty:" in out and "By locale:" in out
    assert "Seed questions and the questions covering them" in out
    assert out.rstrip().endswith("ok: 6 questions, 2 explain cards")


def test_every_problem_is_listed_and_the_exit_is_one(capsys, monkeypatch, tmp_path):
    bank = bank_of(text_q("q.a", topics=("misc",), links=("gone",),
                          prompt_zh="运算图？"), card("card-a"))
    write_bank(tmp_path, bank, TARGETS)
    _glossary(tmp_path)
    code, out, err = run(capsys, monkeypatch, tmp_path, "validate")
    assert code == 1
    for expected in (
        "q.a: explain_links: no card 'gone'",
        "bank: size: 1 questions, the target is at least 3",
        "000:2: seed coverage: covered by 0 question(s), the target is 2",
        "q.a: topics[0]: 'misc' is not a primary topic",
        "tensors: difficulty: no question at difficulty 1",
        "card-a: linked from: no question links this card",
        "bank: cuda: 0 challenge(s) require cuda, the target is at least 1",
        "bank: fixtures: no fixture folder 'fixtures'",
        "q.a: prompt: zh-CN uses '运算图'",
    ):
        assert expected in err, expected
    count = len(validate(load_bank(tmp_path), tmp_path).problems)
    assert err.rstrip().endswith(f"{count} problem(s) in the question bank")
    assert "Questions by primary topic and kind" in out  # the table is printed either way


def test_no_fixtures_leaves_out_only_the_fixture_check(capsys, monkeypatch, tmp_path):
    bank = bank_of(text_q("q.a", topics=("misc",)), card("card-a"))
    write_bank(tmp_path, bank, TARGETS)
    _glossary(tmp_path)
    _, _, with_fixtures = run(capsys, monkeypatch, tmp_path, "validate")
    code, _, without = run(capsys, monkeypatch, tmp_path, "validate", "--no-fixtures")
    assert code == 1
    assert "bank: fixtures: no fixture folder 'fixtures'" in with_fixtures
    assert "fixtures" not in without
    assert ([line for line in with_fixtures.splitlines() if "fixture" not in line
             and "problem(s)" not in line]
            == [line for line in without.splitlines() if "problem(s)" not in line])


def test_the_shipped_bank_exits_non_zero_exactly_when_validate_finds_problems(
    capsys, monkeypatch
):
    code, out, err = run(capsys, monkeypatch, BANK_ROOT, "validate")
    problems = validate(load_bank(), BANK_ROOT).problems
    assert code == (1 if problems else 0)
    assert [line for line in err.splitlines() if "problem(s)" not in line] == [
        str(p) for p in problems]
    assert "000:67" in out and "003:5" in out


@pytest.mark.parametrize(
    ("kind", "keys"),
    [
        ("explain", {"id", "kind", "topic", "difficulty", "locales", "seed_refs", "related"}),
        ("choice", {"id", "kind", "topic", "topics", "difficulty", "locales", "seed_refs",
                    "related", "version"}),
        ("text", {"id", "kind", "topic", "topics", "difficulty", "locales", "seed_refs", "related",
                  "version"}),
        ("code", {"id", "kind", "topic", "topics", "difficulty", "locales", "seed_refs", "related",
                  "version", "entrypoint", "requires"}),
    ],
)
def test_content_list_json_keeps_its_fields(capsys, monkeypatch, kind, keys):
    code, out, _ = run(capsys, monkeypatch, BANK_ROOT, "list", "--json")
    entries = [e for e in json.loads(out) if e["kind"] == kind]
    assert code == 0 and entries
    assert {frozenset(e) for e in entries} == {frozenset(keys)}
    assert all(e["topic"] == (e.get("topics") or [e["topic"]])[0] for e in entries)
