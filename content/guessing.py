"""Rules that answer a choice question without reading it, and what each one scores.

A member who never reads the question can still pick by the options' look: the longest, the
second-longest, ..., the shortest, "drop the longest and guess among the rest", the option that
repeats most words of the prompt, or the first option shown. Each rule here gives every item a
*credit*: the chance the rule picks the correct option there, ties broken at random (a correct
option tied with one other for the rule's pick earns 1/2). A rule's score is the mean credit over
the items; guessing scores ``chance``, the mean of 1/options. Lengths and words are measured
per locale, on the text a member sees (backticks, which only mark code, are not counted).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from content.schema import ChoiceItem

# Words too common to count as "sharing a word with the prompt".
_STOPWORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "has",
    "have", "how", "if", "in", "is", "it", "its", "of", "on", "or", "that", "the", "then",
    "this", "to", "was", "what", "when", "where", "which", "while", "who", "why", "will", "with",
    "you", "your",
))
_LATIN = re.compile(r"[A-Za-z0-9_]+")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_SPACES = re.compile(r"\s+")


def visible_length(text: str) -> int:
    """Return the length a member sees: backticks dropped, runs of spaces counted once."""
    return len(_SPACES.sub(" ", text.replace("`", "")).strip())


def words(text: str) -> frozenset[str]:
    """Return the words of ``text`` a prompt and an option can share.

    Latin words are lower-cased, stop words left out; Chinese has no spaces, so each pair of
    adjacent Han characters counts as a word (a lone character counts alone).
    """
    latin = {w.lower() for w in _LATIN.findall(text)} - _STOPWORDS
    han: set[str] = set()
    for run in _CJK_RUN.findall(text):
        han.update(run[i:i + 2] for i in range(max(1, len(run) - 1)))
    return frozenset(latin | han)


def pick_credit(item: ChoiceItem, scores: Sequence[float], position: int) -> float:
    """Return the chance that picking the option at ``position`` by ``scores`` is right.

    Options are ranked highest score first, ties at random; a position past the last one means
    the last.
    """
    position = min(position, len(scores) - 1)
    ranked = sorted(scores, reverse=True)
    value = ranked[position]
    tied = [c for c, s in zip(item.choices, scores, strict=True) if s == value]
    return 1 / len(tied) if any(c.correct for c in tied) else 0.0


def _lengths(item: ChoiceItem, locale: str) -> list[float]:
    return [float(visible_length(c.text.get(locale))) for c in item.choices]


def longest_rank(rank: int) -> Callable[[ChoiceItem, str], float]:
    """Return the rule "pick the option at length rank ``rank``" (1 = the longest)."""
    return lambda item, locale: pick_credit(item, _lengths(item, locale), rank - 1)


def shortest_rank(rank: int) -> Callable[[ChoiceItem, str], float]:
    """Return the rule "pick the option at length rank ``rank`` from the shortest" (1 = it)."""
    return lambda item, locale: pick_credit(item, [-n for n in _lengths(item, locale)], rank - 1)


def drop_longest(item: ChoiceItem, locale: str) -> float:
    """Return the credit of "drop the longest option, guess among the rest"."""
    dropped = longest_rank(1)(item, locale)  # the chance the dropped option was the right one
    return (1 - dropped) / (len(item.choices) - 1)


def most_shared_words(item: ChoiceItem, locale: str) -> float:
    """Return the credit of "pick the option that shares most words with the prompt"."""
    prompt = words(item.prompt.get(locale))
    return pick_credit(item, [len(words(c.text.get(locale)) & prompt) for c in item.choices], 0)


def _ordinal(n: int) -> str:
    return {1: "", 2: "2nd ", 3: "3rd "}.get(n, f"{n}th ")


def length_rules(widest: int) -> list[tuple[str, Callable[[ChoiceItem, str], float]]]:
    """Return every length-rank rule for items of up to ``widest`` options, by name.

    From the longest: rank 1 .. widest-1; from the shortest: rank 1 .. widest-1 (on an item with
    fewer options, a rank past its last means its last). Between them they pick every rank of
    every item.
    """
    top = max(2, widest)
    rules = [(f"{_ordinal(r)}longest", longest_rank(r)) for r in range(1, top)]
    rules += [(f"{_ordinal(r)}shortest", shortest_rank(r)) for r in range(1, top)]
    return rules


def locale_rules(widest: int) -> list[tuple[str, Callable[[ChoiceItem, str], float]]]:
    """Return every rule measured per locale, by name, in report order."""
    return [*length_rules(widest), ("drop-the-longest guess", drop_longest),
            ("most-words-shared-with-the-prompt", most_shared_words)]


def at_least(probabilities: Sequence[float], hits: int) -> float:
    """Return the chance that independent trials succeed at least ``hits`` times.

    Trial i succeeds with ``probabilities[i]`` (the Poisson-binomial upper tail).
    """
    counts = [1.0]  # counts[k] = chance of exactly k successes so far
    for p in probabilities:
        counts = [(counts[k] if k < len(counts) else 0.0) * (1 - p)
                  + (counts[k - 1] * p if k else 0.0) for k in range(len(counts) + 1)]
    return sum(counts[max(0, hits):])


@dataclass(frozen=True)
class RuleScore:
    """What one rule scored: per item (in the order measured) and overall."""

    rule: str
    locale: str | None  # None: a rule that reads no text (the first option shown)
    credits: tuple[float, ...]

    @property
    def score(self) -> float:
        """Return the mean credit (0 when there are no items)."""
        return sum(self.credits) / len(self.credits) if self.credits else 0.0

    @property
    def label(self) -> str:
        """Return the rule's name with its locale, as the reports print it."""
        return self.rule if self.locale is None else f"{self.rule} [{self.locale}]"

    def luck(self, items: Sequence[ChoiceItem]) -> float:
        """Return the chance that guessing at random does as well as this rule did on ``items``.

        Ties make credits fractional; the rule's hits are rounded up, so a tie never helps to
        refuse a pack.
        """
        hits = math.ceil(sum(self.credits) - 1e-9)
        return at_least([1 / len(q.choices) for q in items], hits)

    def gaining(self, items: Sequence[ChoiceItem]) -> list[str]:
        """Return the ids of the items on which the rule does better than a guess."""
        return [q.id for q, credit in zip(items, self.credits, strict=True)
                if credit > 1 / len(q.choices) + 1e-9]
