"""The bot's own sentences in English and Simplified Chinese (questions carry their own text)."""

from __future__ import annotations

from bot.core.kernel.sentences import (
    boards,
    channels,
    chat,
    learning,
    packs,
    people,
    quality,
    rounds,
)

# One table for t(); each feature's sentences live in their own module, and no key is in two.
_STRINGS: dict[str, dict[str, str]] = {}
for _part in (boards, channels, chat, learning, packs, people, quality, rounds):
    if _twice := _STRINGS.keys() & _part.STRINGS.keys():
        raise ValueError(f"sentence keys in two modules: {sorted(_twice)}")
    _STRINGS.update(_part.STRINGS)


def t(locale: str, key: str, **values: object) -> str:
    """Return the sentence ``key`` in ``locale`` (English when missing), with values filled in."""
    variants = _STRINGS[key]
    template = variants.get(locale) or variants["en"]
    return template.format(**values)


def all_keys() -> list[str]:
    """Return every sentence key, for the test that both locales are complete."""
    return sorted(_STRINGS)


def locales_of(key: str) -> list[str]:
    """Return the locales a sentence exists in."""
    return sorted(_STRINGS[key])
