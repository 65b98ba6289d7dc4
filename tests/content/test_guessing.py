"""Rules that answer without reading the question: how each scores, and the shipped bank's."""

import pytest

from content.coverage import PACK_LUCK, BiasRule, bank_bias, check_option_bias
from content.guessing import (
    at_least,
    drop_longest,
    longest_rank,
    most_shared_words,
    shortest_rank,
    visible_length,
    words,
)
from content.loader import load_bank
from content.options import option_bias
from tests.content.test_option_bias import item


def test_visible_length_ignores_code_marks_and_repeated_spaces():
    assert visible_length("  `x.view(12)`   raises ") == len("x.view(12) raises")


def test_words_leave_out_stop_words_and_pair_chinese_characters():
    assert words("Call `model.eval()` to freeze the backbone") == {
        "call", "model", "eval", "freeze", "backbone"}
    assert words("冻结主干") == {"冻结", "结主", "主干"}
    assert words("梯") == {"梯"}


def test_a_length_rank_picks_by_rank_and_shares_a_tie():
    q = item("q.x", "C", ["aaaa", "bb", "ccc", "ccc"])  # lengths 4, 2, 3, 3; C ties with D
    assert longest_rank(1)(q, "en") == 0
    assert longest_rank(2)(q, "en") == pytest.approx(1 / 2)
    assert longest_rank(3)(q, "en") == pytest.approx(1 / 2)
    assert shortest_rank(1)(q, "en") == 0
    # A rank past the last option means the last one.
    assert longest_rank(6)(q, "en") == shortest_rank(1)(q, "en")


def test_dropping_the_longest_guesses_among_the_rest():
    assert drop_longest(item("q.x", "A", ["long one", "b", "c"]), "en") == 0
    assert drop_longest(item("q.x", "B", ["long one", "b", "c"]), "en") == pytest.approx(1 / 2)
    # The right option tied for longest is dropped half the time.
    tied = item("q.x", "A", ["same", "same", "x", "y"])
    assert drop_longest(tied, "en") == pytest.approx((1 - 1 / 2) / 3)


def test_the_option_sharing_most_prompt_words_wins_ties_at_random():
    q = item("q.x", "A", ["SGD with momentum", "Adam", "RMSprop"])
    q = q.model_copy(update={"prompt": q.prompt.model_copy(
        update={"en": "Which optimizer keeps momentum buffers?"})})
    assert most_shared_words(q, "en") == 1
    # No option shares a word: all tie, and the rule is a guess.
    assert most_shared_words(item("q.x", "A", ["one", "two", "six"]), "en") == pytest.approx(1 / 3)


def test_the_chance_of_doing_as_well_by_guessing_is_the_binomial_tail():
    assert at_least([0.5] * 4, 4) == pytest.approx(1 / 16)
    assert at_least([0.25] * 3, 3) == pytest.approx(1 / 64)
    assert at_least([1 / 3] * 3, 1) == pytest.approx(1 - (2 / 3) ** 3)
    assert at_least([0.5, 0.5], 0) == 1


def _won_by_the_longest(n):
    return [item(f"q.{i}", "A", ["the right one, longest", "b", "c", "d"]) for i in range(n)]


def test_a_small_pack_is_not_refused_for_what_luck_explains():
    # Three four-option items all won by the longest: a guesser does that 1 time in 64.
    bias = option_bias(_won_by_the_longest(3))
    assert bias.rule("longest", "en").score == 1
    assert check_option_bias(bias, BiasRule(enforced=True), luck=PACK_LUCK) == []


def test_a_pack_whose_pattern_luck_cannot_explain_is_refused_naming_rule_and_items():
    problems = check_option_bias(option_bias(_won_by_the_longest(4)), BiasRule(enforced=True),
                                 luck=PACK_LUCK)
    # (The Chinese options of these items are all equally long: no rule wins there.)
    assert [p.message.split(" option ")[0] for p in problems] == [
        "always picking the longest [en]"]
    assert "0.0039" in problems[0].message
    assert "it wins on q.0, q.1, q.2, q.3" in problems[0].message


# ---------------------------------------------------------------- the shipped bank

BANK_BIAS = bank_bias(load_bank())
LIMIT = BANK_BIAS.chance + 0.10


@pytest.mark.parametrize("score", BANK_BIAS.rules, ids=lambda r: r.label)
def test_no_guessing_rule_beats_chance_by_more_than_ten_points_on_the_bank(score):
    assert score.score <= LIMIT, (
        f"{score.label} scores {score.score:.1%} > {LIMIT:.1%}; it wins on "
        f"{', '.join(score.gaining(BANK_BIAS.measured))}")


def test_the_bank_is_measured_on_every_rule_in_both_languages():
    labels = {r.label for r in BANK_BIAS.rules}
    for rule in ("longest", "2nd longest", "3rd longest", "shortest", "2nd shortest",
                 "drop-the-longest guess", "most-words-shared-with-the-prompt"):
        assert {f"{rule} [en]", f"{rule} [zh-CN]"} <= labels
    assert "first shown" in labels
