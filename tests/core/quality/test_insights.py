"""Item analytics on a real store: p, point-biserial discrimination, flags, pause and unpause."""

import datetime as dt

import pytest

from bot.core.kernel.models import ItemTally
from bot.core.quality.insights import InsightsService, flags_for, item_stats, point_biserial
from tests.db.builders import answer, make_channel, make_member
from tests.fakes import CLOCK_START

ITEMS = ("i1", "i2", "i3")
# Each row: one member's first try at i1, i2, i3 (1 right, 0 wrong).
HIGH_AGREEMENT = [[1, 1, 1], [1, 1, 0], [1, 0, 1], [0, 1, 0], [0, 0, 0], [1, 0, 0]]
MISKEYED = [[1, 1, 0], [1, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1]]


def play(store, matrix, *, items=ITEMS, channel=None, first_day=dt.date(2026, 1, 5)):
    """Post one round per item, then have member k answer as row k of ``matrix`` says."""
    channel = channel or make_channel(store, "CM")
    rounds = []
    for n, item in enumerate(items):
        opened = CLOCK_START - dt.timedelta(days=60 - n)
        rnd = store.claim_round(channel.id, first_day + dt.timedelta(days=n), item, 1, opened,
                                opened + dt.timedelta(hours=23))
        rounds.append(rnd)
    members = [make_member(store, f"M{k}", f"member {k}") for k in range(len(matrix))]
    for member, row in zip(members, matrix, strict=True):
        for rnd, right in zip(rounds, row, strict=True):
            answer(store, rnd, member, 1, correct=bool(right), at=rnd.opened_at)
            if not right:  # a second try that is right must not count: first tries only
                answer(store, rnd, member, 2, correct=True, at=rnd.opened_at)
    return channel, members


def stats_by_id(store, bank, clock, **kwargs):
    service = InsightsService(store, bank, clock, **kwargs)
    return {s.item_id: s for s in service.stats()}


# Hand-computed, with y = the member's share right on the two other items:
#   HIGH_AGREEMENT, i1: x = 1 1 1 0 0 1, y = 1 .5 .5 .5 0 0; p = 4/6; M1 = (1+.5+.5+0)/4 = .5,
#     M0 = (.5+0)/2 = .25, s(y) = sqrt(4.25)/6 = .3436, r = (M1-M0)/s * sqrt(p q) = .3430
#   HIGH_AGREEMENT, i2: x = 1 1 0 1 0 0, y = 1 .5 1 0 0 .5; M1 = M0 = .5, r = 0
#   HIGH_AGREEMENT, i3: x = 1 0 1 0 0 0, y = 1 1 .5 .5 0 .5; p = 2/6; M1 = .75, M0 = .5,
#     s(y) = sqrt(4.25)/6, r = .3430
#   MISKEYED, i1: x = 1 1 1 0 0 1, y = .5 .5 0 .5 .5 .5; M1 = .375, M0 = .5,
#     s(y) = sqrt(1.25)/6 = .1863, r = -.125/.1863 * .4714 = -1/sqrt(10) = -.3162
#   MISKEYED, i2: x = 1 1 0 1 0 0, y = .5 .5 .5 0 .5 1; p = .5; M1 = 1/3, M0 = 2/3,
#     s(y) = sqrt(1/12) = .2887, r = -(1/3)/.2887 * .5 = -1/sqrt(3) = -.5774
#   MISKEYED, i3: x = 0 0 0 0 1 1, y = 1 1 .5 .5 0 .5; p = 2/6; M1 = .25, M0 = .75,
#     s(y) = sqrt(4.25)/6, r = -.5/.3436 * .4714 = -.6860
@pytest.mark.parametrize(("matrix", "expected"), [
    (HIGH_AGREEMENT, {"i1": (0.6667, 0.3430), "i2": (0.5, 0.0), "i3": (0.3333, 0.3430)}),
    (MISKEYED, {"i1": (0.6667, -0.3162), "i2": (0.5, -0.5774), "i3": (0.3333, -0.6860)}),
])
def test_p_and_point_biserial_match_the_hand_computed_table(store, bank, clock, matrix,
                                                             expected):
    play(store, matrix)
    found = stats_by_id(store, bank, clock, min_answerers=6)
    for item, (p, r) in expected.items():
        assert found[item].answered == 6
        assert found[item].p_correct == pytest.approx(p, abs=5e-5)
        assert found[item].discrimination == pytest.approx(r, abs=5e-5)


def test_a_negative_discrimination_flags_the_key_suspect_and_pauses_it(store, bank, clock):
    play(store, MISKEYED)
    found = stats_by_id(store, bank, clock, min_answerers=6)
    assert found["i3"].flags == ("suspect_key", "weak")
    assert found["i3"].paused
    assert store.paused_items() >= {("i3", 1)}


def test_discrimination_is_null_below_twenty_answerers(store, bank, clock):
    play(store, MISKEYED)
    found = stats_by_id(store, bank, clock)  # the real minimum: 20
    assert found["i3"].discrimination is None
    assert found["i3"].p_correct == pytest.approx(1 / 3)
    assert found["i3"].flags == ()
    assert not found["i3"].paused
    assert found["i3"].as_json()["discrimination"] is None


def test_every_current_bank_item_is_listed_even_unanswered(store, bank, clock):
    found = stats_by_id(store, bank, clock)
    assert set(found) == set(bank.questions)
    assert all(s.answered == 0 and s.p_correct is None for s in found.values())


def test_since_counts_only_rounds_from_that_date(store, bank, clock):
    play(store, HIGH_AGREEMENT)  # rounds on 2026-01-05, 06, 07
    service = InsightsService(store, bank, clock, min_answerers=6)
    later = {s.item_id: s.answered for s in service.stats(dt.date(2026, 1, 6))}
    assert "i1" not in later  # not in this bank, and no answer to it since then
    assert (later["i2"], later["i3"]) == (6, 6)


def test_unpause_lets_the_item_back_and_it_is_not_paused_again_by_the_same_data(
        store, bank, clock):
    play(store, MISKEYED)
    service = InsightsService(store, bank, clock, min_answerers=6)
    service.stats()
    assert service.unpause("i3") == [1]
    assert ("i3", 1) not in store.paused_items()
    again = {s.item_id: s for s in service.stats()}
    assert "suspect_key" in again["i3"].flags
    assert not again["i3"].paused
    assert service.unpause("i3") == []


def test_a_member_without_other_items_counts_for_p_but_not_discrimination(store, bank, clock):
    channel, _ = play(store, MISKEYED)
    loner = make_member(store, "LONE", "loner")
    rnd = store.round_for_date(channel.id, dt.date(2026, 1, 7))  # i3
    answer(store, rnd, loner, 1, correct=True, at=rnd.opened_at)
    tallies = {tl.item_id: tl for tl in store.item_tallies()}
    assert (tallies["i3"].answered, tallies["i3"].rested) == (7, 6)
    found = stats_by_id(store, bank, clock, min_answerers=6)
    assert found["i3"].p_correct == pytest.approx(3 / 7)
    assert found["i3"].discrimination == pytest.approx(-0.6860, abs=5e-5)


@pytest.mark.parametrize(("answered", "p", "disc", "incorrect", "flags"), [
    (30, 0.97, 0.30, 0, ("too_easy",)),
    (30, 0.10, 0.25, 0, ("too_hard",)),
    (30, 0.50, 0.10, 0, ("weak",)),
    (30, 0.50, -0.05, 0, ("suspect_key", "weak")),
    (30, 0.50, 0.40, 3, ("suspect_key",)),
    (5, 0.50, None, 3, ("suspect_key",)),  # reports need no minimum of answerers
    (5, 1.00, None, 2, ()),  # p alone says nothing below the minimum
    (30, 0.95, 0.20, 0, ()),  # the bounds themselves are not flagged
])
def test_flags_follow_the_thresholds(answered, p, disc, incorrect, flags):
    assert flags_for(answered, p, disc, incorrect) == flags


def test_three_open_incorrect_reports_make_a_key_suspect():
    stats = item_stats(ItemTally("x", 2, 4, 3.0), {"incorrect": 3, "ambiguous": 1}, False)
    assert stats.flags == ("suspect_key",)
    assert stats.reports == 4


def test_no_spread_gives_no_discrimination():
    everyone_right = ItemTally("x", 1, 25, 25.0, rested=25, rest_sum_x=25.0, rest_sum_xx=25.0,
                               sum_y=12.5, sum_yy=7.0, sum_xy=12.5)
    assert point_biserial(everyone_right) is None


def test_insights_message_lists_the_paused_item_first_with_an_unpause_button(
        store, bank, clock):
    play(store, MISKEYED)
    service = InsightsService(store, bank, clock, min_answerers=6)
    message = service.message("en")
    first = message.body.splitlines()[2]
    assert first.startswith("⏸ `i3` v1")
    assert "answer key suspect" in first
    assert [b.action_id for b in message.buttons] == [
        "tq:unpause:i3:item", "tq:unpause:i2:item", "tq:unpause:i1:item"]
    assert service.unpause_message("i3", "en").body.startswith("`i3` (version 1) is unpaused")



def _half_right(n):
    # Half the answerers right with rest score 1, half wrong with rest score 0: r = 1.
    right = n // 2
    return ItemTally("x", 1, n, float(right), rested=n, rest_sum_x=float(right),
                     rest_sum_xx=float(right), sum_y=float(right), sum_yy=float(right),
                     sum_xy=float(right))


def test_discrimination_needs_twenty_answerers_with_a_rest_score():
    assert point_biserial(_half_right(19)) is None
    assert point_biserial(_half_right(20)) == pytest.approx(1.0)
