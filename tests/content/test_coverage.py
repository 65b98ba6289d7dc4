"""Each coverage check catches what it guards against and lists every offender, not the first."""

from pathlib import Path

import pytest
import yaml

from content.coverage import (
    EXPECT,
    check_card_lengths,
    check_card_outputs,
    check_choices,
    check_cuda,
    check_difficulty_spread,
    check_fixtures,
    check_glossary,
    check_linked_both_ways,
    check_links,
    check_seed_coverage,
    check_sizes,
    check_topics,
    check_translations,
    load_targets,
    validate,
)
from content.glossary import load_glossary
from content.loader import ContentError
from content.report import coverage_report
from tests.content.builders import bank_of, card, choice_q, code_q, targets, text_q


def messages(problems) -> list[str]:
    return [str(p) for p in problems]


# ------------------------------------------------------------------ links


def test_links_list_every_missing_card_and_bad_counterpart():
    bank = bank_of(
        text_q("q.one", links=("card-a", "gone-1")),
        text_q("q.two", links=("gone-2",)),
        card("card-a", see_also=("gone-3",)),
        code_q("code.gpu", requires=("cuda",), counterpart="code.gpu-too"),
        code_q("code.gpu-too", requires=("cuda",), counterpart="code.none"),
    )
    assert messages(check_links(bank)) == [
        "q.one: explain_links: no card 'gone-1'",
        "q.two: explain_links: no card 'gone-2'",
        "card-a: see_also: no card 'gone-3'",
        "code.gpu: code.cpu_counterpart: 'code.gpu-too' is not a CPU challenge",
        "code.gpu-too: code.cpu_counterpart: no code challenge 'code.none'",
    ]


def test_a_cpu_challenge_may_not_name_a_counterpart():
    with pytest.raises(ValueError, match="only a challenge that requires cuda"):
        code_q("code.cpu", counterpart="code.other")


def test_questions_without_links_and_unlinked_cards_are_all_listed():
    bank = bank_of(text_q("q.a", links=()), text_q("q.b", links=()), card("card-a"),
                   card("card-b"), text_q("q.c", links=("card-a",)))
    assert messages(check_linked_both_ways(bank)) == [
        "q.a: explain_links: links no explain card",
        "q.b: explain_links: links no explain card",
        "card-b: linked from: no question links this card",
    ]


def test_a_card_linked_only_by_another_card_still_counts_as_unlinked():
    bank = bank_of(text_q("q.a"), card("card-a", see_also=("card-b",)), card("card-b"))
    assert messages(check_linked_both_ways(bank)) == [
        "card-b: linked from: no question links this card"]


# ------------------------------------------------------------------ sizes and seeds


def test_every_short_count_is_listed():
    bank = bank_of(text_q("q.a"), card("card-a"))
    assert messages(check_sizes(bank, targets())) == [
        "bank: size: 1 questions, the target is at least 3",
        "bank: size: 0 choice, the target is at least 1",
        "bank: size: 0 code, the target is at least 1",
        "bank: size: 1 cards, the target is at least 2",
    ]


def test_seed_coverage_counts_questions_not_cards_and_not_repeats():
    bank = bank_of(
        text_q("q.a", seeds=("000:1", "000:1", "003:1")),
        text_q("q.b", seeds=("000:1", "000:2", "003:1")),
        card("card-a"),  # cites 000:1, which must not count
        text_q("q.c", seeds=("000:2",)),
    )
    # 000:3 has no question at all.
    assert messages(check_seed_coverage(bank, targets())) == [
        "000:3: seed coverage: covered by 0 question(s), the target is 2"]


def test_a_seed_question_cited_once_is_flagged():
    bank = bank_of(text_q("q.a", seeds=("000:1", "000:2", "000:3", "003:1")),
                   text_q("q.b", seeds=("000:1", "000:2", "000:3")))
    assert messages(check_seed_coverage(bank, targets())) == [
        "003:1: seed coverage: covered by 1 question(s), the target is 2"]


def test_a_ref_beyond_the_seed_document_is_flagged():
    bank = bank_of(text_q("q.a", seeds=("000:4", "003:01")), card("card-a"))
    problems = messages(check_seed_coverage(bank, targets(min_questions_per_seed=1)))
    assert "q.a: seed_refs: 000:4 is not a seed question" in problems
    assert not any("003:01" in p for p in problems)  # leading zeros name the same question


def test_related_refs_do_not_count_towards_seed_coverage():
    bank = bank_of(
        text_q("q.a", seeds=("000:1", "000:2", "000:3", "003:1")),
        text_q("q.b", seeds=("000:1", "000:2", "000:3"), related=("003:1",)),
    )
    assert messages(check_seed_coverage(bank, targets())) == [
        "003:1: seed coverage: covered by 1 question(s), the target is 2"]


def test_a_related_ref_beyond_the_seed_document_is_flagged():
    bank = bank_of(text_q("q.a", seeds=("000:1",), related=("000:9",)))
    problems = messages(check_seed_coverage(bank, targets(min_questions_per_seed=1)))
    assert "q.a: related: 000:9 is not a seed question" in problems


def test_a_question_beyond_the_seeds_may_cite_no_seed_question():
    bank = bank_of(text_q("q.a", seeds=()),
                   text_q("q.b", seeds=("000:1", "000:2", "000:3", "003:1")))
    assert messages(check_seed_coverage(bank, targets(min_questions_per_seed=1))) == []


def test_a_seed_question_cannot_be_both_tested_and_only_related():
    with pytest.raises(ValueError, match="000:1 in both seed_refs and related"):
        text_q("q.a", seeds=("000:1",), related=("000:1",))


def test_the_report_says_how_many_refs_count_and_how_many_are_only_related():
    bank = bank_of(text_q("q.a", seeds=("000:1", "000:2"), related=("003:1",)),
                   text_q("q.b", seeds=(), related=("000:3",)), card("card-a"))
    report = coverage_report(bank, targets())
    assert ("Counted: 2 seed_refs (questions that test the seed question's point); "
            "not counted: 2 related refs; 1 question(s) test no seed question") in report


# ------------------------------------------------------------------ topics and difficulty


def test_non_primary_topics_are_listed_for_questions_and_cards():
    bank = bank_of(text_q("q.a", topics=("view-vs-reshape", "tensors")),
                   text_q("q.b", topics=("tensors", "view-vs-reshape")),
                   card("card-a", topic="misc"))
    assert messages(check_topics(bank, targets())) == [
        "q.a: topics[0]: 'view-vs-reshape' is not a primary topic",
        "card-a: topic: 'misc' is not a primary topic",
    ]


def test_every_missing_difficulty_of_every_primary_topic_is_listed():
    bank = bank_of(text_q("q.a", difficulty=1), text_q("q.b", difficulty=3),
                   text_q("q.c", topics=("autograd",), difficulty=2))
    assert messages(check_difficulty_spread(bank, targets())) == [
        "tensors: difficulty: no question at difficulty 2",
        "autograd: difficulty: no question at difficulty 1",
        "autograd: difficulty: no question at difficulty 3",
    ]


# ------------------------------------------------------------------ choices, texts, cards


def test_option_counts_outside_the_range_are_listed():
    bank = bank_of(choice_q("q.two", options=2), choice_q("q.three"), choice_q("q.six", options=6))
    assert messages(check_choices(bank, targets(choice_options={"min": 3, "max": 5}))) == [
        "q.six: choices: 6 options, expected 3 to 5",
        "q.two: choices: 2 options, expected 3 to 5",
    ]


def test_a_blank_why_in_one_locale_is_listed_per_option():
    bank = bank_of(choice_q("q.a", options=4, why_missing_zh=("B", "D")))
    assert messages(check_choices(bank, targets())) == [
        "q.a: choices.B.why: wrong option has no why [zh-CN]",
        "q.a: choices.D.why: wrong option has no why [zh-CN]",
    ]


def test_chinese_copied_from_english_is_listed_but_pure_code_may_be_shared():
    bank = bank_of(text_q("q.copy", prompt_zh="What?"), text_q("q.latin", prompt_zh="Was?"),
                   text_q("q.fine"))
    assert messages(check_translations(bank)) == [
        "q.copy: prompt: zh-CN is not written in Chinese",
        "q.latin: prompt: zh-CN is not written in Chinese",
    ]


def test_cards_without_stored_output_are_listed():
    bank = bank_of(card("card-a", output=None), card("card-b", output="  "), card("card-c"))
    assert messages(check_card_outputs(bank)) == [
        "card-a: expected_output: the card stores no expected output",
        "card-b: expected_output: the card stores no expected output",
    ]


def test_card_bodies_outside_the_word_range_are_listed():
    long_card = card("card-long")
    long_card = long_card.model_copy(update={"body": long_card.body.model_copy(
        update={"en": "word " * 51})})
    bank = bank_of(long_card, card("card-ok"))
    assert messages(check_card_lengths(bank, targets(card_words={"min": 1, "max": 50}))) == [
        "card-long: body.en: 51 words, expected 1 to 50"]
    assert messages(check_card_lengths(bank, targets(card_words={"min": 2, "max": 60}))) == [
        "card-ok: body.en: 1 words, expected 2 to 60"]


# ------------------------------------------------------------------ CUDA and fixtures


def test_too_few_cuda_challenges_and_missing_counterparts_are_listed():
    bank = bank_of(code_q("code.cpu"), code_q("code.gpu", requires=("cuda",)))
    assert messages(check_cuda(bank, targets(cuda_challenges=2))) == [
        "code.gpu: code.cpu_counterpart: a cuda challenge names no CPU counterpart",
        "bank: cuda: 1 challenge(s) require cuda, the target is at least 2",
    ]


def _fixture(root: Path, item_id: str, name: str, text: str) -> None:
    folder = root / "fixtures" / item_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


def test_fixture_shortfalls_copies_and_missing_expect_lines_are_all_listed(tmp_path):
    bank = bank_of(code_q("code.a"), code_q("code.b"))
    _fixture(tmp_path, "code.a", "correct_one.py", "def f(x):\n    return x * 1\n")
    _fixture(tmp_path, "code.a", "correct_two.py", "def f(x):\n    return x.clone()\n")
    for n in range(3):
        _fixture(tmp_path, "code.a", f"wrong_{n}.py", "# expect: failed values differ\nx = 1\n")
    _fixture(tmp_path, "code.b", "correct_same.py", "def f(x):\n  return   x\n")  # the reference
    _fixture(tmp_path, "code.b", "correct_a.py", "def f(x):\n    return x + 0\n")
    _fixture(tmp_path, "code.b", "correct_b.py", "def f(x):\n    return x + 0\n")
    _fixture(tmp_path, "code.b", "wrong_quiet.py", "def f(x):\n    return x + 1\n")
    _fixture(tmp_path, "code.b", "wrong_vague.py", "# expect: failed wrong\n")
    assert messages(check_fixtures(bank, targets(), tmp_path)) == [
        "code.b: fixtures: 3 correct and 2 wrong, the target is at least 2 and 3",
        "code.b: fixtures/correct_b.py: the same code as correct_a.py",
        "code.b: fixtures/correct_same.py: the same code as the reference",
        "code.b: fixtures/wrong_quiet.py: first line is not '# expect: STATUS FRAGMENT'",
        "code.b: fixtures/wrong_vague.py: first line is not '# expect: STATUS FRAGMENT'",
    ]


def test_a_missing_fixture_folder_is_a_problem(tmp_path):
    assert messages(check_fixtures(bank_of(code_q("code.a")), targets(), tmp_path)) == [
        "bank: fixtures: no fixture folder 'fixtures'"]


@pytest.mark.parametrize(
    ("line", "ok"),
    [
        ("# expect: failed dtype", True),
        ("# expect: failed values differ", True),
        ("# expect: error ZeroDivisionError", True),
        ("# expect: passed dtype", False),
        ("# expect: failed something vague", False),
        ("# expect failed dtype", False),
    ],
)
def test_expect_lines_name_a_status_and_a_known_fragment(line, ok):
    assert bool(EXPECT.match(line)) is ok


# ------------------------------------------------------------------ glossary


def _glossary(root: Path, terms) -> None:
    (root / "glossary.yaml").write_text(yaml.safe_dump({"terms": terms}, allow_unicode=True),
                                        encoding="utf-8")


def test_avoided_renderings_are_listed_with_item_field_and_term(tmp_path):
    _glossary(tmp_path, [
        {"en": "computational graph", "zh-CN": "计算图", "avoid": ["运算图"]},
        {"en": "in-place operation", "zh-CN": "原地操作", "avoid": ["就地操作"]},
    ])
    bank = bank_of(text_q("q.a", prompt_zh="运算图里的就地操作？"),
                   card("card-a", body_zh="这张计算图没问题"))
    assert messages(check_glossary(bank, tmp_path)) == [
        "q.a: prompt: zh-CN uses '运算图'; the glossary renders 'computational graph' as '计算图'",
        "q.a: prompt: zh-CN uses '就地操作'; the glossary renders 'in-place operation' as "
        "'原地操作'",
    ]


def test_a_glossary_that_avoids_part_of_a_prescribed_rendering_is_refused(tmp_path):
    _glossary(tmp_path, [{"en": "tensor", "zh-CN": "张量", "avoid": ["张"]}])
    with pytest.raises(ContentError, match="avoided '张' is part of '张量'"):
        load_glossary(tmp_path)


def test_a_bank_with_targets_but_no_glossary_fails_the_glossary_check(tmp_path):
    assert messages(check_glossary(bank_of(card("card-a")), tmp_path)) == [
        "bank: glossary: the bank has no glossary.yaml"]


def test_the_shipped_glossary_loads_and_rules_out_the_old_graph_rendering():
    terms = load_glossary()
    assert terms is not None
    graph = next(t for t in terms if t.en == "computational graph")
    assert graph.zh_CN == "计算图" and "运算图" in graph.avoid


# ------------------------------------------------------------------ validate and its report


def test_a_bank_without_targets_is_held_to_links_only(tmp_path):
    bank = bank_of(text_q("q.a", topics=("whatever",), links=("gone",)))
    report = validate(bank, tmp_path)
    assert report.targets is None
    assert messages(report.problems) == ["q.a: explain_links: no card 'gone'"]


def test_malformed_targets_are_a_problem_not_a_crash(tmp_path):
    (tmp_path / "targets.yaml").write_text("sizes: {questions: many}\n", encoding="utf-8")
    report = validate(bank_of(card("card-a")), tmp_path)
    assert len(report.problems) == 1 and report.problems[0].path == "targets.yaml"


def test_the_report_shows_topics_kinds_difficulties_locales_and_seeds(tmp_path):
    bank = bank_of(text_q("q.a", seeds=("000:1", "003:1")), choice_q("q.b"), code_q("code.c"),
                   card("card-a"))
    report = coverage_report(bank, targets())
    lines = report.splitlines()
    tensors = next(line for line in lines if line.startswith("tensors"))
    assert tensors.split() == ["tensors", "1", "1", "1", "3", "1", "1", "1", "1"]
    assert "Questions by difficulty: 1: 1  2: 1  3: 1" in report
    assert "By locale: en: 3 questions, 1 cards; zh-CN: 3 questions, 1 cards" in report
    assert "000:3  0*" in report and "000:1  2 " in report
    assert "(* = fewer than 2; 3 short)" in report and "000:2  1*" in report


def test_shipped_targets_load():
    assert load_targets(Path(__file__).resolve().parents[2] / "content") is not None
