"""Validate the YAML question bank: questions (choice, text, code) and explain cards.

Every item carries a stable ``id`` and a ``version``: rounds and answers store both, so editing a
question (and bumping its version) never rewrites history.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

LOCALES: tuple[str, ...] = ("en", "zh-CN")
ItemId = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]{2,63}$")]
SeedRef = Annotated[str, Field(pattern=r"^\d{3}:\d{1,3}$")]
Topic = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{1,40}$")]
Difficulty = Annotated[int, Field(ge=1, le=3)]

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# Chinese never puts a space between two Chinese characters, nor around full-width punctuation;
# YAML's folded blocks (">-") insert one wherever an author wrapped a Chinese line.
_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_SPACE_BETWEEN_CJK = re.compile(f"(?<=[{_CJK}]) +(?=[{_CJK}])")
_SPACE_AFTER_FULL_WIDTH = re.compile(r"(?<=[，。；：！？、）」』]) +")
_SPACE_BEFORE_FULL_WIDTH = re.compile(r" +(?=[，。；：！？、）」』])")


def tidy_chinese(text: str) -> str:
    """Remove the spaces line folding left inside Chinese text; keep those beside Latin."""
    text = _SPACE_BETWEEN_CJK.sub("", text)
    text = _SPACE_AFTER_FULL_WIDTH.sub("", text)
    return _SPACE_BEFORE_FULL_WIDTH.sub("", text)


class Localized(_Frozen):
    """Text in every supported locale; both are required so no channel gets a gap."""

    en: str = Field(min_length=1)
    zh_CN: str = Field(min_length=1, alias="zh-CN")

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @field_validator("zh_CN")
    @classmethod
    def _tidy(cls, value: str) -> str:
        return tidy_chinese(value)

    def get(self, locale: str) -> str:
        """Return the text for ``locale``, falling back to English."""
        return self.zh_CN if locale == "zh-CN" else self.en


class Choice(_Frozen):
    """One option of a multiple-choice question; every wrong option says why it is wrong."""

    key: str = Field(pattern=r"^[A-F]$")
    text: Localized
    correct: bool = False
    why: Localized | None = None


def _check_refs(seed_refs: list[str], related: list[str]) -> None:
    """Refuse a seed question listed both as tested (``seed_refs``) and as only ``related``."""
    both = sorted(set(seed_refs) & set(related))
    if both:
        raise ValueError(f"{', '.join(both)} in both seed_refs and related: an item either "
                         "tests a seed question's point or only relates to it")


class _ItemBase(_Frozen):
    id: ItemId
    version: int = Field(ge=1)
    topics: list[Topic] = Field(min_length=1)
    difficulty: Difficulty
    # Seed questions whose point this item really tests: coverage counts these and nothing else.
    # Empty for an item beyond the seeds (most PyTorch 2.x items: the seed documents predate it).
    seed_refs: list[SeedRef] = Field(default_factory=list)
    # Seed questions the item only touches or shares a topic with: shown, never counted.
    related: list[SeedRef] = Field(default_factory=list)
    prompt: Localized
    explanation: Localized
    explain_links: list[ItemId] = Field(default_factory=list)

    @model_validator(mode="after")
    def _each_ref_once(self) -> _ItemBase:
        _check_refs(self.seed_refs, self.related)
        return self

    @property
    def topic(self) -> str:
        """Return the primary topic (the first one listed)."""
        return self.topics[0]


class ChoiceItem(_ItemBase):
    """A multiple-choice question answered by button or by its letter."""

    kind: Literal["choice"]
    choices: list[Choice] = Field(min_length=2, max_length=6)

    @model_validator(mode="after")
    def _one_correct_and_reasons(self) -> ChoiceItem:
        keys = [c.key for c in self.choices]
        if keys != [chr(ord("A") + i) for i in range(len(keys))]:
            raise ValueError("choice keys must be A, B, C, ... in order")
        if sum(c.correct for c in self.choices) != 1:
            raise ValueError("exactly one choice must be correct")
        missing = [c.key for c in self.choices if not c.correct and c.why is None]
        if missing:
            raise ValueError(f"wrong choices need a 'why': {', '.join(missing)}")
        return self

    @property
    def correct_key(self) -> str:
        """Return the letter of the correct choice."""
        return next(c.key for c in self.choices if c.correct)


class NumericAnswer(_Frozen):
    """A numeric answer accepted within a tolerance."""

    value: float
    abs_tol: float = Field(default=0.0, ge=0)
    rel_tol: float = Field(default=1e-9, ge=0)


class TextItem(_ItemBase):
    """A short free-text question: a word, an API name, a number or a shape."""

    kind: Literal["text"]
    # Canonical answer first; the rest are aliases. Matching folds case, whitespace and
    # surrounding punctuation such as backticks, "()" and a leading "torch."/"x.".
    accepted: list[str] = Field(min_length=1)
    # Plausible wrong answers that fuzzy matching must never accept (e.g. "view" for "reshape").
    rejected: list[str] = Field(default_factory=list)
    numeric: NumericAnswer | None = None
    fuzzy: bool = True


class Example(_Frozen):
    """A visible example shown with a code challenge."""

    call: str
    result: str


class Tolerance(_Frozen):
    """Closeness rule for floating-point comparisons of one dtype."""

    rtol: float = Field(ge=0)
    atol: float = Field(ge=0)


DEFAULT_TOLERANCES: dict[str, Tolerance] = {
    "float64": Tolerance(rtol=1e-7, atol=1e-9),
    "float32": Tolerance(rtol=1e-5, atol=1e-6),
    "bfloat16": Tolerance(rtol=1.6e-2, atol=1e-3),
    "float16": Tolerance(rtol=1e-3, atol=1e-4),
}


class GradCheck(_Frozen):
    """Check gradients: backward from a hidden upstream gradient, compare input grads."""

    wrt: list[int] = Field(min_length=1)  # positional argument indices that require grad
    upstream_seed: int = 0


class Checks(_Frozen):
    """PyTorch-aware properties a result must have beyond matching values."""

    tolerances: dict[str, Tolerance] = Field(default_factory=dict)  # overrides per dtype
    dtype: bool = True  # result dtype must equal the reference's
    device: bool = True  # result must be on the device the inputs were on
    result_requires_grad: bool | None = None  # None: not checked
    inputs_unmodified: bool = True  # no in-place change to any input
    contiguous: bool = False  # result must be contiguous
    grad: GradCheck | None = None

    def tolerance(self, dtype: str) -> Tolerance:
        """Return the tolerance for ``dtype`` (exact for integer and bool dtypes)."""
        return self.tolerances.get(dtype) or DEFAULT_TOLERANCES.get(dtype) or Tolerance(
            rtol=0.0, atol=0.0
        )


class HiddenTests(_Frozen):
    """Hidden test cases, made on the trusted side by a seeded generator.

    ``generator`` is Python source (trusted: it ships with the bank) that defines
    ``cases(g: torch.Generator) -> list[dict]``; each dict has ``args`` (a list) and optionally
    ``kwargs`` (a dict) of tensors and plain values. The reference solution runs on the same
    inputs to produce the expected outputs, which never enter the sandbox.
    """

    seed: int = 0
    generator: str = Field(min_length=10)


class CodeSpec(_Frozen):
    """Everything needed to run and grade a code challenge."""

    entrypoint: str
    signature: str
    starter: str
    solution: str
    examples: list[Example] = Field(default_factory=list)
    tests: HiddenTests
    checks: Checks = Field(default_factory=Checks)
    requires: list[Literal["cuda"]] = Field(default_factory=list)
    # A CUDA challenge names the CPU challenge that teaches the same idea, so a channel whose
    # executor has no GPU still meets it (content.coverage checks that it resolves).
    cpu_counterpart: ItemId | None = None
    timeout_s: float = Field(default=5.0, gt=0, le=30)
    memory_mb: int = Field(default=512, ge=256, le=8192)

    @field_validator("entrypoint")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not _IDENTIFIER.match(value):
            raise ValueError("entrypoint must be a Python identifier")
        return value

    @model_validator(mode="after")
    def _counterpart_only_for_cuda(self) -> CodeSpec:
        if self.cpu_counterpart is not None and "cuda" not in self.requires:
            raise ValueError("only a challenge that requires cuda names a cpu_counterpart")
        return self


class CodeItem(_ItemBase):
    """A code challenge: write a function; it runs in the sandbox on hidden tests."""

    kind: Literal["code"]
    code: CodeSpec


# A shape's parameter: a fixed integer, or an inclusive [lo, hi] range drawn once per verdict.
ShapeValue = int | Annotated[list[int], Field(min_length=2, max_length=2)]
MAX_SPEED_SHAPES = 6


class SpeedShape(_Frozen):
    """One named input shape of a speed challenge: keyword parameters for ``make_inputs``."""

    model_config = ConfigDict(frozen=True, extra="allow")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,23}$")

    @model_validator(mode="after")
    def _parameters(self) -> SpeedShape:
        params = self.model_extra or {}
        if not params:
            raise ValueError(f"shape {self.name!r} gives no parameters")
        for key, value in params.items():
            if not _IDENTIFIER.match(key):
                raise ValueError(f"shape {self.name!r}: parameter {key!r} is not an identifier")
            if isinstance(value, bool) or not isinstance(value, int | list):
                raise ValueError(f"shape {self.name!r}: {key} must be an integer or [lo, hi]")
            if isinstance(value, list) and (
                len(value) != 2 or not all(type(v) is int for v in value) or value[0] > value[1]
            ):
                raise ValueError(f"shape {self.name!r}: {key} must be [lo, hi] with lo <= hi")
        return self

    @property
    def params(self) -> dict[str, int | list[int]]:
        """Return the shape's parameters (without its name)."""
        return dict(self.model_extra or {})

    @property
    def drawn(self) -> bool:
        """Say whether any parameter is a range drawn per verdict."""
        return any(isinstance(v, list) for v in self.params.values())


class SpeedSpec(_Frozen):
    """Everything needed to time a speed challenge: two codes, an input maker, shapes.

    ``reference`` (slow, correct) and ``solution`` (the item's own fast one) both define
    ``entrypoint``; ``inputs`` defines ``make_inputs(g, **params)`` returning a tuple of
    arguments made with the seeded generator ``g``. The output is compared outside the sandbox
    with ``tolerance``; times come from the kernel's accounting of each run's cgroup.
    """

    entrypoint: str
    signature: str = Field(min_length=1)
    reference: str = Field(min_length=10)
    solution: str = Field(min_length=10)
    inputs: str = Field(min_length=10)
    shapes: list[SpeedShape] = Field(min_length=3, max_length=MAX_SPEED_SHAPES)
    tolerance: Tolerance
    target_speedup: float = Field(default=5.0, ge=1.1, le=1000)
    requires: list[Literal["cuda"]] = Field(default_factory=list)
    memory_mb: int = Field(default=512, ge=256, le=8192)

    @field_validator("entrypoint")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not _IDENTIFIER.match(value) or value == "make_inputs":
            raise ValueError("entrypoint must be a Python identifier (not make_inputs)")
        return value

    @model_validator(mode="after")
    def _shapes(self) -> SpeedSpec:
        names = [s.name for s in self.shapes]
        if len(set(names)) != len(names):
            raise ValueError("shape names must be unique")
        if not any(s.drawn for s in self.shapes):
            raise ValueError("at least one shape must draw a parameter from a [lo, hi] range")
        if "def make_inputs" not in self.inputs:
            raise ValueError("inputs must define make_inputs(g, **params)")
        for name in ("reference", "solution"):
            if f"def {self.entrypoint}" not in getattr(self, name):
                raise ValueError(f"{name} must define {self.entrypoint}")
        return self


class SpeedItem(_ItemBase):
    """A speed challenge: make the reference faster; timed in the sandbox, graded outside."""

    kind: Literal["speed"]
    speed: SpeedSpec

    @field_validator("id")
    @classmethod
    def _speed_id(cls, value: str) -> str:
        # Bank items are "speed.NAME"; a pack's are "p.PACK.NAME" (the pack namespaces them).
        if not (value.startswith("speed.") or value.startswith("p.")):
            raise ValueError("a speed item's id starts with 'speed.'")
        return value


class ExplainCard(_Frozen):
    """A short concept card with a runnable example, shown by ``/explain TOPIC``."""

    id: ItemId
    version: int = Field(ge=1)
    kind: Literal["explain"]
    topic: Topic
    aliases: list[str] = Field(default_factory=list)
    seed_refs: list[SeedRef] = Field(default_factory=list)
    related: list[SeedRef] = Field(default_factory=list)
    title: Localized
    body: Localized
    # Runs in CI (with torch) and must finish cleanly; printed output is compared when given.
    example: str = Field(min_length=10)
    expected_output: str | None = None
    see_also: list[ItemId] = Field(default_factory=list)

    @model_validator(mode="after")
    def _each_ref_once(self) -> ExplainCard:
        _check_refs(self.seed_refs, self.related)
        return self


def localized_fields(
    entry: ChoiceItem | TextItem | CodeItem | SpeedItem | ExplainCard,
) -> Iterator[
    tuple[str, Localized]
]:
    """Yield (field name, text) for every translatable text of a question or card."""
    if isinstance(entry, ExplainCard):
        yield "title", entry.title
        yield "body", entry.body
        return
    yield "prompt", entry.prompt
    yield "explanation", entry.explanation
    if isinstance(entry, ChoiceItem):
        for choice in entry.choices:
            yield f"choices.{choice.key}.text", choice.text
            if choice.why is not None:
                yield f"choices.{choice.key}.why", choice.why


# The one alias for "a question of any kind" (ids of explain cards are not questions).
Question = ChoiceItem | TextItem | CodeItem
# Speed challenges are kept apart (Bank.speed): they are timed, not judged, so the flows that
# pick and judge questions never meet one by accident.
AnyItem = Annotated[
    ChoiceItem | TextItem | CodeItem | SpeedItem | ExplainCard, Field(discriminator="kind")
]
