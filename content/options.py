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


def _longest_credit(item: ChoiceItem, locale: str) -> tuple[float, bool]:
    """Return what "pick the longest option" scores on ``item`` and whether it is strictly right.

    Ties are broken at random, so a correct option tied for longest with one other earns 1/2.
    """
    sizes = [len(c.text.get(locale).strip()) for c in item.choices]
    top = max(sizes)
    longest = [c for c, size in zip(item.choices, sizes, strict=True) if size == top]
    right = any(c.correct for c in longest)
    return (1 / len(longest) if right else 0.0), right and len(longest) == 1


@dataclass(frozen=True)
class OptionBias:
    """What a member scores on a set of choice items by rules that never read the question.

    ``chance`` is what guessing scores (the mean of 1/options); the strategies should score no
    more than that plus a little.
    """

    items: int
    chance: float
    # How many items store their correct option at each position (A, B, ...).
    correct_by_position: tuple[tuple[str, int], ...]
    # "Always the first stored option": what a member scored while options were shown as stored.
    first_stored: float
    # "Always the first shown option" under the per-round shuffle, over many drawn orders.
    first_shown: float
    # "Always the longest option" per locale (ties broken at random), and how many items have
    # their correct option strictly the longest.
    longest: tuple[tuple[str, float], ...]
    longest_strict: tuple[tuple[str, int], ...]

    @property
    def worst_longest(self) -> tuple[str, float]:
        """Return the locale where picking the longest option scores best, with that score."""
        return max(self.longest, key=lambda pair: pair[1], default=("en", 0.0))


def option_bias(items: Iterable[ChoiceItem], seeds: Sequence[int] | None = None) -> OptionBias:
    """Measure the position and length biases of ``items`` (a bank's or a pack's choice items).

    ``seeds`` are the display orders drawn per item (default: BIAS_DRAWS spread over them).
    """
    chosen = list(items)
    if not chosen:
        return OptionBias(0, 0.0, (), 0.0, 0.0, tuple((loc, 0.0) for loc in LOCALES),
                          tuple((loc, 0) for loc in LOCALES))
    n = len(chosen)
    if seeds is None:
        seeds = range(-(-BIAS_DRAWS // n))
    widest = max(len(q.choices) for q in chosen)
    positions = Counter(q.correct_key for q in chosen)
    shown_first = sum(
        display_order(q, seed).choices[0].correct for q in chosen for seed in seeds
    )
    longest = []
    strict = []
    for locale in LOCALES:
        credits = [_longest_credit(q, locale) for q in chosen]
        longest.append((locale, sum(c for c, _ in credits) / n))
        strict.append((locale, sum(s for _, s in credits)))
    return OptionBias(
        items=n,
        chance=sum(1 / len(q.choices) for q in chosen) / n,
        correct_by_position=tuple((letter(i), positions[letter(i)]) for i in range(widest)),
        first_stored=positions[letter(0)] / n,
        first_shown=shown_first / (n * max(1, len(seeds))),
        longest=tuple(longest),
        longest_strict=tuple(strict),
    )


def bias_lines(bias: OptionBias) -> list[str]:
    """Return the bias report as a few plain-text lines (for `content validate`)."""
    if not bias.items:
        return ["Option bias: no choice questions"]
    positions = " · ".join(f"{key} {count}" for key, count in bias.correct_by_position)
    longest = ", ".join(
        f"{loc} {score:.0%} ({count} strictly longest)"
        for (loc, score), (_, count) in zip(bias.longest, bias.longest_strict, strict=True)
    )
    return [
        f"Option bias over {bias.items} choice questions (chance {bias.chance:.0%})",
        f"  correct option by stored position: {positions}",
        f"  always the first stored option:   {bias.first_stored:.0%} (options are never shown so)",
        f"  always the first shown option:    {bias.first_shown:.0%} (shuffled per round)",
        f"  always the longest option:        {longest}",
    ]
