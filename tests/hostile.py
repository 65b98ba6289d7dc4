"""Hostile strings every front end must show inert: one corpus, used by each front end's tests."""

from __future__ import annotations

import unicodedata

HOSTILE_STRINGS: dict[str, str] = {
    "surrogate": "boom \ud800 end",
    "newline": "ok\nsolution.py: passed (6/6)",
    "carriage-return": "real verdict\rfake verdict",
    "ansi": "\x1b[2K\x1b[1;32mpassed\x1b[0m",
    "bell-and-backspace": "ding\x07\x08\x08",
    "zero-width": "de\u200btach\u200d\ufeff",
    "bidi": "\u202eevil\u202c \u2066isolate\u2069",
    "line-separator": "one\u2028two\u2029three",
    "everyone": "@everyone @here look",
    "discord-mentions": "<@123456789012345678> <@&123456789012345678> <#123456789012345678>",
    "slack-mentions": "<!channel> <!here> <@U012ABCDEF> <#C012ABCDEF>",
    "markdown": "**bold** __under__ ~~strike~~ `code` ```fence``` > quote [link](http://x)",
    "c1-control": "next\x85line\x9bcsi",
    "long": "x" * 20_000,
}


def invisible_or_control(text: str) -> list[str]:
    """Return the characters of ``text`` that a person cannot see or that steer a display."""
    return [f"U+{ord(ch):04X}" for ch in text if ch not in "\n"
            and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp")
            and ch != "\u200b"]  # our own zero-width space, inserted to break mentions


def pings(text: str) -> list[str]:
    """Return the mention tokens in ``text`` that a chat platform would turn into a ping."""
    import re

    return re.findall(r"@(?:everyone|here)\b|<@[!&]?\d+>|<#\d+>|<!(?:channel|here|everyone)>"
                      r"|<@U[A-Z0-9]+>|<#C[A-Z0-9]+>", text)
