"""Load the bilingual glossary and find Chinese texts that use a rendering it rules out."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from content.loader import BANK_ROOT, ContentError, ContentProblem, Question, read_yaml
from content.schema import ExplainCard, localized_fields

GLOSSARY_FILE = "glossary.yaml"


class Term(BaseModel):
    """One concept: its English name, the one Chinese rendering to use, and renderings to avoid."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    en: str = Field(min_length=1)
    zh_CN: str = Field(min_length=1, alias="zh-CN")
    avoid: tuple[str, ...] = ()


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


def avoided_renderings(
    entries: Iterable[Question | ExplainCard], terms: Iterable[Term]
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
