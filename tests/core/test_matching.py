import pytest

from bot.core.matching import edit_distance, fold, match_choice, match_text


@pytest.mark.parametrize(
    ("raw", "folded"),
    [
        ("  Detach  ", "detach"),
        ("x.detach()", "detach"),
        ("`torch.no_grad()`", "no grad"),
        ("torch.nn.functional.softmax", "softmax"),
        ("ＤＥＴＡＣＨ", "detach"),  # full-width input from a Chinese keyboard
        ("no_grad", "no grad"),
        ("in-place", "in place"),
        ("detach。", "detach"),
    ],
)
def test_fold_removes_noise_that_does_not_change_the_answer(raw, folded):
    assert fold(raw) == folded


@pytest.mark.parametrize(("a", "b", "distance"), [
    ("detach", "detach", 0), ("detach", "detatch", 1), ("detach", "dteach", 1),
    ("view", "vwie", 2), ("", "abc", 3),
])
def test_edit_distance_counts_a_swap_as_one_edit(a, b, distance):
    assert edit_distance(a, b) == distance


@pytest.mark.parametrize(
    "response", ["B", "b", "(b)", "B.", "option B", "选B", "reshape", "Reshape"]
)
def test_choice_reads_letters_and_option_text(bank, response):
    match = match_choice(bank.question("t.choice-view"), response, "en")
    assert match.understood and match.correct and match.chosen == "B"


def test_choice_typo_of_an_option_text_is_read_as_that_option(bank):
    match = match_choice(bank.question("t.choice-view"), "reshpae", "en")
    assert match.correct and match.chosen == "B"


def test_choice_wrong_letter_is_wrong_not_unreadable(bank):
    match = match_choice(bank.question("t.choice-view"), "A", "en")
    assert match.understood and not match.correct and match.chosen == "A"


@pytest.mark.parametrize("response", ["Z", "D", "maybe", "veiw or reshape"])
def test_choice_unreadable_answer_is_not_understood(bank, response):
    assert not match_choice(bank.question("t.choice-view"), response, "en").understood


@pytest.mark.parametrize("response", ["detach", "DETACH", "x.detach()", "tensor.detach", "detatch"])
def test_text_accepts_aliases_and_typos(bank, response):
    assert match_text(bank.question("t.text-detach"), response).correct


@pytest.mark.parametrize("response", ["detach_", "data", ".data", "dat", "clone", "detach it"])
def test_text_never_accepts_a_listed_wrong_answer_or_a_far_one(bank, response):
    match = match_text(bank.question("t.text-detach"), response)
    assert match.understood and not match.correct


def test_text_typo_note_says_what_was_accepted(bank):
    assert "detach" in match_text(bank.question("t.text-detach"), "detatch").note


@pytest.mark.parametrize("response", ["(2, 3)", "[2, 3]", "2x3", "torch.Size([2, 3])", "2, 3"])
def test_shapes_match_in_any_common_spelling(bank, response):
    assert match_text(bank.question("t.text-shape"), response).correct


@pytest.mark.parametrize("response", ["(3, 2)", "(2, 1, 3)", "(2, 3, 1)"])
def test_wrong_shapes_are_wrong(bank, response):
    assert not match_text(bank.question("t.text-shape"), response).correct


@pytest.mark.parametrize(("response", "correct"), [
    ("3", True), ("3.0", True), ("3.0004", True), ("2.99", False), ("4", False), ("-3", False),
])
def test_numbers_match_within_tolerance(bank, response, correct):
    assert match_text(bank.question("t.text-number"), response).correct is correct


def test_empty_text_is_not_understood(bank):
    assert not match_text(bank.question("t.text-detach"), "  `` ").understood
