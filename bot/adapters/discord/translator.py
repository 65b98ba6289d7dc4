"""Give every slash command, option and choice its description in each language the bot speaks.

discord.py asks a ``Translator`` for every string of the command tree when it syncs, with where
the string sits (a command's description, an option's, a choice's name); Discord then shows
each member the description in their client's language. The English ones are the registry's;
the others are the sentences ``discord.describe.*`` and ``discord.choice.*``
(``bot/core/kernel/sentences/described.py``).
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.core.desk.catalog import REGISTRY
from bot.core.kernel.i18n import all_keys, t

PLATFORM = "discord"
# Discord's locales the bot has sentences in, besides English (the default descriptions).
LOCALES = {discord.Locale.chinese: "zh-CN"}


def _key_of(qualified_name: str) -> str | None:
    """Return ``discord.describe.KEY[.SUB]`` for a command's name as Discord shows it."""
    top, _, sub = qualified_name.partition(" ")
    spec = next((c for c in REGISTRY.on(PLATFORM) if c.name(PLATFORM) == top), None)
    if spec is None:
        return None
    return f"discord.describe.{spec.key}" + (f".{sub}" if sub else "")


def sentence_key(location: Where, data: Any) -> str | None:
    """Return the sentence that describes ``data`` at ``location`` (None: nothing to translate)."""
    if location in (Where.command_description, Where.group_description):
        return _key_of(data.qualified_name)
    if location is Where.parameter_description:
        key = _key_of(data.command.qualified_name)
        return None if key is None else f"{key}.{data.name}"
    if location is Where.choice_name and (data.name, data.value) in _CHOICES:
        # Only the registry's own choices: an autocomplete answer (a topic) stays as it is.
        return f"discord.choice.{data.value}"
    return None


_CHOICES = frozenset(pair for c in REGISTRY.on(PLATFORM) for o in c.options for pair in o.choices)


class CommandTranslator(app_commands.Translator):
    """Translate the command tree's descriptions and choice names from the bot's sentences."""

    def __init__(self) -> None:
        self._known = frozenset(all_keys())

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        """Return ``string`` in ``locale`` where the bot has it, else None (Discord's default)."""
        language = LOCALES.get(locale)
        if language is None:
            return None
        key = sentence_key(context.location, context.data)
        if key is None or key not in self._known:
            return None
        return t(language, key)[:100]  # Discord refuses a longer description
