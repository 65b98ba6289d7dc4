"""Load the YAML bank from disk and report every bad file with its path and field."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from content.schema import AnyItem, CodeItem, ExplainCard, SpeedItem
from content.schema import Question as Question  # re-exported: callers import it from here

BANK_ROOT = Path(__file__).resolve().parent

_ITEM = TypeAdapter[Any](AnyItem)
# libyaml parses the bank about ten times faster than the pure-Python loader (the bank is
# loaded at every start of the bot and executor, and by the tests); same safe constructors.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(text: str) -> Any:
    """Parse one YAML document with the safe loader (plain data only, never objects)."""
    return yaml.load(text, Loader=_SAFE_LOADER)  # noqa: S506 - a safe loader


@dataclass(frozen=True)
class ContentProblem:
    """One thing wrong with one file of the bank."""

    path: str
    location: str
    message: str

    def __str__(self) -> str:
        where = f" {self.location}" if self.location else ""
        return f"{self.path}:{where}: {self.message}"


class ContentError(Exception):
    """Raise when the bank does not validate; carries every problem found, not just the first."""

    def __init__(self, problems: list[ContentProblem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(frozen=True)
class Bank:
    """The validated bank: questions, speed challenges and explain cards by id."""

    questions: dict[str, Question] = field(default_factory=dict)
    cards: dict[str, ExplainCard] = field(default_factory=dict)
    # Timed "make it faster" challenges: apart from the questions, which are judged.
    speed: dict[str, SpeedItem] = field(default_factory=dict)

    def question(self, item_id: str) -> Question:
        """Return the question ``item_id`` or raise KeyError."""
        return self.questions[item_id]

    def code_items(self) -> list[CodeItem]:
        """Return the code challenges, in id order."""
        return [q for _, q in sorted(self.questions.items()) if isinstance(q, CodeItem)]

    def speed_items(self) -> list[SpeedItem]:
        """Return the speed challenges, in id order."""
        return [s for _, s in sorted(self.speed.items())]

    def all_entries(self) -> Iterator[Question | SpeedItem | ExplainCard]:
        """Yield every question, speed challenge and card, in that order, each in id order."""
        yield from (q for _, q in sorted(self.questions.items()))
        yield from self.speed_items()
        yield from (c for _, c in sorted(self.cards.items()))


def _yaml_files(root: Path) -> list[Path]:
    return sorted(p for sub in ("questions", "explain") for p in (root / sub).glob("*.yaml"))


def _location(loc: Iterable[int | str]) -> str:
    parts = [str(p) for p in loc]
    # The discriminated union adds the kind as a path step ("items.3.choice.prompt"): keep it,
    # it tells the author which schema the item was checked against.
    return ".".join(parts)


def load_bank(root: Path = BANK_ROOT) -> Bank:
    """Load and validate every YAML file under ``root``; raise ContentError listing all problems.

    This checks each entry against the schema and ids for uniqueness. What spans entries (links
    between them, seed coverage, sizes) is ``content.coverage``'s job, so a bank whose links
    name cards still being written loads, and ``torchquiz content validate`` lists the gaps.
    """
    problems: list[ContentProblem] = []
    questions: dict[str, Question] = {}
    cards: dict[str, ExplainCard] = {}
    speed: dict[str, SpeedItem] = {}
    seen: dict[str, str] = {}
    for path in _yaml_files(root):
        rel = path.relative_to(root).as_posix()
        try:
            document = read_yaml(path.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            problems.append(ContentProblem(rel, "", f"not valid YAML: {exc}"))
            continue
        if not isinstance(document, dict) or not isinstance(document.get("items"), list):
            problems.append(ContentProblem(rel, "", "expected a mapping with an 'items' list"))
            continue
        for index, raw in enumerate(document["items"]):
            label = raw.get("id", "?") if isinstance(raw, dict) else "?"
            try:
                entry = _ITEM.validate_python(raw)
            except ValidationError as exc:
                for err in exc.errors():
                    location = f"items[{index}] ({label}) {_location(err['loc'])}".rstrip()
                    problems.append(ContentProblem(rel, location, err["msg"]))
                continue
            if entry.id in seen:
                problems.append(
                    ContentProblem(rel, f"items[{index}]", f"duplicate id {entry.id!r} "
                                   f"(first in {seen[entry.id]})")
                )
                continue
            seen[entry.id] = rel
            if isinstance(entry, ExplainCard):
                cards[entry.id] = entry
            elif isinstance(entry, SpeedItem):
                speed[entry.id] = entry
            else:
                questions[entry.id] = entry
    if problems:
        raise ContentError(problems)
    return Bank(questions=questions, cards=cards, speed=speed)

