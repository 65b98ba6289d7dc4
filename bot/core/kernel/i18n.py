"""The bot's own sentences in English and Simplified Chinese (questions carry their own text).

A sentence names a command as ``{/KEY}`` (``{/privacy}``): each front end calls its commands
differently (Discord and Slack ``/quiz-privacy``, the console ``/privacy``), so the name is
filled in for the front end being spoken to (:func:`speaking_to`), from :data:`COMMAND_NAMES`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from bot.core.kernel.sentences import (
    boards,
    browser,
    channels,
    chat,
    console,
    described,
    learning,
    live,
    packs,
    people,
    quality,
    rounds,
    signin,
    speed,
    verdicts,
    web,
)

PLATFORMS = ("discord", "slack", "console")
# What each command is called on each front end, without the slash: words people type, so they
# live with the sentences. The registry (bot/core/kernel/commands.py) declares the rest.
COMMAND_NAMES: dict[str, dict[str, str]] = {
    "explain": {"discord": "explain", "slack": "explain", "console": "explain"},
    "quiz": {"discord": "quiz", "slack": "quiz", "console": "quiz"},
    "leaderboard": {"discord": "leaderboard", "slack": "leaderboard", "console": "leaderboard"},
    "stats": {"discord": "stats", "slack": "quiz-stats", "console": "stats"},
    "settings": {"discord": "quiz-settings", "slack": "quiz-settings", "console": "setup"},
    "forget-me": {"discord": "quiz-forget-me", "slack": "quiz-forget-me",
                  "console": "forget-me"},
    "reports": {"discord": "quiz-reports", "slack": "quiz-reports", "console": "reports"},
    "insights": {"discord": "quiz-insights", "slack": "quiz-insights", "console": "insights"},
    "privacy": {"discord": "quiz-privacy", "slack": "quiz-privacy", "console": "privacy"},
    "remind": {"discord": "quiz-remind", "slack": "quiz-remind", "console": "remind"},
    "pack": {"discord": "quiz-pack", "slack": "quiz-pack", "console": "pack"},
    "web": {"discord": "quiz-web", "slack": "quiz-web", "console": "web"},
    "live": {"discord": "quiz-live", "slack": "quiz-live", "console": "live"},
    "speed": {"discord": "quiz-speed", "slack": "quiz-speed", "console": "speed"},
}
# Outside a request (the scheduler's posts and reminders) no front end is set: Discord's names
# are used, which are Slack's too except for stats, and no scheduled sentence names /stats.
_DEFAULT_PLATFORM = "discord"
_speaking_to: ContextVar[str] = ContextVar("speaking_to", default=_DEFAULT_PLATFORM)


def slash(key: str, platform: str | None = None) -> str:
    """Return the command ``key`` as members of ``platform`` type it (``/quiz-privacy``)."""
    names = COMMAND_NAMES[key]
    return "/" + names.get(platform or _speaking_to.get(), names[_DEFAULT_PLATFORM])


@contextmanager
def speaking_to(platform: str) -> Iterator[None]:
    """Name commands as ``platform`` calls them in every sentence made inside the block."""
    token = _speaking_to.set(platform if platform in PLATFORMS else _DEFAULT_PLATFORM)
    try:
        yield
    finally:
        _speaking_to.reset(token)


# One table for t(); each feature's sentences live in their own module, and no key is in two.
_STRINGS: dict[str, dict[str, str]] = {}
# One module per line: features add theirs without touching another's line.
_PARTS = (
    boards,
    browser,
    channels,
    chat,
    console,
    described,
    learning,
    live,
    packs,
    people,
    quality,
    rounds,
    signin,
    speed,
    verdicts,
    web,
)
for _part in _PARTS:
    if _twice := _STRINGS.keys() & _part.STRINGS.keys():
        raise ValueError(f"sentence keys in two modules: {sorted(_twice)}")
    _STRINGS.update(_part.STRINGS)


# A count's word: "{n|review|reviews}" reads "review" when the value n is 1, else "reviews".
_PLURAL = re.compile(r"\{(\w+)\|([^{}|]*)\|([^{}|]*)\}")


def t(locale: str, key: str, **values: object) -> str:
    """Return the sentence ``key`` in ``locale`` (English when missing), with values filled in."""
    variants = _STRINGS[key]
    template = variants.get(locale) or variants["en"]
    if "|" in template:
        template = _PLURAL.sub(
            lambda m: m.group(2) if values.get(m.group(1)) == 1 else m.group(3), template)
    if "{/" in template:
        names = {f"/{name}": slash(name) for name in COMMAND_NAMES}
        return template.format(**names, **values)
    return template.format(**values)


def typed_list(names: Iterable[str]) -> str:
    """Return ids a member types (topics, cards) as code, comma-joined.

    They are what ``/quiz autograd`` and ``/explain detach`` take, not words of the sentence,
    so every language shows them as they are typed, in code font.
    """
    return ", ".join(f"`{name}`" for name in names)


def all_keys() -> list[str]:
    """Return every sentence key, for the test that both locales are complete."""
    return sorted(_STRINGS)


def locales_of(key: str) -> list[str]:
    """Return the locales a sentence exists in."""
    return sorted(_STRINGS[key])
