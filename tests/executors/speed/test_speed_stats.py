"""The arithmetic of a speed verdict: net times, the bootstrap interval, the capped score."""

import pytest

from executors.speed import stats


def test_the_fixed_cost_is_taken_off_and_never_below_the_floor():
    assert stats.net_times([5_000_000, 900], 1_000_000) == [4_000_000, stats.MIN_NET_NS]


def test_the_interval_holds_the_ratio_of_medians():
    ref = [10.0, 11.0, 9.5, 10.5, 10.2]
    sub = [2.0, 2.1, 1.9, 2.2, 2.0]
    point, low, high = stats.speedup_interval(ref, sub, seed=1)
    assert point == pytest.approx(10.2 / 2.0)
    assert low <= point <= high and low > 4


def test_the_same_times_give_the_same_interval_for_the_same_seed():
    ref, sub = [3.0, 4.0, 5.0, 6.0, 7.0], [5.0, 4.0, 6.0, 3.0, 7.0]
    assert stats.speedup_interval(ref, sub, seed=9) == stats.speedup_interval(ref, sub, seed=9)


def test_the_score_caps_each_shape_before_the_geometric_mean():
    assert stats.score([4.0, 1.0, 1000.0], cap=50.0) == pytest.approx((4 * 1 * 50) ** (1 / 3))


def test_unequal_call_counts_are_refused():
    with pytest.raises(ValueError, match="same"):
        stats.speedup_interval([1.0], [1.0, 2.0], seed=0)


def test_the_cap_is_the_floor_or_ten_times_the_items_target():
    from content.loader import load_bank
    from executors.speed.grader import SpeedRules

    items = {i.id: i for i in load_bank().speed_items()}
    rules = SpeedRules()
    assert rules.cap_for(items["speed.topk"]) == 50.0  # target 5x: the floor
    assert rules.cap_for(items["speed.bucketize"]) == 500.0  # target 50x
