"""The display order of options and the option-bias report of `content validate`."""

from collections import Counter

import pytest

from bot.cli import main
from content.coverage import BiasRule, check_option_bias, validate
from content.options import display_order, option_bias
from content.report import coverage_report
from content.schema import ChoiceItem
from tests.content.builders import TARGETS, bank_of, card, choice_q, targets, write_bank


def item(item_id, correct, texts_en, texts_zh=None):
    """Return a choice item with the given option texts; ``correct`` is the stored key."""
    texts_zh = texts_zh or ["选项"] * len(texts_en)
    choices = []
    for i, (en, zh) in enumerate(zip(texts_en, texts_zh, strict=True)):
        key = "ABCDEF"[i]
        choice = {"key": key, "text": {"en": en, "zh-CN": zh}}
        if key == correct:
            choice["correct"] = True
        else:
            choice["why"] = {"en": "a reason", "zh-CN": "理由"}
        choices.append(choice)
    return ChoiceItem.model_validate({
        "id": item_id, "version": 1, "kind": "choice", "topics": ["tensors"], "difficulty": 2,
        "seed_refs": ["000:1"], "explain_links": ["card-a"],
        "prompt": {"en": "Pick", "zh-CN": "选"}, "explanation": {"en": "E", "zh-CN": "解"},
        "choices": choices,
    })


# Hand-counted: chance = (1/3 + 1/4 + 1/3 + 1/4) / 4 = 7/24. Picking the longest English option
# scores 1 (q.one) + 1 (q.two) + 0 (q.three) + 1/2 (q.four, a tie of two) = 2.5 of 4; the
# second-longest 0 + 0 (a tie of three wrong ones) + 1 + 1/2 = 1.5 of 4; the shortest 0; "drop
# the longest and guess" 0 + 0 + 1/2 + (1 - 1/2)/3 = 2/3 of 4. Every Chinese option is as long as
# the others, so there every rule scores chance exactly.
SMALL = [
    item("q.one", "A", ["the long right one", "short", "tiny"]),
    item("q.two", "B", ["ab", "the longest", "cd", "ef"]),
    item("q.three", "A", ["right", "no", "the long wrong one"]),
    item("q.four", "C", ["x", "y", "tied one", "tied two"]),
]


def test_the_report_counts_positions_and_scores_each_guessing_rule():
    bias = option_bias(SMALL)
    assert bias.items == 4
    assert bias.chance == pytest.approx(7 / 24)
    assert bias.correct_by_position == (("A", 2), ("B", 1), ("C", 1), ("D", 0))
    assert bias.first_stored == pytest.approx(0.5)
    en = {r.rule: r.score for r in bias.rules if r.locale == "en"}
    assert en["longest"] == pytest.approx(2.5 / 4)
    assert en["2nd longest"] == pytest.approx(1.5 / 4)
    assert en["shortest"] == 0
    assert en["drop-the-longest guess"] == pytest.approx((2 / 3) / 4)
    assert all(r.score == pytest.approx(7 / 24) for r in bias.rules if r.locale == "zh-CN")
    assert bias.worst() == bias.rule("longest", "en")
    # Shuffled, the first shown option is right about as often as a guess.
    assert bias.first_shown == pytest.approx(7 / 24, abs=0.02)


def test_every_rule_is_measured_in_both_languages():
    names = {(r.rule, r.locale) for r in option_bias(SMALL).rules}
    expected = ["longest", "2nd longest", "3rd longest", "shortest", "2nd shortest",
                "3rd shortest", "drop-the-longest guess", "most-words-shared-with-the-prompt"]
    assert names == {("first shown", None)} | {(n, loc) for n in expected
                                               for loc in ("en", "zh-CN")}


def test_an_empty_set_of_choice_items_reports_nothing():
    bias = option_bias([])
    assert bias.items == 0 and check_option_bias(bias, BiasRule()) == []


def test_only_rules_above_chance_plus_the_excess_are_flagged():
    problems = check_option_bias(option_bias(SMALL), BiasRule(max_excess=0.15))
    assert [p.message.split(" (")[0] for p in problems] == [
        "always picking the longest [en] option scores 62%, above chance 29% + 15%"]
    assert "it wins on q.one, q.two, q.four" in problems[0].message
    assert check_option_bias(option_bias(SMALL), BiasRule(max_excess=0.34)) == []


def test_the_stored_order_gets_no_flag_because_nobody_is_shown_it():
    all_first = [item(f"q.{n}", "A", ["one", "two", "six"]) for n in range(10)]
    bias = option_bias(all_first)
    assert bias.first_stored == 1.0
    assert check_option_bias(bias, BiasRule()) == []


def test_display_order_is_a_permutation_fixed_by_the_seed():
    q = SMALL[1]
    first = display_order(q, 42)
    assert sorted(c.key for c in first.choices) == ["A", "B", "C", "D"]
    assert display_order(q, 42) == first
    assert first.letters == ("A", "B", "C", "D")
    assert first.key_at(first.letter_of("B")) == "B"
    assert first.key_at("E") is None
    assert [c.key for c in display_order(q, None).choices] == ["A", "B", "C", "D"]


def test_display_order_draws_every_order_about_equally_often():
    q = SMALL[0]
    orders = Counter(tuple(c.key for c in display_order(q, seed).choices) for seed in range(1200))
    assert len(orders) == 6
    assert all(150 <= n <= 250 for n in orders.values()), orders


def test_validate_warns_about_the_bias_until_the_targets_enforce_it(tmp_path):
    bank = bank_of(*SMALL, card("card-a"))
    warned = validate(bank, tmp_path / "none")  # no targets.yaml: a pack, warned only
    assert [p.location for p in warned.warnings] == ["option bias"]
    assert all(p.location != "option bias" for p in warned.problems)
    write_bank(tmp_path, bank, {**TARGETS, "option_bias": {"max_excess": 0.15, "enforced": True}})
    enforced = validate(bank, tmp_path, fixtures=False)
    assert enforced.warnings == []
    assert [p.message.split(" (")[0] for p in enforced.problems
            if p.location == "option bias"] == [
        "always picking the longest [en] option scores 62%, above chance 29% + 15%"]


def test_the_coverage_report_prints_the_bias_and_marks_a_warning():
    report = coverage_report(bank_of(*SMALL, card("card-a")), targets())
    assert "Option bias over 4 choice questions (chance 29%;" in report
    assert "correct option by stored position: A 2 · B 1 · C 1 · D 0" in report
    assert "always the first stored option:   50%" in report
    assert "longest:" in report and "en 62%, zh-CN 29%" in report
    assert "limit for every rule, in each language: chance + 10% = 39%" in report
    assert "  warning: always picking the longest [en] option scores 62%" in report


def test_content_validate_prints_the_shipped_banks_bias(capsys, monkeypatch):
    monkeypatch.delenv("TORCHQUIZ_CONTENT_DIR", raising=False)
    main(["content", "validate", "--no-fixtures"])
    out = capsys.readouterr().out
    assert "Option bias over" in out
    assert "always the first shown option:" in out
    for rule in ("longest:", "2nd longest:", "shortest:", "drop-the-longest guess:",
                 "most-words-shared-with-the-prompt:"):
        assert f"  {rule}" in out


def test_a_pack_with_unbiased_options_gets_no_warning(tmp_path):
    fair = [choice_q(f"q.{n}") for n in range(3)]  # every option equally long
    assert validate(bank_of(*fair, card("card-a")), tmp_path).warnings == []
