"""Decide whether a short answer is right: folding, aliases, numbers, shapes, careful typos.

The fuzzy match forgives typos ("detatch") but never turns a known wrong answer into a right one:
a response is accepted only when it is closer to an accepted answer than to every rejected answer
and every other choice.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from content.schema import ChoiceItem, TextItem

_PREFIXES = re.compile(
    r"^(?:torch\.nn\.functional\.|torch\.nn\.|torch\.|nn\.|f\.|tensor\.|x\.|t\.)"
)
_CALL_SUFFIX = re.compile(r"\((?:[^()]*)\)$")
_EDGE_PUNCT = "`'\"“”‘’.,;:!?。，；：！？()[]{}<> "
_NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$")
_INTS = re.compile(r"-?\d+")
_SHAPE = re.compile(r"^\(?\s*-?\d+(?:\s*,\s*-?\d+)*\s*,?\s*\)?$")
_LETTER = re.compile(r"^(?:option|choice|answer|选项|选|答案)?\s*\(?([a-f])\)?\s*[.)]?$")


def fold(text: str) -> str:
    """Fold case, width, whitespace, wrapping punctuation and API prefixes for comparison."""
    folded = unicodedata.normalize("NFKC", text).casefold().strip()
    folded = folded.strip(_EDGE_PUNCT)
    folded = _PREFIXES.sub("", folded)
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
    """Return the candidate nearest to ``query`` within its typo budget, if one is unambiguous."""
    scored = sorted((edit_distance(query, c), c) for c in candidates)
    if not scored:
        return None
    best_distance, best = scored[0]
    if best_distance > typo_budget(max(len(query), len(best))):
        return None
    if len(scored) > 1 and scored[1][0] == best_distance and fold(scored[1][1]) != fold(best):
        return None  # two equally close answers: guessing would be unfair either way
    return best, best_distance


@dataclass(frozen=True)
class Match:
    """The outcome of checking one response."""

    understood: bool  # False: we could not read it as an answer; no attempt is used
    correct: bool
    chosen: str = ""  # the choice letter or the folded text that was judged
    note: str = ""  # e.g. "accepted as a typo of 'detach'"


def match_choice(item: ChoiceItem, response: str, locale: str) -> Match:
    """Read a letter, or the text of one option, and say whether it is the correct one."""
    folded = fold(response)
    letter = _LETTER.match(folded)
    keys = [c.key for c in item.choices]
    if letter and letter.group(1).upper() in keys:
        key = letter.group(1).upper()
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


def _as_number(text: str) -> float | None:
    cleaned = text.replace(" ", "")
    if _NUMBER.match(cleaned):
        return float(cleaned)
    return None


def _as_shape(text: str) -> tuple[int, ...] | None:
    cleaned = re.sub(r"^(?:torch\.)?size\(|\)$", "", text.strip().casefold())
    cleaned = cleaned.strip("[]() ")
    cleaned = re.sub(r"\s*[x×*]\s*", ",", cleaned)
    if not cleaned or not _SHAPE.match(f"({cleaned})"):
        return None
    return tuple(int(n) for n in _INTS.findall(cleaned))


def match_text(item: TextItem, response: str) -> Match:
    """Check a short free-text answer against the accepted answers, numbers and shapes."""
    folded = fold(response)
    if not folded:
        return Match(False, False)
    if item.numeric is not None:
        number = _as_number(folded)
        if number is not None:
            expected = item.numeric
            ok = math.isclose(
                number, expected.value, rel_tol=expected.rel_tol, abs_tol=expected.abs_tol
            )
            return Match(True, ok, folded)
    accepted = [fold(a) for a in item.accepted]
    rejected = [fold(r) for r in item.rejected]
    if folded in accepted:
        return Match(True, True, folded)
    if folded in rejected:
        return Match(True, False, folded)
    expected_shape = _as_shape(item.accepted[0])
    if expected_shape is not None:
        given = _as_shape(response)
        if given is not None:
            return Match(True, given == expected_shape, folded)
    if item.fuzzy:
        near = closest(folded, accepted + rejected)
        if near is not None and near[0] in accepted and near[0] not in rejected:
            return Match(True, True, folded, note=f"accepted as a typo of '{near[0]}'")
    return Match(True, False, folded)
