"""A pack's speed item validates only if its own solution beats its reference by 2x, timed."""

from __future__ import annotations

import copy

import pytest
import yaml

from content.loader import Bank, read_yaml
from executors.grading.pack_challenges import validate_pack
from executors.speed.grader import SpeedGrader
from executors.speed.validation import speed_checker
from tests.executors.speed.conftest import FIXTURES

pytestmark = pytest.mark.sandbox

RAW = read_yaml((FIXTURES / "questions.yaml").read_text(encoding="utf-8"))["items"][0]


def _pack(solution: str) -> bytes:
    item = copy.deepcopy(RAW)
    item["id"] = "row-norms"
    item["speed"]["solution"] = solution
    return yaml.safe_dump({"pack": {"id": "team", "title": "Team", "version": 1,
                                    "locales": ["en", "zh-CN"]}, "items": [item]},
                          allow_unicode=True).encode()


def test_a_pack_speed_item_whose_solution_is_fast_validates(speed_timer):
    report = validate_pack(_pack(RAW["speed"]["solution"]), Bank(), None,
                           speed=speed_checker(SpeedGrader(speed_timer)))
    assert report.ok, report.errors


def test_a_pack_speed_item_whose_solution_is_not_2x_faster_is_refused(speed_timer):
    report = validate_pack(_pack(RAW["speed"]["reference"]), Bank(), None,
                           speed=speed_checker(SpeedGrader(speed_timer)))
    assert not report.ok
    assert any("at least 2x at every shape" in e for e in report.errors)


def test_without_a_timer_a_pack_speed_item_is_reported_unchecked():
    report = validate_pack(_pack(RAW["speed"]["solution"]), Bank(), None)
    assert not report.ok and any("not checked (no speed timer)" in e for e in report.errors)
