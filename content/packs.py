"""Parse and check a team's question pack: one YAML file, hostile until proven otherwise.

A pack is ``pack: {id, title, version, locales}`` followed by ``items:`` in the bank's own
schema (content/schema.py). Item ids are written locally (``softmax-rows``) and namespaced
here (``p.<pack id>.softmax-rows``), so no pack can collide with the shipped bank or another
pack. Parsing is bounded before anything is built: the file's size, its UTF-8, the nesting
depth, the number of nodes after alias expansion, and the tags (plain data only). Every problem
says where it is in the file (``line L, column C``) when that is known.

The code a pack carries (generators, reference solutions) is never run here; the sandboxed
checks live in ``executors.grading.pack_challenges``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from content.coverage import PACK_LUCK, BiasRule, check_option_bias
from content.loader import Bank, ContentProblem
from content.options import option_bias
from content.schema import (
    LOCALES,
    AnyItem,
    ChoiceItem,
    CodeItem,
    ExplainCard,
    Question,
    SpeedItem,
)

MAX_PACK_BYTES = 1024 * 1024
MAX_DEPTH = 40
# Nodes counted as if every alias were expanded: a billion-laughs file stops here, early.
MAX_EXPANDED_NODES = 200_000
MAX_ITEMS = 500
PACK_PREFIX = "p."
PACK_ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,23}$")
LOCAL_ID = re.compile(r"^[a-z0-9][a-z0-9.-]{0,35}$")
# A pack has no seed question behind it; the schema wants a reference, so it gets this one.
NO_SEED = "000:0"
_PLAIN_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp")
)
_ITEM = TypeAdapter[Any](AnyItem)
_FAST_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Fields of the schema that hold a Localized text (a pack may give one string for all locales).
_LOCALIZED = ("prompt", "explanation", "title", "body")


@dataclass(frozen=True)
class PackProblem(ContentProblem):
    """One problem of a pack file: where it is, the item (its id as written) and the field."""

    item: str = ""
    field_name: str = ""  # a dotted path inside the item ("choices", "code.solution")


_PLACE = re.compile(r"line (\d+), column (\d+)")
_PYDANTIC_PREFIXES = ("Value error, ", "Assertion failed, ")


def problem_json(problem: ContentProblem) -> dict[str, Any]:
    """Return a problem as ``pack validate --json`` lists it under ``problems``."""
    found = _PLACE.fullmatch(problem.location) if problem.location else None
    return {"line": int(found.group(1)) if found else None,
            "column": int(found.group(2)) if found else None,
            "item": getattr(problem, "item", "") or None,
            "field": getattr(problem, "field_name", "") or None,
            "message": problem.message}


def _clean(message: str) -> str:
    """Drop pydantic's own prefix ("Value error, ...") from a validator's message."""
    for prefix in _PYDANTIC_PREFIXES:
        if message.startswith(prefix):
            return message[len(prefix):]
    return message


class PackFormatError(ValueError):
    """Raise when a pack file cannot be read as bounded, plain-data YAML."""

    def __init__(self, message: str, where: str = "") -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}" if where else message)


def _place(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


class _BoundedLoader(yaml.SafeLoader):
    """The safe loader with limits on depth, expanded size and tags, checked while composing."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._expanded = 0
        self._sizes: dict[int, int] = {}

    def _count(self, n: int, mark: Any) -> None:
        self._expanded += n
        if self._expanded > MAX_EXPANDED_NODES:
            raise PackFormatError(
                f"the file expands to more than {MAX_EXPANDED_NODES:,} values (aliases that "
                "repeat aliases, a 'YAML bomb'?); write the values out instead", _place(mark))

    def compose_node(self, parent: Any, index: Any) -> Any:
        """Compose one node, refusing deep nesting, alias bombs and language-specific tags."""
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            node = super().compose_node(parent, index)
            self._count(self._sizes.get(id(node), 1), mark)
            return node
        event = self.peek_event()  # type: ignore[no-untyped-call]
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise PackFormatError(f"nested more than {MAX_DEPTH} levels deep",
                                  _place(event.start_mark))
        tag = getattr(event, "tag", None)
        if tag is not None and tag not in ("!", *_PLAIN_TAGS):
            raise PackFormatError(
                f"tag {tag!r} is not allowed: a pack holds plain data only (strings, numbers, "
                "lists, mappings), never language-specific objects", _place(event.start_mark))
        before = self._expanded
        node = super().compose_node(parent, index)
        self._depth -= 1
        size = self._expanded - before + 1
        self._sizes[id(node)] = size
        self._count(1, getattr(node, "start_mark", None))
        return node


def decode_pack(data: bytes) -> str:
    """Return the pack's text, refusing oversize files and invalid UTF-8 before any parsing."""
    if len(data) > MAX_PACK_BYTES:
        raise PackFormatError(
            f"the file is {len(data):,} bytes; a pack may be at most {MAX_PACK_BYTES:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        bad = data[exc.start : exc.start + 1].hex()
        raise PackFormatError(f"not valid UTF-8: byte 0x{bad} at offset {exc.start}",
                              f"line {line}, column {column}") from exc


def read_pack_yaml(text: str) -> tuple[Any, Any]:
    """Parse ``text`` with limits; return (plain data, the composed node tree for places)."""
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise PackFormatError("the file is empty")
        # Plain tags only (checked above), so this builds dicts, lists and scalars, no objects.
        return loader.construct_document(node), node
    except PackFormatError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise PackFormatError(f"not valid YAML: {exc.problem or exc.context}",
                              _place(mark)) from exc
    except yaml.YAMLError as exc:
        raise PackFormatError(f"not valid YAML: {exc}") from exc
    except RecursionError as exc:  # a belt to the depth limit's braces
        raise PackFormatError(f"nested more than {MAX_DEPTH} levels deep") from exc
    finally:
        loader.dispose()


# a channel's pack choice names the shipped bank so (bot/core/packs/library.py)
SHIPPED_BANK = "bank"


class PackHeader(BaseModel):
    """The ``pack:`` header: who the pack is and which locales its texts are written in."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=PACK_ID.pattern)
    title: str = Field(min_length=1, max_length=100)
    version: int = Field(ge=1, le=1_000_000)
    locales: list[str] = Field(min_length=1)
    # False: chat never shows the reference solutions of this pack's code challenges (by
    # default they show once nobody can score with them: the round closed, the tries spent).
    show_solutions: bool = True

    def model_post_init(self, _context: Any) -> None:
        """Refuse locales the bot does not speak, and the id that names the shipped bank."""
        if self.id == SHIPPED_BANK:
            raise ValueError(f"the id {SHIPPED_BANK!r} names the shipped questions in a "
                             "channel's packs (packs=bank,my-team); choose another id")
        unknown = [loc for loc in self.locales if loc not in LOCALES]
        if unknown:
            raise ValueError(f"unknown locales {unknown}; use {list(LOCALES)}")


@dataclass(frozen=True)
class Pack:
    """A parsed pack: its header, its entries with namespaced ids, and the source text."""

    header: PackHeader
    questions: dict[str, Question] = field(default_factory=dict)
    cards: dict[str, ExplainCard] = field(default_factory=dict)
    text: str = ""
    speed: dict[str, SpeedItem] = field(default_factory=dict)
    document: str = ""  # the parsed file as JSON: what the store keeps for a fast start

    @property
    def id(self) -> str:
        """Return the pack's id."""
        return self.header.id

    def code_items(self) -> list[CodeItem]:
        """Return the pack's code challenges, in id order."""
        return [q for _, q in sorted(self.questions.items()) if isinstance(q, CodeItem)]

    def speed_items(self) -> list[SpeedItem]:
        """Return the pack's speed challenges, in id order."""
        return [q for _, q in sorted(self.speed.items())]

    def entries(self) -> Iterator[Question | SpeedItem | ExplainCard]:
        """Yield every question, speed challenge and card, each group in id order."""
        yield from (q for _, q in sorted(self.questions.items()))
        yield from self.speed_items()
        yield from (c for _, c in sorted(self.cards.items()))


def with_packs(bank: Bank, packs: list[Pack]) -> Bank:
    """Return the bank one workspace sees: the shipped bank plus that workspace's packs."""
    if not packs:
        return bank
    questions = dict(bank.questions)
    cards = dict(bank.cards)
    speed = dict(bank.speed)
    for pack in packs:
        questions.update(pack.questions)
        cards.update(pack.cards)
        speed.update(pack.speed)
    return Bank(questions=questions, cards=cards, speed=speed)


def item_prefix(pack_id: str) -> str:
    """Return the prefix every item id of pack ``pack_id`` carries."""
    return f"{PACK_PREFIX}{pack_id}."


def pack_of(item_id: str) -> str | None:
    """Return the pack id an item id belongs to, or None for a shipped bank item."""
    if not item_id.startswith(PACK_PREFIX):
        return None
    return item_id[len(PACK_PREFIX):].split(".", 1)[0] or None


def _fill_locales(value: Any) -> Any:
    """Let a one-language pack give a string (or one locale): every locale shows it as it is."""
    if isinstance(value, str):
        return {loc: value for loc in LOCALES}
    if isinstance(value, dict) and value and set(value) <= set(LOCALES):
        given = next(value[loc] for loc in LOCALES if loc in value)
        return {loc: value.get(loc, given) for loc in LOCALES}
    return value


def _prepare(raw: dict[str, Any], prefix: str, local_ids: set[str]) -> dict[str, Any]:
    out = dict(raw)
    out["id"] = prefix + str(raw.get("id"))
    out.setdefault("seed_refs", [NO_SEED])
    for name in _LOCALIZED:
        if name in out:
            out[name] = _fill_locales(out[name])
    if isinstance(out.get("choices"), list):
        out["choices"] = [
            {k: _fill_locales(v) if k in ("text", "why") else v for k, v in c.items()}
            if isinstance(c, dict) else c
            for c in out["choices"]
        ]

    def link(target: Any) -> Any:
        # A link names the pack's own card when it has one by that name, else the bank's.
        return prefix + target if isinstance(target, str) and target in local_ids else target

    for name in ("explain_links", "see_also"):
        if isinstance(out.get(name), list):
            out[name] = [link(t) for t in out[name]]
    code = out.get("code")
    if isinstance(code, dict) and isinstance(code.get("cpu_counterpart"), str):
        out["code"] = {**code, "cpu_counterpart": link(code["cpu_counterpart"])}
    return out


def _node_at(node: Any, path: list[Any]) -> Any:
    """Return the deepest node of the composed tree along ``path`` (keys and indexes)."""
    for step in path:
        if isinstance(node, yaml.MappingNode):
            found = next((v for k, v in node.value if getattr(k, "value", None) == step), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
            found = node.value[step] if 0 <= step < len(node.value) else None
        else:
            found = None
        if found is None:
            continue  # a step the data has not (the union's kind name, a missing field)
        node = found
    return node


def _where(root: Any, path: list[Any]) -> str:
    if root is None:
        return ""
    return _place(getattr(_node_at(root, path), "start_mark", None))


@dataclass(frozen=True)
class Parsed:
    """What parsing found: the pack (None when it could not be built) and every problem.

    ``items`` and ``cards`` count what the file holds, built or not (an item that failed its
    schema still counts); ``root`` and ``indexes`` place a field of an item in the file.
    """

    pack: Pack | None
    problems: tuple[ContentProblem, ...]
    places: dict[str, str] = field(default_factory=dict)  # item id -> where it starts
    items: int = 0
    cards: int = 0
    root: Any = None
    indexes: dict[str, int] = field(default_factory=dict)  # item id -> its index in 'items'

    def place(self, item_id: str, field_path: str = "") -> str:
        """Return where ``field_path`` (dotted) of item ``item_id`` is, else where it starts."""
        index = self.indexes.get(item_id)
        if index is None or self.root is None or not field_path:
            return self.places.get(item_id, "")
        return _where(self.root, ["items", index, *field_path.split(".")])


def parse_pack(data: bytes) -> Parsed:
    """Read a pack file: bounded YAML, the header, every item against the bank's schema."""
    try:
        text = decode_pack(data)
        document, root = read_pack_yaml(text)
    except PackFormatError as exc:
        return Parsed(None, (ContentProblem("pack", exc.where, exc.message),))
    parsed = _build(document, root, text)
    if parsed.pack is None:
        return parsed
    kept = json.dumps(document, ensure_ascii=False, separators=(",", ":"), default=str)
    return dataclasses.replace(parsed, pack=dataclasses.replace(parsed.pack, document=kept))


def load_stored_pack(text: str, document: str = "") -> Pack:
    """Load a pack the store holds: it passed ``parse_pack`` and every check when it was added.

    The bounded composer is pure Python (about ten times slower than libyaml, which is itself
    slower than JSON); a stored pack was bounded when it was added, and the database is the
    operator's, so a start reads the JSON kept beside the text (or, without it, the text with
    libyaml's safe loader: plain data only, as always). Raise ValueError if the pack no longer
    builds (a schema change since it was stored).
    """
    if len(text) > MAX_PACK_BYTES or len(document) > 4 * MAX_PACK_BYTES:
        raise ValueError("a stored pack is over the size limit")
    data = (json.loads(document) if document
            else yaml.load(text, Loader=_FAST_SAFE_LOADER))  # noqa: S506 - a safe loader
    parsed = _build(data, None, text)
    if parsed.pack is None or parsed.problems:
        raise ValueError("; ".join(p.message for p in parsed.problems[:3]))
    return parsed.pack


def _counts(raw_items: Any) -> tuple[int, int]:
    """Return (questions, cards) the file holds, built or not: a failed item counts too."""
    if not isinstance(raw_items, list) or len(raw_items) > MAX_ITEMS:
        return 0, 0
    cards = sum(1 for r in raw_items if isinstance(r, dict) and r.get("kind") == "explain")
    return len(raw_items) - cards, cards


def _build(document: Any, root: Any, text: str) -> Parsed:
    problems: list[ContentProblem] = []
    if not isinstance(document, dict) or set(document) != {"pack", "items"}:
        return Parsed(None, (ContentProblem(
            "pack", _where(root, []),
            "expected a mapping with exactly two keys: 'pack' (the header) and 'items'"),))
    n_items, n_cards = _counts(document["items"])
    try:
        header = PackHeader.model_validate(document["pack"])
    except ValidationError as exc:
        for err in exc.errors():
            path: list[Any] = ["pack", *err["loc"]]
            problems.append(PackProblem("pack", _where(root, path),
                                        f"{'.'.join(map(str, path))}: {_clean(err['msg'])}",
                                        field_name=".".join(map(str, path))))
        return Parsed(None, tuple(problems), items=n_items, cards=n_cards)
    raw_items = document["items"]
    if not isinstance(raw_items, list) or not raw_items:
        return Parsed(None, (ContentProblem("pack", _where(root, ["items"]),
                                            "'items' must be a non-empty list"),))
    if len(raw_items) > MAX_ITEMS:
        return Parsed(None, (ContentProblem("pack", _where(root, ["items"]),
                                            f"{len(raw_items)} items; at most {MAX_ITEMS}"),))
    prefix = item_prefix(header.id)
    local_ids = {r["id"] for r in raw_items if isinstance(r, dict) and isinstance(r.get("id"), str)}
    questions: dict[str, Question] = {}
    cards: dict[str, ExplainCard] = {}
    speed: dict[str, SpeedItem] = {}
    seen: dict[str, int] = {}
    places: dict[str, str] = {}
    indexes: dict[str, int] = {}
    for index, raw in enumerate(raw_items):
        here = ["items", index]
        if not isinstance(raw, dict):
            problems.append(ContentProblem("pack", _where(root, here), "an item is a mapping"))
            continue
        local = raw.get("id")
        if not isinstance(local, str) or not LOCAL_ID.match(local):
            problems.append(PackProblem(
                "pack", _where(root, [*here, "id"]),
                f"items[{index}].id {local!r}: use 1-36 of a-z 0-9 . - (starting with a letter "
                "or digit); the pack's id is added in front",
                item=local if isinstance(local, str) else "", field_name="id"))
            continue
        try:
            entry = _ITEM.validate_python(_prepare(raw, prefix, local_ids))
        except ValidationError as exc:
            problems += _item_problems(exc, raw, root, here, index, local)
            continue
        if entry.id in seen:
            problems.append(PackProblem(
                "pack", _where(root, [*here, "id"]),
                f"items[{index}]: duplicate id {local!r} (first at items[{seen[entry.id]}])",
                item=local, field_name="id"))
            continue
        seen[entry.id] = index
        places[entry.id] = _where(root, here)
        indexes[entry.id] = index
        if isinstance(entry, ExplainCard):
            cards[entry.id] = entry
        elif isinstance(entry, SpeedItem):
            speed[entry.id] = entry
        else:
            questions[entry.id] = entry
    pack = Pack(header=header, questions=questions, cards=cards, text=text, speed=speed)
    return Parsed(pack, tuple(problems), places, n_items, n_cards, root, indexes)


# A validator of a whole item speaks of one field: the error is placed there.
_WHOLE_ITEM_FIELD = {"choice": "choices"}


def _item_problems(exc: ValidationError, raw: dict[str, Any], root: Any, here: list[Any],
                   index: int, local: str) -> list[ContentProblem]:
    """Return one placed problem per schema error of item ``local``."""
    found: list[ContentProblem] = []
    for err in exc.errors():
        loc = list(err["loc"])
        # The discriminated union puts the item's kind first: no field of that name is meant
        # (a code item has a field 'code' too, and the error would point into it).
        if loc and loc[0] == raw.get("kind"):
            loc = loc[1:]
        if not loc and raw.get("kind") in _WHOLE_ITEM_FIELD:
            loc = [_WHOLE_ITEM_FIELD[str(raw["kind"])]]
        field_name = ".".join(str(p) for p in loc)
        label = f" {field_name}" if field_name else ""
        found.append(PackProblem("pack", _where(root, [*here, *loc]),
                                 f"items[{index}] ({local}){label}: {_clean(err['msg'])}",
                                 item=local, field_name=field_name))
    return found


def check_pack(
    pack: Pack, bank: Bank, places: dict[str, str] | None = None, *,
    parsed: Parsed | None = None,
) -> list[ContentProblem]:
    """Return what spans entries: ids against the bank, links, option bias (the bank's checks).

    ``parsed`` (what :func:`parse_pack` returned for ``pack``) places a link's problem at the
    link itself, named as the author wrote it.
    """
    from content.coverage import check_links  # the bank's own link check, on bank + pack

    if parsed is not None:
        places = parsed.places
    problems: list[ContentProblem] = [
        ContentProblem("pack", "", f"id {entry.id!r} is already in the shipped bank")
        for entry in pack.entries()
        if entry.id in bank.questions or entry.id in bank.cards or entry.id in bank.speed
    ]
    merged = Bank(questions={**bank.questions, **pack.questions},
                  cards={**bank.cards, **pack.cards}, speed={**bank.speed, **pack.speed})
    own = set(pack.questions) | set(pack.cards) | set(pack.speed)
    problems += [_link_problem(p, pack, bank, parsed)
                 for p in check_links(merged) if p.path in own]
    choices = [q for _, q in sorted(pack.questions.items()) if isinstance(q, ChoiceItem)]
    bias = option_bias(choices, locales=pack.header.locales)
    problems += check_option_bias(bias, BiasRule(enforced=True), luck=PACK_LUCK, where="pack")
    return [p if isinstance(p, PackProblem) else _placed(p, places or {}) for p in problems]


_LINK = re.compile(r"no (card|code challenge) '(.*)'")


def _link_problem(problem: ContentProblem, pack: Pack, bank: Bank,
                  parsed: Parsed | None) -> ContentProblem:
    """Return a broken link's problem in the author's words: their ids, the nearest card."""
    import difflib

    prefix = item_prefix(pack.id)
    item = problem.path.removeprefix(prefix)
    found = _LINK.fullmatch(problem.message)
    if found is None:
        return PackProblem("pack", parsed.place(problem.path) if parsed else "",
                           f"{item} {problem.location}: {problem.message}", item=item,
                           field_name=problem.location)
    what, target = found.groups()
    written = target.removeprefix(prefix)
    entry = pack.questions.get(problem.path) or pack.cards.get(problem.path)
    links = list(getattr(entry, problem.location.replace("code.", ""), None) or [])
    if problem.location == "code.cpu_counterpart":
        links = []
    step: list[Any] = [*problem.location.split("."), *([links.index(target)]
                                                      if target in links else [])]
    where = ""
    if parsed is not None and problem.path in parsed.indexes and parsed.root is not None:
        where = _where(parsed.root, ["items", parsed.indexes[problem.path], *step])
    message = f"{item} {problem.location}: no {what} {written!r}"
    if target.startswith(prefix):
        # Named as one of this pack's items, which did not build: its own error says why.
        message += " (that item of this pack has errors of its own, above)"
    elif what == "card":
        names = sorted({c.removeprefix(prefix) for c in (*pack.cards, *bank.cards)})
        near = difflib.get_close_matches(written, names, n=1, cutoff=0.6)
        if near:
            message += f"; did you mean {near[0]!r}?"
    return PackProblem("pack", where, message, item=item, field_name=problem.location)


def _placed(problem: ContentProblem, places: dict[str, str]) -> ContentProblem:
    return ContentProblem("pack", places.get(problem.path, problem.location),
                          f"{problem.path} {problem.location}: {problem.message}"
                          if problem.path != "pack" else problem.message)


HEADER_TEMPLATE = (
    "pack:\n  id: {id}\n  title: {id}\n  version: {version}\n  locales: [en]\nitems:\n"
)

SCAFFOLD = '''\
# A torchquiz question pack. Check it with `torchquiz pack validate FILE`;
# docs/authoring.md explains every field.
pack:
  id: my-team            # 2-24 of a-z 0-9 -; item ids below get "p.my-team." in front
  title: My team's PyTorch questions
  version: 1             # bump it when you change the pack
  locales: [en]          # the language the texts are written in

items:
  - id: broadcast-shape
    version: 1
    kind: choice
    topics: [tensors]
    difficulty: 1
    prompt: "What is the shape of `torch.ones(3, 1) + torch.ones(4)`?"
    choices:
      - key: A
        text: "`(3, 4)`"
        correct: true
      - key: B
        text: "`(3, 1)`"
        why: "The size-1 dimension stretches to match the other operand's 4."
      - key: C
        text: "An error is raised"
        why: "Trailing dimensions 1 and 4 are compatible: 1 broadcasts."
    explanation: >-
      Shapes align from the right; a size of 1 stretches,
      so (3, 1) and (4,) give (3, 4).
    explain_links: [broadcasting]

  - id: grad-attribute
    version: 1
    kind: text
    topics: [autograd]
    difficulty: 1
    prompt: "After `loss.backward()`, which attribute of a leaf tensor holds its gradient?"
    accepted: [grad, ".grad"]
    rejected: [grad_fn]
    explanation: >-
      `.grad` is filled on leaf tensors that require grad;
      `grad_fn` is the operation that made a tensor.

  - id: row-normalise
    version: 1
    kind: code
    topics: [tensors]
    difficulty: 2
    prompt: "Write `row_normalise(x)`: divide each row of a 2-D float tensor by its sum."
    explanation: >-
      `x.sum(dim=1, keepdim=True)` keeps a (rows, 1) shape
      that broadcasts over each row.
    code:
      entrypoint: row_normalise
      signature: "def row_normalise(x: torch.Tensor) -> torch.Tensor"
      starter: |
        import torch


        def row_normalise(x):
            raise NotImplementedError
      solution: |
        import torch


        def row_normalise(x):
            return x / x.sum(dim=1, keepdim=True)
      examples:
        - call: "row_normalise(torch.tensor([[1., 3.], [2., 2.]]))"
          result: "tensor([[0.2500, 0.7500], [0.5000, 0.5000]])"
      tests:
        seed: 7
        generator: |
          def cases(g):
              shapes = [(1, 3), (4, 5), (2, 8)]
              return [{"args": [torch.rand(s, generator=g) + 0.1]} for s in shapes]
'''
