import pytest

from bot.core.kernel.matching import edit_distance, fold, match_choice, match_text
from content.schema import TextItem


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


# ------------------------------------------------------------------ numbers, units, namespaces


def _text(accepted, rejected=(), value=None, fuzzy=True):
    """Build a text item the way the bank writes one, for answers the sample bank lacks."""
    return TextItem.model_validate({
        "id": "q.sample", "version": 1, "kind": "text", "topics": ["tensors"], "difficulty": 1,
        "seed_refs": ["000:1"], "prompt": {"en": "?", "zh-CN": "？"},
        "explanation": {"en": ".", "zh-CN": "。"}, "accepted": list(accepted),
        "rejected": list(rejected), "fuzzy": fuzzy,
        "numeric": None if value is None else {"value": value, "abs_tol": 1e-9},
    })


@pytest.mark.parametrize(("value", "response"), [
    (0.5, ".5"), (0.5, "`.5`"), (0.5, "0.5."), (0.5, "0.5。"), (-0.5, "-.5"), (-0.5, "−0.5"),
    (-0.5, "- 0.5"), (0.001, "1e-3"), (0.001, "1E-3"), (0.001, "1e-3."), (5.0, "5."),
    (0.5, "1/2"), (0.5, "1 / 2"), (0.5, "½"), (0.5, "50%"), (0.5, "tensor(0.5000)"),
    (5.0, "tensor(5., dtype=torch.float64)"),
])
def test_numbers_are_read_before_punctuation_is_folded(value, response):
    assert match_text(_text([str(value)], value=value), response).correct


@pytest.mark.parametrize(("value", "response"), [
    (0.5, "5"), (0.5, "-.5"), (0.5, "0.5%"), (0.001, "1e3"), (0.001, "1e-2"), (-0.5, ".5"),
])
def test_numbers_that_differ_in_a_dot_or_sign_are_wrong(value, response):
    match = match_text(_text([str(value)], value=value), response)
    assert match.understood and not match.correct


def test_a_plain_number_answer_is_compared_as_a_number():
    assert match_text(_text(["12"], rejected=["4"]), "12.0").correct


@pytest.mark.parametrize(("response", "correct"), [
    ("2 bytes", True), ("2 bytes.", True), ("2", True), ("3 bytes", False), ("2 bits", False),
])
def test_a_unit_counts_only_when_the_answer_uses_it(response, correct):
    item = _text(["2", "2 bytes"], rejected=["4"], value=2.0)
    assert match_text(item, response).correct is correct


@pytest.mark.parametrize(("accepted", "response"), [
    ("2 bytes", "3 bytes"), ("float16", "float32"), ("cu126", "cu128"),
])
def test_a_changed_digit_is_never_a_typo(accepted, response):
    assert not match_text(_text([accepted]), response).correct


VERSION = {
    "accepted": ["torch.__version__", "__version__"],
    "rejected": ["torch.version.cuda", "torch.version", "version", "torch.version.git_version"],
}


@pytest.mark.parametrize(
    "response", ["torch.__version__", "torch.version.__version__", "`torch.version.__version__`"]
)
def test_torch_version_module_spelling_of_the_version_is_accepted(response):
    assert match_text(_text(VERSION["accepted"], VERSION["rejected"]), response).correct


@pytest.mark.parametrize("response", ["torch.version.cuda", "torch.version", "torch.cuda"])
def test_other_version_attributes_stay_wrong(response):
    assert not match_text(_text(VERSION["accepted"], VERSION["rejected"]), response).correct


@pytest.mark.parametrize(("raw", "folded"), [
    ("torch.Tensor.is_contiguous", "is contiguous"),
    ("Tensor.is_contiguous()", "is contiguous"),
    ("torch.utils.data.DataLoader", "dataloader"),
    ("torch.nn.utils.clip_grad_norm_", "clip grad norm_"),
    ("torch.optim.lr_scheduler.StepLR", "steplr"),
])
def test_nested_namespaces_fold_like_the_bare_name(raw, folded):
    assert fold(raw) == folded


@pytest.mark.parametrize(("response", "correct"), [("1", True), ("-1", True), ("1.0", True),
                                                   ("0", False), ("dim=1", True)])
def test_every_listed_number_counts_when_the_item_has_no_numeric_answer(response, correct):
    item = _text(["1", "-1", "dim=1", "dim=-1"], rejected=["0", "dim=0"], fuzzy=False)
    assert match_text(item, response).correct is correct


@pytest.mark.parametrize(("response", "correct"), [("2.weight", True), ("2", False),
                                                   ("1.weight", False)])
def test_a_name_that_starts_with_a_number_is_not_read_as_that_number(response, correct):
    item = _text(["2.weight"], rejected=["1.weight", "2.bias"])
    assert match_text(item, response).correct is correct
