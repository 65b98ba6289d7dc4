r"""Make text that came out of a sandbox (or any member) inert before a person reads it.

Everything a submission produced — what it printed, its exception text, the type names and
values quoted in a verdict message — is shown to people only through :func:`inert`, whatever
the front end: `torchquiz exec`, the console, Discord, Slack, or a log line. One function, so
the rules cannot drift apart between front ends:

- control characters (C0, C1, DEL), zero-width and bidi controls, line and paragraph separators
  and lone surrogates are shown as visible escapes (``\x1b``, ``\u202e``), so nothing can move
  the cursor, recolour a terminal, reorder a line or hide text;
- ``one_line`` text keeps to one line (a newline becomes the two characters ``\n``), so a
  submission cannot print a line of its own that reads like a verdict;
- the length is capped with a visible marker;
- on a chat surface, mentions (``@everyone``, ``@here``, ``<@123>``, ``<@&123>``, ``<!channel>``,
  ``<!here>``, ``<#C123>``) are broken and markdown is escaped, so text can neither ping a
  channel nor draw a fake bot message. Code blocks get their fences broken instead: inside a
  block nothing renders, so only a way out of it matters.

This module imports nothing but the standard library: the bot's adapters use it without torch.
"""

from __future__ import annotations

import re
import unicodedata
from enum import StrEnum

ONE_LINE_CHARS = 300
BLOCK_CHARS = 1800
ELLIPSIS = "…"
# Invisible characters that change how text around them is displayed (category Cf covers the
# zero-width and bidi controls; Zl/Zp are line and paragraph separators).
_FORMAT_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp", "Co", "Cn"}
_ZWSP = "\u200b"  # our own zero-width space: it breaks a token without being visible


class Surface(StrEnum):
    """Where the text will be shown; each chat has its own markup to neutralise."""

    TERMINAL = "terminal"  # exec's human output, the console
    LOG = "log"  # a log line: always one line
    DISCORD = "discord"  # Discord markdown text (embed descriptions, fields, content)
    DISCORD_CODE = "discord_code"  # inside a Discord ``` block
    SLACK = "slack"  # Slack mrkdwn text
    SLACK_PLAIN = "slack_plain"  # a Slack plain_text object (no markup is parsed there)
    SLACK_CODE = "slack_code"  # inside a Slack ``` block


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _visible(text: str, *, one_line: bool) -> str:
    text = text.replace("\r\n", "\n")
    out = []
    for ch in text:
        if ch == "\n":
            out.append("\\n" if one_line else "\n")
        elif ch == "\t":
            out.append(" " if one_line else "    ")
        elif ch.isprintable() and unicodedata.category(ch) not in _FORMAT_CATEGORIES:
            out.append(ch)
        else:
            out.append(_escape_char(ch))
    return "".join(out)


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(ELLIPSIS))] + ELLIPSIS


# Discord: a backslash before a markdown character shows it literally. `<` starts mentions,
# channel links, timestamps and custom emoji; `@` starts @everyone/@here.
_DISCORD_MARKDOWN = re.compile(r"([\\*_~`|>#\-\[\]()<])")
_AT_MENTION = re.compile(r"@(everyone|here|[!&]?\d)", re.IGNORECASE)
# Slack: &, < and > are the only characters its own escaping covers; mrkdwn has no escape
# character, so formatting characters are separated from their neighbours with a zero-width
# space instead.
_SLACK_FORMATTING = re.compile(r"([*_~`>])")


def _discord(text: str) -> str:
    text = _DISCORD_MARKDOWN.sub(r"\\\1", text)
    return _AT_MENTION.sub("@" + _ZWSP + r"\1", text)


def _slack(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _SLACK_FORMATTING.sub(_ZWSP + r"\1" + _ZWSP, text)
    return _AT_MENTION.sub("@" + _ZWSP + r"\1", text)


def _code_block(text: str) -> str:
    # A fence ends the block; inside it nothing else renders. Mentions are broken anyway, in
    # case a client renders them (belt and braces: posts also go out with mentions disabled).
    text = text.replace("```", "`" + _ZWSP + "`" + _ZWSP + "`").replace("<", "<" + _ZWSP)
    return _AT_MENTION.sub("@" + _ZWSP + r"\1", text)


def inert(
    text: str,
    surface: Surface = Surface.TERMINAL,
    *,
    one_line: bool = False,
    limit: int | None = None,
) -> str:
    """Return ``text`` made safe to show on ``surface``: visible, bounded, unable to ping.

    ``limit`` counts characters of the original text kept (markup escapes come on top of it);
    it defaults to one line's or one block's worth.
    """
    if not isinstance(text, str):
        text = str(text)
    one_line = one_line or surface is Surface.LOG
    cap = limit if limit is not None else (ONE_LINE_CHARS if one_line else BLOCK_CHARS)
    visible = _cap(_visible(text, one_line=one_line), cap)
    if surface is Surface.DISCORD:
        return _discord(visible)
    if surface is Surface.SLACK:
        return _slack(visible)
    if surface in (Surface.DISCORD_CODE, Surface.SLACK_CODE):
        escaped = visible
        if surface is Surface.SLACK_CODE:  # Slack still parses &, < and > inside code
            escaped = escaped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return _code_block(escaped)
    if surface is Surface.SLACK_PLAIN:
        # Slack parses no markup in plain_text; a broken "<" is belt and braces for mentions.
        return _AT_MENTION.sub("@" + _ZWSP + r"\1", visible.replace("<", "<" + _ZWSP))
    return visible
