"""The `speed` item kind: what the schema accepts and refuses, and the content contract."""

import copy
import json
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.cli import main
from content.loader import load_bank, read_yaml
from content.packs import parse_pack
from content.schema import SpeedItem

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "questions.yaml"
RAW = read_yaml(FIXTURE.read_text(encoding="utf-8"))["items"][0]


def raw_item(**speed_changes):
    raw = copy.deepcopy(RAW)
    raw["speed"].update(speed_changes)
    return raw


@pytest.fixture
def speed_bank_dir(tmp_path, monkeypatch):
    (tmp_path / "questions").mkdir()
    shutil.copy(FIXTURE, tmp_path / "questions" / "speed-test.yaml")
    monkeypatch.setenv("TORCHQUIZ_CONTENT_DIR", str(tmp_path))
    return tmp_path


def test_the_fixture_speed_item_loads_apart_from_the_questions(speed_bank_dir):
    bank = load_bank(speed_bank_dir)
    assert list(bank.speed) == ["speed.test-row-norms"] and bank.questions == {}
    item = bank.speed["speed.test-row-norms"]
    assert [s.name for s in item.speed.shapes] == ["small", "tall", "drawn"]
    assert item.speed.shapes[2].drawn and not item.speed.shapes[0].drawn
    assert [e.id for e in bank.all_entries()] == ["speed.test-row-norms"]


@pytest.mark.parametrize(("changes", "message"), [
    ({"shapes": [{"name": "a", "n": 1}, {"name": "b", "n": [1, 2]}]}, "at least 3"),
    ({"shapes": [{"name": "a", "n": 1}, {"name": "b", "n": 2}, {"name": "c", "n": 3}]},
     "must draw"),
    ({"shapes": [{"name": "a", "n": 1}, {"name": "a", "n": 2}, {"name": "c", "n": [1, 3]}]},
     "unique"),
    ({"shapes": [{"name": "a", "n": 1}, {"name": "b", "n": 2}, {"name": "c", "n": [3, 1]}]},
     "lo <= hi"),
    ({"shapes": [{"name": "a", "n": 1}, {"name": "b", "n": 2.5}, {"name": "c", "n": [1, 3]}]},
     "integer"),
    ({"shapes": [{"name": "a"}, {"name": "b", "n": 2}, {"name": "c", "n": [1, 3]}]},
     "no parameters"),
    ({"entrypoint": "row norms"}, "identifier"),
    ({"entrypoint": "make_inputs"}, "identifier"),
    ({"tolerance": None}, "tolerance"),
    ({"solution": "import torch\n\ndef other(x):\n    return x\n"}, "solution must define"),
    ({"inputs": "import torch\n\ndef make(g):\n    return ()\n"}, "make_inputs"),
    ({"target_speedup": 1.0}, "target_speedup"),
])
def test_a_bad_speed_item_is_refused_with_its_reason(changes, message):
    with pytest.raises(ValidationError, match=message):
        SpeedItem.model_validate(raw_item(**changes))


def test_a_speed_item_id_must_start_with_speed():
    raw = raw_item()
    raw["id"] = "code.row-norms"
    with pytest.raises(ValidationError, match=r"starts with 'speed\.'"):
        SpeedItem.model_validate(raw)


def test_content_list_json_shows_the_speed_kind(speed_bank_dir, capsys):
    assert main(["content", "list", "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)
    assert entry["kind"] == "speed" and entry["id"] == "speed.test-row-norms"
    assert entry["entrypoint"] == "row_norms" and entry["requires"] == []
    assert entry["shapes"] == ["small", "tall", "drawn"]


def test_content_show_json_gives_the_reference_and_the_solution(speed_bank_dir, capsys):
    assert main(["content", "show", "speed.test-row-norms", "--json"]) == 0
    item = json.loads(capsys.readouterr().out)
    assert "wide.double()" not in item["solution"] and "x.double()" in item["reference"]
    assert "vector_norm" in item["solution"]


def test_a_pack_may_carry_a_speed_item_under_its_own_namespace():
    import yaml

    raw = raw_item()
    raw["id"] = "row-norms"
    text = yaml.safe_dump({"pack": {"id": "team", "title": "T", "version": 1,
                                    "locales": ["en", "zh-CN"]},
                           "items": [raw]}, allow_unicode=True)
    parsed = parse_pack(text.encode())
    assert parsed.problems == ()
    assert list(parsed.pack.speed) == ["p.team.row-norms"]
