"""Every shipped speed challenge validates: its solution beats its reference by 2x, timed.

One verdict per item (three shapes, five A/B pairs each) through the real timer: slow, so it
is marked like the other sandbox suites.
"""

from __future__ import annotations

import pytest

from content.loader import load_bank
from executors.speed.grader import SpeedGrader
from executors.speed.validation import check_speed_item

pytestmark = pytest.mark.sandbox

ITEMS = load_bank().speed_items()


def test_the_bank_ships_at_least_twelve_speed_challenges():
    assert len(ITEMS) >= 12


@pytest.mark.slow
@pytest.mark.parametrize("item", ITEMS, ids=[item.id for item in ITEMS])
def test_a_bank_speed_item_solution_beats_its_reference_by_2x(speed_timer, item):
    assert check_speed_item(item, SpeedGrader(speed_timer)) == []
