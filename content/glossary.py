"""Load the bilingual glossary and find Chinese texts that use a rendering it rules out."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from content.loader import BANK_ROOT, ContentError, ContentProblem, Question, read_yaml
from content.schema import ExplainCard, SpeedItem, localized_fields

GLOSSARY_FILE = "glossary.yaml"


class Term(BaseModel):
    """One concept: its English name, the one Chinese rendering to use, and renderings to avoid."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    en: str = Field(min_length=1)
    zh_CN: str = Field(min_length=1, alias="zh-CN")
    avoid: tuple[str, ...] = ()
    # English phrases that, when a text says them, its zh-CN twin must render as ``zh-CN``
    # (what `avoid` cannot catch when the wrong rendering is right for another term).
    required_for: tuple[str, ...] = ()
    # The English word must not stand untranslated in zh-CN prose (code spans are fine).
    translate: bool = False
    # With ``translate``: the English words looked for (default: ``en`` itself), each also in
    # its plural. An API name stays in code font (`backward()`); a call written bare, like
    # backward() in a title, is code and not prose, so a word followed by "(" is not flagged.
    words: tuple[str, ...] = ()

    def untranslated(self) -> re.Pattern[str] | None:
        """Return the pattern of this term's English words in prose, if it must be translated."""
        if not self.translate:
            return None
        names = "|".join(re.escape(w) for w in (self.words or (self.en,)))
        return re.compile(rf"(?<![A-Za-z_.])(?:{names})(?:e?s)?(?![A-Za-z_(])", re.IGNORECASE)


class _GlossaryFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    terms: tuple[Term, ...] = Field(min_length=1)


def load_glossary(root: Path = BANK_ROOT) -> tuple[Term, ...] | None:
    """Return the glossary of the bank at ``root``, or None when the bank has none.

    Raise ContentError when the file is malformed, or when an avoided rendering is part of a
    rendering the glossary prescribes (every correct use would then be flagged).
    """
    path = root / GLOSSARY_FILE
    if not path.is_file():
        return None
    try:
        terms = _GlossaryFile.model_validate(read_yaml(path.read_text(encoding="utf-8"))).terms
    except (yaml.YAMLError, ValidationError) as exc:
        problem = ContentProblem(GLOSSARY_FILE, "", f"not a valid glossary: {exc}")
        raise ContentError([problem]) from exc
    clashes = [
        ContentProblem(GLOSSARY_FILE, term.en, f"avoided {bad!r} is part of {other.zh_CN!r} "
                       f"({other.en})")
        for term in terms
        for bad in term.avoid
        for other in terms
        if bad in other.zh_CN
    ]
    if clashes:
        raise ContentError(clashes)
    return terms


_CODE_SPAN = re.compile(r"`[^`]*`")


def _prose(text: str) -> str:
    return _CODE_SPAN.sub(" ", text)


def missing_renderings(
    entries: Iterable[Question | SpeedItem | ExplainCard], terms: Iterable[Term]
) -> list[ContentProblem]:
    """Return zh-CN texts that leave a term untranslated or render it other than prescribed."""
    problems = []
    rules = list(terms)
    for entry in entries:
        for name, text in localized_fields(entry):
            en, zh = _prose(text.en).lower(), _prose(text.zh_CN)
            for term in rules:
                said = [p for p in term.required_for if p.lower() in en]
                if said and term.zh_CN not in zh:
                    problems.append(ContentProblem(
                        entry.id, name, f"the English says {said[0]!r}; zh-CN must render it "
                        f"as {term.zh_CN!r}"))
                pattern = term.untranslated()
                found = pattern.search(zh) if pattern is not None else None
                if found is not None:
                    problems.append(ContentProblem(
                        entry.id, name, f"zh-CN leaves {found.group()!r} untranslated outside "
                        f"code font; the glossary renders it as {term.zh_CN!r}"))
    return problems


def avoided_renderings(
    entries: Iterable[Question | SpeedItem | ExplainCard], terms: Iterable[Term]
) -> list[ContentProblem]:
    """Return one problem per zh-CN text that contains a rendering the glossary rules out.

    Aliases are not checked: they are what members type, so other renderings belong there.
    """
    rules = [(bad, term) for term in terms for bad in term.avoid]
    return [
        ContentProblem(entry.id, name, f"zh-CN uses {bad!r}; the glossary renders "
                       f"{term.en!r} as {term.zh_CN!r}")
        for entry in entries
        for name, text in localized_fields(entry)
        for bad, term in rules
        if bad in text.zh_CN
    ]
