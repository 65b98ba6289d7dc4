"""Find English prose in what a Simplified Chinese channel was shown.

What is left of a text once code (backticks, fenced blocks), commands (``/quiz-privacy``),
mentions, URLs, numbers and dates, emoji codes, the members' own names and a short list of
proper nouns are taken out must have no Latin-letter word: a word left is English prose.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

# A Chinese channel's test bank: the core tests' items with Chinese texts (code in backticks).
ZH_BANK = Path(__file__).resolve().parent / "zh_bank"

# Names that stay as they are in a Chinese sentence.
PROPER_NOUNS = frozenset({
    "PyTorch", "CUDA", "GPU", "CPU", "FSRS", "Python", "torchquiz", "Discord", "Slack", "ID",
    "PNG", "YAML", "ASCII", "IANA", "UTC", "ONNX", "TorchScript",
    "English",  # the language menu names each language in itself: English, 简体中文
    "KiB", "MiB",  # units, written so in Chinese too
})
# The option letters of a choice question (buttons "A", "B", answers "A." in a reveal).
OPTION_LETTERS = frozenset("ABCDEF")

_FENCED = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"(?:https?|attachment)://\S+")
_MENTION = re.compile(r"<[#@!][^>]*>")  # Slack's <#C1|name>, <@U1>, <!here>; Discord's <#1>
_EMOJI = re.compile(r":[a-z0-9_+-]+:")  # Slack's :warning:
_COMMAND = re.compile(r"(?<![\w/])/[a-z][a-z-]*")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'.-]*[A-Za-z0-9]|[A-Za-z]")


def english_words(text: str, *, names: Iterable[str] = ()) -> list[str]:
    """Return the Latin-letter words of ``text`` that are neither code nor allowed names.

    ``names`` are members' and channels' names (their own words, shown as they typed them).
    """
    for pattern in (_FENCED, _CODE, _URL, _MENTION, _EMOJI, _COMMAND):
        text = pattern.sub(" ", text)
    allowed = PROPER_NOUNS | OPTION_LETTERS | set(names)
    found = []
    for name in names:  # a name may hold a slash (a typed zone): take it out whole
        text = re.sub(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", " ", text)
    for word in _WORD.findall(text):
        if word in allowed or word.strip(".-_") in allowed:
            continue
        found.append(word)
    return found


# An ASCII colon, comma, semicolon, question or exclamation mark right after a Chinese
# character, or ASCII parentheses around Chinese text: Chinese prose takes the full-width ones.
_CJK = "\u3400-\u9fff\u3000-\u303f\uff00-\uffef"
_ASCII_MARK = re.compile(rf"[{_CJK}][:,;?!]|\([^()`]*[{_CJK}][^()`]*\)")


def ascii_marks(text: str) -> list[str]:
    """Return where ``text`` sets ASCII punctuation in Chinese prose (code spans aside)."""
    text = _CODE.sub(" ", _FENCED.sub(" ", text))
    return [m.group(0) for m in _ASCII_MARK.finditer(text)]


def ascii_mark_lines(texts: Iterable[str]) -> list[str]:
    """Return each line of ``texts`` with ASCII punctuation in Chinese prose."""
    return sorted({f"{line!r}: {marks}" for text in texts
                   for line in _FENCED.sub(" ", text).splitlines()
                   if (marks := ascii_marks(line))})


def english_lines(texts: Iterable[str], *, names: Iterable[str] = ()) -> list[str]:
    """Return each line of ``texts`` with English prose in it, with the words found."""
    names = list(names)
    found = []
    for text in texts:
        # A fenced block spans lines: strip those first, then look line by line.
        for line in _FENCED.sub(" ", text).splitlines():
            if words := english_words(line, names=names):
                found.append(f"{line!r}: {words}")
    return sorted(set(found))
