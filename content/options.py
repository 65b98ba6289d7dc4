"""The order a choice question's options are shown in, and how a bank's answer keys are biased.

Options are stored A, B, C, ... and an author tends to write the right one first and longest.
So no member ever sees the stored order: every round (and every practice session) shows them in
an order drawn from its own seed, and a member's answer is kept as the option's stored key, its
identity. The letters a member sees are display positions, valid only with that seed.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from content.guessing import RuleScore, locale_rules
from content.schema import LOCALES, Choice, ChoiceItem

# Display orders the bias report draws in all (spread over the items): enough that the "first
# shown" strategy's score is measured within about a percent, few enough to stay instant.
BIAS_DRAWS = 6400


def letter(position: int) -> str:
    """Return the letter shown at a 0-based display position (A, B, C, ...)."""
    return chr(ord("A") + position)


def _rank(seed: int, item_id: str, key: str) -> bytes:
    return hashlib.sha256(f"options|{seed}|{item_id}|{key}".encode()).digest()


@dataclass(frozen=True)
class Display:
    """A choice item's options in the order one round or session shows them."""

    choices: tuple[Choice, ...]

    def labelled(self) -> Iterator[tuple[str, Choice]]:
        """Yield (shown letter, option) in display order."""
        for position, choice in enumerate(self.choices):
            yield letter(position), choice

    def letter_of(self, key: str) -> str:
        """Return the letter the option stored as ``key`` is shown with."""
        return next(shown for shown, c in self.labelled() if c.key == key)

    def key_at(self, shown: str) -> str | None:
        """Return the stored key of the option shown as letter ``shown``, if there is one."""
        return next((c.key for label, c in self.labelled() if label == shown), None)

    @property
    def letters(self) -> tuple[str, ...]:
        """Return the letters shown, in order."""
        return tuple(label for label, _ in self.labelled())


def display_order(item: ChoiceItem, seed: int | None) -> Display:
    """Return the options as ``seed`` shows them; ``None`` keeps the stored order (admin views).

    Sorting by a hash of (seed, item, key) draws every order with equal chance, and any replica
    that knows the seed (derived from what the database stores) draws the same one.
    """
    if seed is None:
        return Display(tuple(item.choices))
    return Display(tuple(sorted(item.choices, key=lambda c: _rank(seed, item.id, c.key))))


# ---------------------------------------------------------------- how biased a bank's keys are


@dataclass(frozen=True)
class OptionBias:
    """What a member scores on a set of choice items by rules that never read the question.

    ``chance`` is what guessing scores (the mean of 1/options); every rule in ``rules`` (see
    content/guessing.py) should score no more than that plus a little.
    """

    items: int
    chance: float
    # How many items store their correct option at each position (A, B, ...).
    correct_by_position: tuple[tuple[str, int], ...]
    # "Always the first stored option": what a member scored while options were shown as stored.
    first_stored: float
    # Every guessing rule: the first option shown (under the per-round shuffle, over many drawn
    # orders), then each rule read in each locale (length ranks, drop the longest, shared words).
    rules: tuple[RuleScore, ...] = ()
    # The items measured, in the order of every rule's credits.
    measured: tuple[ChoiceItem, ...] = ()

    @property
    def first_shown(self) -> float:
        """Return what "always the first shown option" scores."""
        return self.rule("first shown", None).score

    def rule(self, name: str, locale: str | None) -> RuleScore:
        """Return the score of the rule called ``name`` in ``locale``."""
        return next(r for r in self.rules if r.rule == name and r.locale == locale)

    def worst(self) -> RuleScore | None:
        """Return the rule that scores best (the worst for fairness), if any was measured."""
        return max(self.rules, key=lambda r: r.score, default=None)


def option_bias(
    items: Iterable[ChoiceItem],
    seeds: Sequence[int] | None = None,
    locales: Sequence[str] = LOCALES,
) -> OptionBias:
    """Measure what every guessing rule scores on ``items`` (a bank's or a pack's choice items).

    ``seeds`` are the display orders drawn per item (default: BIAS_DRAWS spread over them);
    ``locales`` the languages the texts are written in (a pack's may be fewer than the bank's).
    """
    chosen = tuple(items)
    if not chosen:
        return OptionBias(0, 0.0, (), 0.0)
    n = len(chosen)
    if seeds is None:
        seeds = range(-(-BIAS_DRAWS // n))
    draws = max(1, len(seeds))
    widest = max(len(q.choices) for q in chosen)
    positions = Counter(q.correct_key for q in chosen)
    first = tuple(sum(display_order(q, seed).choices[0].correct for seed in seeds) / draws
                  for q in chosen)
    rules = [RuleScore("first shown", None, first)]
    for name, credit in locale_rules(widest):
        rules += [RuleScore(name, locale, tuple(credit(q, locale) for q in chosen))
                  for locale in locales]
    return OptionBias(
        items=n,
        chance=sum(1 / len(q.choices) for q in chosen) / n,
        correct_by_position=tuple((letter(i), positions[letter(i)]) for i in range(widest)),
        first_stored=positions[letter(0)] / n,
        rules=tuple(rules),
        measured=chosen,
    )


def bias_lines(bias: OptionBias) -> list[str]:
    """Return the bias report as plain-text lines (for `content validate`): one per rule."""
    if not bias.items:
        return ["Option bias: no choice questions"]
    positions = " · ".join(f"{key} {count}" for key, count in bias.correct_by_position)
    lines = [
        f"Option bias over {bias.items} choice questions (chance {bias.chance:.0%}; each rule's "
        "score is its mean chance of picking the right option, ties at random)",
        f"  correct option by stored position: {positions}",
        f"  always the first stored option:   {bias.first_stored:.0%} (options are never shown so)",
        f"  always the first shown option:    {bias.first_shown:.0%} (shuffled per round)",
    ]
    named: dict[str, dict[str | None, float]] = {}
    for score in bias.rules:
        if score.locale is not None:
            named.setdefault(score.rule, {})[score.locale] = score.score
    width = max(len(name) for name in named)
    lines += [f"  {name + ':':<{width + 1}}  "
              + ", ".join(f"{loc} {value:.0%}" for loc, value in by_locale.items())
              for name, by_locale in named.items()]
    return lines
