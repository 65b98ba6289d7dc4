"""Both sides of the text matcher, over the shipped bank's own accepted answers (hypothesis).

Honest decorations of an accepted answer (a label, a comment, spacing, case, an approximation
sign, number words, a sum, a receiver, a module path, ``N by M``) are right; near misses (the
value one off, a rounded value, a dimension more or fewer, another real function, a hedge with
a wrong answer, an in-place underscore nobody listed) are wrong. Derandomized, bounded and
without a deadline: the same examples on every run, fast on a busy two-core machine.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.kernel.answer_forms import TENSOR_METHODS
from bot.core.kernel.matching import fold, match_text
from content.loader import load_bank
from content.schema import TextItem

BANK = load_bank()
TEXT = sorted((q for q in BANK.questions.values() if isinstance(q, TextItem)), key=lambda q: q.id)
PROPERTY = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

# Real torch names a member might call instead (tests/core/kernel/test_torch_names.py checks
# each one exists in the installed torch).
OTHER_FUNCTIONS = sorted({*TENSOR_METHODS} | {
    "pack_sequence", "pad_packed_sequence", "BCELoss", "CrossEntropyLoss", "NLLLoss", "L1Loss",
    "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "xavier_uniform_", "orthogonal_",
    "empty_cache", "memory_summary", "memory_allocated", "synchronize", "initial_seed",
    "index_add", "where", "cat", "stack", "einsum",
})
LABELS = ["Answer: ", "answer = ", "Ans: ", "A: ", "result: ", "答案：", "答案是 ",
          "the answer is ", "it is ", "It's ", "I think it's "]
VALUE_LABELS = ["loss = ", "x = ", "out = ", "y: ", "value: ", "n = ", "x.grad = ", "h is "]
SHAPE_LABELS = ["shape: ", "x.shape = ", "out.shape == ", "shape ", "形状：", "size: "]
COMMENTS = [" (rounded down)", " # approx", " # from the docs", "  (I checked)", "（按文档）",
            " -- see the docs", ", as the docs say", " ; checked in a REPL"]
APPROX = ["≈", "~", "≈ ", "about ", "roughly ", "约"]
RECEIVERS = st.one_of(
    st.sampled_from(["scores", "logits", "out", "h", "hidden", "x2", "feats", "y_hat",
                     "self.logits", "batch.x", "preds", "t"]),
    st.from_regex(r"[a-z]{1,3}_[a-z0-9]{1,5}", fullmatch=True),
)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")


def right(item: TextItem, response: str) -> bool:
    match = match_text(item, response)
    return match.understood and match.correct


def values(item: TextItem) -> list[Fraction]:
    """Return the numbers an item accepts, exactly as its author wrote them."""
    if item.numeric is not None:
        return [Fraction(str(item.numeric.value))]
    return [Fraction(a) for a in item.accepted if _NUMBER.fullmatch(a)]


def shape(item: TextItem) -> tuple[int, ...] | None:
    first = item.accepted[0]
    if not re.fullmatch(r"\(\d+(?:, \d+)*,?\)", first):
        return None
    return tuple(int(n) for n in re.findall(r"\d+", first))


def within(item: TextItem, value: float) -> bool:
    """Return whether ``value`` is right by the item's own numbers and tolerance."""
    if item.numeric is not None:
        return math.isclose(value, item.numeric.value, rel_tol=item.numeric.rel_tol,
                            abs_tol=item.numeric.abs_tol)
    return any(math.isclose(value, float(v), rel_tol=1e-9) for v in values(item))


PAIRS = [(item, answer) for item in TEXT for answer in item.accepted]
NUMBER_ITEMS = [item for item in TEXT if values(item) and shape(item) is None]
SHAPE_ITEMS = [item for item in TEXT if shape(item) is not None]
KEYWORD_ITEMS = {item.id for item in TEXT if any("=" in a for a in item.accepted)}
NAME_ITEMS = [item for item in TEXT if not values(item) and shape(item) is None]


def test_the_bank_has_every_kind_of_text_answer_these_properties_cover():
    assert len(NUMBER_ITEMS) >= 15 and len(SHAPE_ITEMS) >= 5 and len(NAME_ITEMS) >= 15


@pytest.mark.parametrize(("item", "answer"), PAIRS, ids=[f"{i.id}:{a}" for i, a in PAIRS])
def test_every_accepted_answer_is_right_as_written(item, answer):
    assert right(item, answer)


# ----------------------------------------------------------------------------- honest forms


def decorate(draw, item: TextItem, core: str, labels: list[str]) -> str:
    label = draw(st.sampled_from(["", *labels]))
    comment = draw(st.sampled_from(["", *COMMENTS]))
    case = draw(st.sampled_from([str, str.upper, str.lower]))
    pad = draw(st.sampled_from(["", " ", "  ", "\t"]))
    return pad + label + case(core) + comment + pad.replace("\t", " ")


@st.composite
def honest_forms(draw):
    item, answer = draw(st.sampled_from(PAIRS))
    labels = LABELS if item.id in KEYWORD_ITEMS else LABELS + VALUE_LABELS
    if shape(item) is not None:
        labels = labels + SHAPE_LABELS
    return item, decorate(draw, item, answer, labels)


@PROPERTY
@given(honest_forms())
def test_an_accepted_answer_with_a_label_a_comment_spacing_or_case_is_right(case):
    item, response = case
    assert right(item, response), (item.id, response)


@st.composite
def approximate_numbers(draw):
    item = draw(st.sampled_from(NUMBER_ITEMS))
    answer = draw(st.sampled_from([a for a in item.accepted if _NUMBER.fullmatch(a)]
                                  or [str(item.numeric.value)]))
    return item, decorate(draw, item, draw(st.sampled_from(APPROX)) + answer, LABELS)


@PROPERTY
@given(approximate_numbers())
def test_an_approximation_sign_before_the_exact_value_is_right(case):
    item, response = case
    assert right(item, response), (item.id, response)


_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def in_words(n: int) -> str:
    """Write 0 <= n < 10000 in English words (written here independently of the matcher)."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " " + in_words(rest))
    rest = n % 1000
    return in_words(n // 1000) + " thousand" + ("" if rest == 0 else " " + in_words(rest))


def sums_for(value: Fraction, draw) -> str:
    """Write ``value`` as a small sum, product or quotient that equals it exactly."""
    p, q = value.numerator, value.denominator
    k = draw(st.integers(2, 9))
    forms = [f"({p * k})/({q * k})", f"{p}/{q}" if q != 1 else f"{p}*1", f"{p} / {q} + 0"]
    if q != 1 and p == 1:
        a = next((d for d in range(2, q) if q % d == 0), 1)
        forms.append(f"1/({a}*{q // a})")
    if q == 1 and p > 1:
        a = draw(st.integers(0, abs(p)))
        forms.append(f"{a} + {p - a}")
        if p > 0 and p & (p - 1) == 0:
            forms.append(f"2**{p.bit_length() - 1}")
    return draw(st.sampled_from(forms))


@st.composite
def spelled_numbers(draw):
    item = draw(st.sampled_from(NUMBER_ITEMS))
    value = draw(st.sampled_from(values(item)))
    if value.denominator == 1 and 0 <= value < 10000:
        written = draw(st.sampled_from([in_words(int(value)), sums_for(value, draw)]))
    else:
        written = sums_for(value, draw)
    prefix = draw(st.sampled_from(["", "it is ", "multiply by ", "= ", "答案是 "]))
    return item, decorate(draw, item, prefix + written, LABELS)


@PROPERTY
@given(spelled_numbers())
def test_a_value_in_words_or_as_a_sum_is_right(case):
    item, response = case
    assert right(item, response), (item.id, response)


@st.composite
def shapes_by(draw):
    item = draw(st.sampled_from(SHAPE_ITEMS))
    dims = [str(d) for d in shape(item)]
    joiner = draw(st.sampled_from([" by ", " x ", "×", "x", " × ", " * "]))
    core = joiner.join(dims) if len(dims) > 1 else dims[0]
    return item, decorate(draw, item, core, LABELS + SHAPE_LABELS)


@PROPERTY
@given(shapes_by())
def test_a_shape_written_n_by_m_is_right(case):
    item, response = case
    assert right(item, response), (item.id, response)


_METHOD_FORM = re.compile(r"(?:x|y|tensor|logits)\.(?P<name>\w+)(?P<call>\(.*\))?")
METHOD_PAIRS = [(item, a) for item, a in PAIRS
                if (m := _METHOD_FORM.fullmatch(a)) and m.group("name") in TENSOR_METHODS]


@st.composite
def other_receivers(draw):
    item, answer = draw(st.sampled_from(METHOD_PAIRS))
    method = _METHOD_FORM.fullmatch(answer)
    name, call = method.group("name"), method.group("call") or ""
    receiver = draw(RECEIVERS)
    forms = [f"{receiver}.{name}{call}"]
    keyword = re.fullmatch(r"\(dim=(-?\d)\)", call)
    if keyword:  # the same call with dim by position, or with the tensor as first argument
        dim = keyword.group(1)
        forms += [f"{receiver}.{name}({dim})", f"torch.{name}({receiver}, dim={dim})",
                  f"torch.{name}({receiver}, {dim})"]
    elif not call:
        forms += [f"{receiver}.{name}()"]
    return item, decorate(draw, item, draw(st.sampled_from(forms)), LABELS)


@PROPERTY
@given(other_receivers())
def test_a_tensor_method_on_any_receiver_is_right(case):
    item, response = case
    assert right(item, response), (item.id, response)


# Longer paths of the same objects (torch's own modules re-export them under these names).
LONGER = [("F.", "torch.nn.functional."), ("F.", "nn.functional."), ("nn.init.", "torch.nn.init."),
          ("init.", "torch.nn.init."), ("nn.", "torch.nn."), ("rnn.", "torch.nn.utils.rnn."),
          ("lr_scheduler.", "torch.optim.lr_scheduler."), ("torch.", "")]
PATH_PAIRS = [(item, a, short, long) for item, a in PAIRS for short, long in LONGER
              if a.startswith(short) and item.id in {i.id for i in NAME_ITEMS}
              and (long or "." not in a.removeprefix(short))]  # torch.cuda.x is not cuda.x


@PROPERTY
@given(st.sampled_from(PATH_PAIRS), st.data())
def test_a_module_path_longer_or_shorter_than_the_listed_one_is_right(case, data):
    item, answer, short, long = case
    response = long + answer.removeprefix(short)
    response = data.draw(st.sampled_from([response, f"`{response}`", f"{response}()"]))
    assert right(item, response), (item.id, response)


# ----------------------------------------------------------------------------- near misses


@st.composite
def off_by_one(draw):
    item = draw(st.sampled_from(NUMBER_ITEMS))
    value = draw(st.sampled_from(values(item))) + draw(st.sampled_from([-1, 1]))
    if within(item, float(value)):
        value += 10  # still a near miss, never the answer
    written = draw(st.sampled_from([_plain(value), sums_for(value, draw)]))
    approx = draw(st.sampled_from(["", *APPROX]))
    return item, decorate(draw, item, approx + written, LABELS)


def _plain(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else repr(float(value))


@PROPERTY
@given(off_by_one())
def test_a_value_one_off_is_wrong_however_it_is_written(case):
    item, response = case
    assert not right(item, response), (item.id, response)


@st.composite
def rounded(draw):
    candidates = [(item, v) for item in NUMBER_ITEMS for v in values(item)
                  if v.denominator != 1]
    item, value = draw(st.sampled_from(candidates))
    digits = draw(st.integers(0, 3))
    shown = round(float(value), digits)
    if within(item, shown):
        shown = round(float(value) + 10 ** -(digits + 1) * 7, digits + 1) + 10 ** -(digits + 1)
    return item, decorate(draw, item, draw(st.sampled_from(["", "≈", "~"])) + repr(shown),
                          LABELS)


@PROPERTY
@given(rounded())
def test_a_rounded_value_outside_the_tolerance_is_wrong(case):
    item, response = case
    assert not right(item, response), (item.id, response)


@st.composite
def other_shapes(draw):
    item = draw(st.sampled_from(SHAPE_ITEMS))
    dims = list(shape(item))
    if draw(st.booleans()) or len(dims) == 1:
        dims.insert(draw(st.integers(0, len(dims))), draw(st.integers(1, 64)))
    else:
        dims.pop(draw(st.integers(0, len(dims) - 1)))
    joiner = draw(st.sampled_from([", ", " by ", "x", " × "]))
    core = joiner.join(str(d) for d in dims)
    if joiner == ", ":
        core = draw(st.sampled_from([f"({core})", f"[{core}]", f"torch.Size([{core}])"]))
    return item, decorate(draw, item, core, LABELS + SHAPE_LABELS)


@PROPERTY
@given(other_shapes())
def test_a_shape_with_a_dimension_more_or_fewer_is_wrong(case):
    item, response = case
    assert not right(item, response), (item.id, response)


_LAST_NAME = re.compile(r"(?P<head>(?:[A-Za-z_]\w*\.)*)(?P<name>[A-Za-z_]\w*)(?P<tail>\(.*\))?")
CALLABLE_PAIRS = [(item, m) for item, a in PAIRS
                  if (m := _LAST_NAME.fullmatch(a))
                  and (item in NAME_ITEMS or (item.id in KEYWORD_ITEMS and m.group("tail")))]


@st.composite
def other_functions(draw):
    item, answer = draw(st.sampled_from(CALLABLE_PAIRS))
    listed = {fold(a) for a in item.accepted}
    names = [n for n in OTHER_FUNCTIONS if fold(n) not in listed and n != answer.group("name")
             and not any(fold(n) == a.split(".")[-1] for a in listed)]
    other = draw(st.sampled_from(names))
    args = answer.group("tail") or draw(st.sampled_from(["", "(x)", "(x, 1)", "(dim=1)"]))
    return item, decorate(draw, item, f"{answer.group('head')}{other}{args}", LABELS)


@PROPERTY
@given(other_functions())
def test_another_real_function_with_plausible_arguments_is_wrong(case):
    item, response = case
    assert not right(item, response), (item.id, response)


@st.composite
def hedges(draw):
    item = draw(st.sampled_from([i for i in TEXT if i.rejected]))
    good = draw(st.sampled_from(item.accepted))
    bad = draw(st.sampled_from(item.rejected))
    first, second = draw(st.permutations([good, bad]))
    joiner = draw(st.sampled_from([" or ", " OR ", " | ", " 或 ", " 还是 ", "either {} or ",
                                   "{} (or {})", "{} # maybe {}", "{}; {}", "{} ({})"]))
    if "{}" in joiner:
        return item, joiner.format(first, second) if joiner.count("{}") == 2 else (
            joiner.format(first) + second)
    if not re.search(r"\d", good + bad):
        joiner = draw(st.sampled_from([joiner, "/", " / "]))
    return item, decorate(draw, item, first + joiner + second, LABELS)


@PROPERTY
@given(hedges())
def test_a_hedge_with_a_wrong_answer_in_it_is_wrong(case):
    item, response = case
    assert not right(item, response), (item.id, response)


IN_PLACE = [(item, a) for item in NAME_ITEMS for a in item.accepted
            if re.fullmatch(r"(?:[\w.]*\.)?[a-z]\w*[a-z0-9]", a) and "." not in a[-1]
            and fold(a + "_") not in {fold(x) for x in item.accepted}]


@PROPERTY
@given(st.sampled_from(IN_PLACE), st.sampled_from(["", "(x)", "(1, idx)", "()"]))
def test_an_in_place_underscore_nobody_listed_is_wrong(case, args):
    item, answer = case
    response = f"{answer}_{args}"
    assert not right(item, response), (item.id, response)


REJECTED_PAIRS = [(item, r) for item in TEXT for r in item.rejected]


@st.composite
def decorated_wrong_answers(draw):
    item, wrong = draw(st.sampled_from(REJECTED_PAIRS))
    labels = LABELS if item.id in KEYWORD_ITEMS else LABELS + VALUE_LABELS
    method = _METHOD_FORM.fullmatch(wrong)
    if method and method.group("name") in TENSOR_METHODS and draw(st.booleans()):
        wrong = f"{draw(RECEIVERS)}.{method.group('name')}{method.group('call') or ''}"
    if _NUMBER.fullmatch(wrong) and draw(st.booleans()):
        wrong = draw(st.sampled_from(APPROX)) + wrong
    return item, decorate(draw, item, wrong, labels)


@PROPERTY
@given(decorated_wrong_answers())
def test_a_listed_wrong_answer_stays_wrong_however_it_is_decorated(case):
    item, response = case
    assert not right(item, response), (item.id, response)
