"""Decide whether a short answer is right: folding, aliases, numbers, shapes, careful typos.

The fuzzy match forgives typos ("detatch") but never turns a known wrong answer into a right one:
a response is accepted only when it is closer to an accepted answer than to every rejected answer
and every other choice, and a typo never adds or drops the trailing underscore of an in-place
variant. A text answer is also read as engineers write it (``answer_forms``): after a label
(``loss = 1.5``), before a comment (``7 (rounded down)``), in words (``three``), as a sum
(``1/(2*4)``), as a call on any tensor (``scores.argmax(dim=1)``); a hedge (``7 or 8``) is
right only when every one of its answers is.
"""

from __future__ import annotations

import difflib
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.core.kernel.answer_forms import (
    TENSOR_METHODS,
    alternatives,
    is_label_word,
    parse_call,
    remark_core,
    split_comment,
    split_label,
    strip_phrases,
    without_receiver,
)
from bot.core.kernel.answer_values import MAX_READ, evaluate, normalise, spell_out
from content.schema import ChoiceItem, NumericAnswer, TextItem

# Namespaces in front of a name; stripped repeatedly, so "torch.Tensor.detach", "Tensor.detach"
# and "detach" fold alike, as do "torch.utils.data.DataLoader" and "DataLoader". Namespaces that
# change meaning (torch.cuda.amp vs torch.amp, torch.version.cuda vs torch.cuda) are not here.
_PREFIX = re.compile(
    r"^(?:torch|nn|functional|f|utils|data|optim|lr_scheduler|tensor|x|t)\.(?=.)"
)
# Different spellings of one and the same object, written in full (casefolded).
_SAME_OBJECT = {"torch.version.__version__": "torch.__version__"}
_CALL_SUFFIX = re.compile(r"\((?:[^()]*)\)$")
# A call with arguments, as a member writes it: "torch.manual_seed(0)", "x.sum(dim=1)".
_CALL = re.compile(r"^(?P<name>[^\W\d][\w.]*)\s*\((?P<args>.*)\)$")
_SPACED_EQUALS = re.compile(r"\s*=\s*")
# Words that only say what a number counts ("256 samples", "2 times", "3 个"): a number written
# with one is the number, where the item lists the number without a unit.
_COUNT_WORDS = frozenset({
    "sample", "samples", "time", "times", "element", "elements", "item", "items", "step",
    "steps", "batch", "batches", "example", "examples", "value", "values", "x",
    "次", "个", "步", "倍", "个样本", "样本", "个元素", "元素", "批",
})
_EDGE_PUNCT = "`'\"“”‘’「」『』《》【】.,;:!?。，；：！？()[]{}<> "
_NUMBER = re.compile(
    r"^(?P<value>[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|\d+/\d+))"
    r"\s*(?P<unit>%|[^\W\d_]+)?$"
)
# Minus signs a keyboard or a copied formula may produce, and the fraction slash NFKC makes of "½".
_SIGNS = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2012": "-", "\u2044": "/"})
# A number is read before any punctuation is folded away: "." and "-" belong to ".5", "-.5" and
# "1e-3". Only wrapping quotes and brackets and a closing sentence mark are dropped around it.
_NUMBER_OPEN = "`'\"“”‘’([{< "
_NUMBER_CLOSE = "`'\"“”‘’)]}>,;:!?。，；：！？ "
_PRINTED_TENSOR = re.compile(r"^(?:torch\.)?tensor\(\s*([^,()]+?)\s*(?:,[^()]*)?\)$")
_DIGITS = re.compile(r"\d")
_INTS = re.compile(r"-?\d+")
_SHAPE = re.compile(r"^\(?\s*-?\d+(?:\s*,\s*-?\d+)*\s*,?\s*\)?$")
_LETTER = re.compile(r"^(?:option|choice|answer|选项|选|答案)?\s*\(?([a-f])\)?\s*[.)]?$")


def fold(text: str) -> str:
    """Fold case, width, whitespace, wrapping punctuation and API prefixes for comparison."""
    folded = unicodedata.normalize("NFKC", text).casefold().strip()
    folded = folded.strip(_EDGE_PUNCT)
    folded = _SAME_OBJECT.get(folded, folded)
    folded = _SPACED_EQUALS.sub("=", folded)  # "dim = 1" is "dim=1"
    while (stripped := _PREFIX.sub("", folded)) != folded:
        folded = stripped
    folded = _CALL_SUFFIX.sub("", folded)
    folded = folded.strip(_EDGE_PUNCT)
    # Separators inside a name are spelling ("no_grad", "no-grad", "no grad"); a trailing
    # underscore is meaning: it marks PyTorch's in-place variant ("detach_" is not "detach").
    folded = re.sub(r"(?<=\w)[\s_\-]+(?=\w)", " ", folded)
    return folded.strip()


def edit_distance(a: str, b: str) -> int:
    """Return the optimal-string-alignment distance (a swap of neighbours counts as one edit)."""
    if a == b:
        return 0
    previous_previous: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, start=1):
            cost = 0 if char_a == char_b else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], previous_previous[j - 2] + 1)
        previous_previous, previous = previous, current
    return previous[len(b)]


def typo_budget(length: int) -> int:
    """Return how many edits a word of this length may have and still count as a typo."""
    if length <= 3:
        return 0
    if length <= 7:
        return 1
    return 2


def closest(query: str, candidates: list[str]) -> tuple[str, int] | None:
    """Return the candidate nearest to ``query`` within its typo budget, if one is unambiguous.

    A changed digit is never a typo: "3 bytes" is not "2 bytes", nor "float32" "float16".
    """
    digits = _DIGITS.findall(query)
    # The distance is at least the difference in length, so a candidate farther than the
    # largest budget is never computed (a 3,000-character answer costs nothing).
    scored = sorted(
        (edit_distance(query, c), c) for c in candidates
        if _DIGITS.findall(c) == digits and abs(len(c) - len(query)) <= 2
        and c.endswith("_") == query.endswith("_")  # "gather_" is in place, not a typo
    )
    if not scored:
        return None
    best_distance, best = scored[0]
    if best_distance > typo_budget(max(len(query), len(best))):
        return None
    if len(scored) > 1 and scored[1][0] == best_distance and fold(scored[1][1]) != fold(best):
        return None  # two equally close answers: guessing would be unfair either way
    return best, best_distance


def nearest(key: str, named: Mapping[str, str], limit: int = 3) -> tuple[str, ...]:
    """Return up to ``limit`` targets whose folded names look most like ``key``, best first.

    ``named`` maps a folded name to what it names (several names may name one target): the
    suggestions of /explain's cards and of a channel's topics alike.
    """
    scored: dict[str, float] = {}
    for name, target in named.items():
        ratio = difflib.SequenceMatcher(None, key, name).ratio()
        if key and (key in name or name in key):
            ratio = max(ratio, 0.75)
        scored[target] = max(scored.get(target, 0.0), ratio)
    ranked = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))
    return tuple(target for target, ratio in ranked[:limit] if ratio >= 0.4)


@dataclass(frozen=True)
class Match:
    """The outcome of checking one response."""

    understood: bool  # False: we could not read it as an answer; no attempt is used
    correct: bool
    chosen: str = ""  # the choice letter or the folded text that was judged
    note: str = ""  # e.g. "accepted as a typo of 'detach'"


def match_choice(
    item: ChoiceItem, response: str, locale: str, shown: Sequence[str] | None = None
) -> Match:
    """Read a letter, or the text of one option, and say whether it is the correct one.

    ``shown`` lists the option keys in the order the member saw them: a letter names a display
    position (its default is the stored order). ``chosen`` is always the option's stored key.
    """
    folded = fold(response)
    letter = _LETTER.match(folded)
    keys = list(shown) if shown is not None else [c.key for c in item.choices]
    position = ord(letter.group(1).upper()) - ord("A") if letter else -1
    if 0 <= position < len(keys):
        key = keys[position]
        return Match(True, key == item.correct_key, key)
    by_text = {fold(c.text.get(lang)): c.key for c in item.choices for lang in ("en", "zh-CN")}
    if folded in by_text:
        key = by_text[folded]
        return Match(True, key == item.correct_key, key)
    near = closest(folded, list(by_text))
    if near is not None:
        key = by_text[near[0]]
        return Match(True, key == item.correct_key, key, note=f"read as option {key}")
    return Match(False, False)


def as_number(text: str) -> tuple[float, str] | None:
    """Read a number and an optional unit ("0.5", ".5", "-1e-3", "1/2", "½", "2 bytes", "50%").

    ``tensor(0.5000)`` as printed by PyTorch reads as its value; "%" divides by 100.
    """
    cleaned = unicodedata.normalize("NFKC", text).casefold().translate(_SIGNS).strip()
    printed = _PRINTED_TENSOR.match(cleaned)
    if printed:
        cleaned = printed.group(1)
    cleaned = cleaned.lstrip(_NUMBER_OPEN).rstrip(_NUMBER_CLOSE)
    cleaned = re.sub(r"^([-+])\s+|\s*(/)\s*", r"\1\2", cleaned)  # "- 3", "1 / 2"
    # "5." is a number; in "0.5." or "2 bytes." the last dot ends a sentence.
    match = _NUMBER.match(cleaned) or _NUMBER.match(cleaned.removesuffix("."))
    if match is None:
        return None
    raw, unit = match.group("value"), match.group("unit") or ""
    if "/" in raw:
        numerator, denominator = raw.split("/")
        if int(denominator) == 0:
            return None
        try:
            value = int(numerator) / int(denominator)
        except OverflowError:  # hundreds of digits: no answer is that large
            return None
    else:
        value = float(raw)
    if unit == "%":
        return value / 100, ""
    return value, unit


def _numbers(item: TextItem) -> list[tuple[NumericAnswer, str]]:
    """Return the right numbers, each with the unit it may carry ("" for none).

    An item with a ``numeric`` answer takes it with no unit or any unit its accepted answers
    write after a number ("2 bytes"). Without one, every accepted answer that reads as a number
    counts exactly as written, so "12" also accepts "12.0" and "-1" sits beside "1".
    """
    written = [parsed for a in item.accepted if (parsed := as_number(a)) is not None]
    if item.numeric is not None:
        units = {""} | {unit for _, unit in written}
        return [(item.numeric, unit) for unit in sorted(units)]
    return [(NumericAnswer(value=value), unit) for value, unit in written]


def _as_shape(text: str) -> tuple[int, ...] | None:
    text = unicodedata.normalize("NFKC", text)  # "（6，3）" from a Chinese keyboard
    cleaned = re.sub(r"^(?:torch\.)?size\(|\)$", "", text.strip().casefold())
    cleaned = cleaned.strip("[]() ")
    cleaned = re.sub(r"\s*(?:[x×*]|\bby\b|乘)\s*", ",", cleaned)  # "2x5", "2 by 5"
    if not cleaned or not _SHAPE.match(f"({cleaned})"):
        return None
    return tuple(int(n) for n in _INTS.findall(cleaned))


def called_name(text: str) -> str | None:
    """Return the folded name of a call written with arguments ("manual_seed(0)"), else None."""
    cleaned = unicodedata.normalize("NFKC", text).casefold().strip()
    cleaned = cleaned.strip("`'\"“”‘’ ").rstrip(".,;:!?。，；：！？ ").strip("`'\"“”‘’ ")
    call = _CALL.match(cleaned)
    if call is None or not call.group("args").strip():
        return None
    return fold(without_receiver(call.group("name")))


def _names_an_answer(call: str, listed: list[str]) -> bool:
    """Return whether "name (...)" is a hedge, not a call: "gather (or scatter)", "a (b)".

    Its argument hedges, or it is spaced off the name and is one of the item's listed answers
    ("manual_seed(seed)" stays a call).
    """
    cleaned = unicodedata.normalize("NFKC", call).casefold().strip().strip("`'\"“”‘’ ")
    found = _CALL.match(cleaned.rstrip(".,;:!?。，；：！？ "))
    if found is None:
        return False
    core, hedged = remark_core(f"({found.group('args')})")
    spaced = cleaned[len(found.group("name")):][:1].isspace()
    return hedged or (spaced and fold(core) in listed)


def match_text(item: TextItem, response: str) -> Match:
    """Check a short free-text answer against the accepted answers, numbers and shapes."""
    folded = fold(response)
    if not folded:
        return Match(False, False)
    plain = _match_plain(item, response)
    listed = {fold(a) for a in (*item.accepted, *item.rejected)}
    if len(response) > MAX_READ or folded in listed:
        return plain
    parts = alternatives(response)
    if len(parts) > 1:
        # A hedge ("7 or 8", "bf16/fp16") is right only when every answer in it is; checked
        # before typos, so "profile/cProfile" is never a typo of "profiler.profile".
        return Match(True, all(_read_as_written(item, p) for p in parts), folded)
    remark = split_comment(normalise(response))[1]
    if remark and not _remark_allows(item, remark, _keywords(item)):
        return Match(True, False, folded)  # "y.retain_grad() (or retain_graph)"
    if plain.correct and plain.note and _hides_a_wrong_answer(item, response):
        return Match(True, False, folded)  # "y : contiguous" is no typo of "is_contiguous"
    if plain.correct:
        return plain
    if _read_as_written(item, response):
        return Match(True, True, folded)
    return plain


def _keywords(item: TextItem) -> set[str]:
    """Return the keywords the item's answers are written with ("dim" of "dim=1")."""
    return {fold(a.partition("=")[0]) for a in item.accepted if "=" in a}


def _hides_a_wrong_answer(item: TextItem, response: str) -> bool:
    """Return whether a listed wrong answer shows once a label, comment or phrase is peeled."""
    rejected = {fold(r) for r in item.rejected}
    text = normalise(response)
    labelled = split_label(text)
    readings = [split_comment(text)[0], strip_phrases(text),
                labelled.value if labelled is not None else ""]
    return any(fold(r) in rejected for r in readings if r)


def _read_as_written(item: TextItem, response: str) -> bool:
    """Return whether some reading of ``response`` without its decorations is right.

    The readings peel, in any order and at most a few times, a trailing comment, filler
    phrases ("it is", "≈"), a label ("loss = ", "shape:"), number words and a receiver. A
    label is peeled freely unless the item's answers are themselves keyword arguments
    (``dim=1``): then only that keyword or a word like "answer" may stand before the value.
    """
    keywords = _keywords(item)
    # Where the answer is a name, "NAME=value" names it: CUBLAS_WORKSPACE_CONFIG=:4096:8.
    names_label = any(a.rstrip().endswith("=") for a in item.accepted) or not (
        _numbers(item) or _shaped(item))
    seen: set[str] = set()
    frontier = [normalise(response)]
    for _ in range(5):
        next_frontier: list[str] = []
        for text in frontier:
            if text in seen or not text:
                continue
            seen.add(text)
            if len(alternatives(text)) > 1:
                continue  # a hedge left after a decoration is peeled: never one right answer
            match = _match_plain(item, text)
            if match.correct and not (match.note and _hides_a_wrong_answer(item, text)):
                return True
            next_frontier.extend(_peelings(item, text, keywords, names_label))
        frontier = next_frontier[:16]
        if not frontier:
            break
    return any(_match_plain(item, text).correct for text in frontier
               if text not in seen and len(alternatives(text)) == 1)


def _peelings(item: TextItem, text: str, keywords: set[str], names_label: bool) -> list[str]:
    """Return what ``text`` reads as with one decoration fewer."""
    out = [strip_phrases(text), without_receiver(text)]
    main, remark = split_comment(text)
    if remark and _remark_allows(item, remark, keywords):
        out.append(main)
    spelled = spell_out(text)
    if spelled is not None:
        out.append(spelled)
    labelled = split_label(text)
    if labelled is not None:
        label = fold(labelled.label)
        # "scatter = gather" names a listed wrong answer beside the right one: no reading.
        vetoed = label in {fold(r) for r in item.rejected}
        if not vetoed and (not keywords or label in keywords or is_label_word(labelled.label)):
            out.append(labelled.value)
        if names_label and labelled.separator == "=" and not _NAME.fullmatch(labelled.value):
            out.append(labelled.label)  # dynamic_shapes={...}, CUBLAS_WORKSPACE_CONFIG=:4096:8
    return [o for o in out if o and o != text]


_NAME = re.compile(r"[^\W\d][\w.]*")


def _remark_allows(item: TextItem, remark: str, keywords: set[str]) -> bool:
    """Return whether a trailing remark leaves the value before it standing.

    A remark that is itself an answer (a number, a sum, a shape, a listed or near-listed
    answer, a tensor method) or that hedges ("or 8", "maybe 8") is a second answer: it must be
    right too. Anything else ("rounded down", "按文档") is a comment.
    """
    core, hedged = remark_core(remark)
    if not core:
        return True
    listed = [fold(a) for a in (*item.accepted, *item.rejected)]
    answer_like = (
        hedged or as_number(core) is not None or evaluate(core) is not None
        or _as_shape(core) is not None or parse_call(core) is not None
        or fold(core) in listed or closest(fold(core), listed) is not None
        or (" " not in core and "=" not in core and (
            core in TENSOR_METHODS or _DIGITS.search(core) is not None
        ))
        # "(delta=1)" notes a parameter; "(dim=0)" where the answer is a dim is a second answer
        or ("=" in core and fold(core.partition("=")[0]) in keywords)
    )
    if not answer_like:
        return True
    readings = {core, strip_phrases(core), spell_out(core) or ""}
    return any(_match_plain(item, r).correct for r in readings if r)


def _match_plain(item: TextItem, response: str) -> Match:
    """Check a response as written: a number, a listed answer, a call, a shape, a typo."""
    folded = fold(response)
    if not folded:
        return Match(False, False)
    parsed = as_number(response)
    if parsed is None and not _shaped(item):
        value = evaluate(response)  # "1/(2*4)", "2**10", "8 * 32"
        parsed = None if value is None else (value, "")
    if parsed is not None:
        value, unit = parsed
        numbers = _numbers(item)
        if unit in _COUNT_WORDS and {u for _, u in numbers} == {""}:
            unit = ""  # "256 samples" where the item lists 256: the word names what it counts
        # Only numbers in a unit the author wrote are compared: "2 bits" where "2 bytes" is
        # listed, or "2" where only "2.weight" is, fall through to the listed answers.
        same_unit = [expected for expected, u in numbers if u == unit]
        if same_unit:
            ok = any(
                math.isclose(value, e.value, rel_tol=e.rel_tol, abs_tol=e.abs_tol)
                for e in same_unit
            )
            return Match(True, ok, folded)
    accepted = [fold(a) for a in item.accepted]
    rejected = [fold(r) for r in item.rejected]
    if folded in accepted:
        return Match(True, True, folded)
    if folded in rejected:
        return Match(True, False, folded)
    bare_method = fold(without_receiver(normalise(response))) if len(response) <= MAX_READ else (
        folded)
    if bare_method != folded:  # "scores.gather" is gather on any tensor
        if bare_method in rejected:
            return Match(True, False, bare_method)
        if bare_method in accepted:
            return Match(True, True, bare_method)
    expected_shape = _as_shape(item.accepted[0])
    if expected_shape is not None:
        given = _as_shape(response)
        if given is not None:
            return Match(True, given == expected_shape, folded)
    call = parse_call(response)
    name = called_name(response)
    if name is not None and _names_an_answer(response, accepted + rejected):
        name = None  # "retain_grad (retain_graph)" offers two answers, it calls nothing
    bare = {fold(a) for a in item.accepted if called_name(a) is None}
    if call is not None and (name is None or name not in bare):
        # A call compared with the calls the item lists with arguments: any receiver, the
        # tensor as receiver or first argument, dim by position or keyword. The same
        # function with other arguments is wrong; another function falls through.
        listed = [c for a in item.accepted if (c := parse_call(a)) is not None
                  and (c.args or c.kwargs)]
        same_function = [c for c in listed if fold(c.name) == fold(call.name)]
        if same_function:
            ok = any(c.args == call.args and c.kwargs == call.kwargs for c in same_function)
            return Match(True, ok, folded)
    if name is not None:
        # A call with arguments where the item asks for the function: "torch.manual_seed(0)"
        # names manual_seed. Only an accepted name written without arguments takes it, so
        # "tensor([4])" never matches a listed "tensor([-4])".
        if name in rejected:
            return Match(True, False, name)
        if name in bare:
            return Match(True, True, name)
    # A label's "=" or ":" is no typo: "n = float16" is not "bfloat16".
    labelled = any(c in folded for c in "=:") and not any(c in a for a in accepted for c in "=:")
    # A typo is judged on the name, not its path: "torch.nn.utils.rnn.pack_sequence" ends in a
    # listed wrong name, however close its path makes it to "rnn.pad_sequence".
    tail = folded.rsplit(".", 1)[-1]
    wrong_name = tail in {r.rsplit(".", 1)[-1] for r in rejected} - {
        a.rsplit(".", 1)[-1] for a in accepted}
    if item.fuzzy and not labelled and not wrong_name:
        near = closest(folded, accepted + rejected)
        if near is not None and near[0] in accepted and near[0] not in rejected:
            return Match(True, True, folded, note=f"accepted as a typo of '{near[0]}'")
    return Match(True, False, folded)


def _shaped(item: TextItem) -> bool:
    """Return whether the item's answer is written as a shape ("(6,)", "2x3"), not a number."""
    return any(c in item.accepted[0] for c in "(,[x×") and _as_shape(item.accepted[0]) is not None
