"""The shipped bank's speed challenges: how many, and that each one loads.

Whether each solution beats its reference by 2x is a timing, so it is a benchmark
(`torchquiz bench speed --bank`, figures in docs/benchmarks.md), never a test: a timed assertion
fails on a busy machine. Pack validation's 2x rule is tested with margins no noise can cross
(tests/executors/speed/test_speed_packs.py).
"""

from __future__ import annotations

from content.loader import load_bank

ITEMS = load_bank().speed_items()


def test_the_bank_ships_at_least_twelve_speed_challenges():
    assert len(ITEMS) >= 12


def test_every_bank_speed_item_has_three_shapes_one_drawn_and_both_languages():
    for item in ITEMS:
        assert len(item.speed.shapes) >= 3, item.id
        assert item.prompt.get("zh-CN") and item.explanation.get("zh-CN"), item.id
