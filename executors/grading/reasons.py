"""Say why a submission failed as a reason code with plain parameters, in no language.

The grader and the engine explain a failure as a :class:`Reason`: a code from :data:`REASONS`,
parameters that are numbers, lists of numbers, or short words from a fixed character set (a
dtype, a device, a parameter name), and ``quote``: the sandbox's own words (an exception's type
and text, a returned type's name, a dict key), which stay untrusted and are shown to people only
through the one sanitiser, ``safetext.inert``. Each front end words the reason in its channel's
language (the bot's sentences ``verdict.<code>``); ``english`` words it for the verdict's
``message``, the field ``torchquiz exec --json`` has always printed.

A reason is checked against its code's parameter table whenever one is made, and so again when
a verdict arrives over the network (``Verdict.from_json``): nothing but the table's words,
numbers and lists reaches a sentence.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# The sandbox's own words in a reason: room for an exception's first lines, no more.
MAX_QUOTE_CHARS = 600
MAX_LIST = 16
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")
# A place inside a result, written by the grader from the reference's structure: result[0]['x'].
PATH = re.compile(r"result(\[(\d{1,6}|'[A-Za-z0-9_ .-]{0,40}')\]){0,16}")

Param = int | float | str | tuple[int, ...] | None


def _int(value: Any) -> bool:
    return type(value) is int and -(2**63) <= value < 2**63


def _opt_int(value: Any) -> bool:
    return value is None or _int(value)


def _float(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and abs(value) < 1e300


def _ints(value: Any) -> bool:
    return (isinstance(value, tuple | list) and len(value) <= MAX_LIST
            and all(type(x) is int and abs(x) < 2**62 for x in value))


def _word(value: Any) -> bool:
    return type(value) is str and WORD.fullmatch(value) is not None


def _opt_word(value: Any) -> bool:
    return value == "" or _word(value)


def _path(value: Any) -> bool:
    return value == "" or (type(value) is str and PATH.fullmatch(value) is not None)


def _one_of(*choices: str) -> Callable[[Any], bool]:
    allowed = frozenset(choices)

    def check(value: Any) -> bool:
        return type(value) is str and value in allowed

    check.__doc__ = "one of " + ", ".join(sorted(allowed))
    return check


KINDS = ("tensor", "none", "bool", "int", "float", "str", "bytes", "list", "tuple", "dict",
         "value")
# How far off a value is, relative to the tolerance (``power``: the power of ten, for "power").
DISTANCES = ("nan", "inf", "exact", "rounding", "power", "far")
HINTS = ("none", "forgot_return", "use_item", "return_tensor")
NOUNS = ("bool", "str", "bytes", "int", "value")

_kind, _distance, _hint, _noun = _one_of(*KINDS), _one_of(*DISTANCES), _one_of(*HINTS), \
    _one_of(*NOUNS)

# Where in a run a case-level failure happened; any case-level reason may carry these.
CASE_CONTEXT: dict[str, Callable[[Any], bool]] = {
    "test": _opt_int, "tests": _opt_int, "path": _path, "grad_arg": _opt_int,
    "grad_name": _opt_word,
}
# Where a whole run stopped (a limit, a crash): the test after the last one that reported.
RUN_CONTEXT: dict[str, Callable[[Any], bool]] = {"at": _opt_int, "of": _opt_int}


@dataclass(frozen=True)
class Spec:
    """One reason code: its parameters, whether it sits inside a test, its English wording."""

    params: Mapping[str, Callable[[Any], bool]]
    english: str
    case: bool = False  # a failure inside one test: CASE_CONTEXT applies, else RUN_CONTEXT
    quoted: bool = False  # carries the sandbox's own words in ``quote``


def _case(english: str, **params: Callable[[Any], bool]) -> Spec:
    return Spec(params, english, case=True, quoted="{quote}" in english)


def _run(english: str, **params: Callable[[Any], bool]) -> Spec:
    return Spec(params, english, quoted="{quote}" in english)


_TOL = {"rtol": _float, "atol": _float, "distance": _distance, "power": _int}

REASONS: dict[str, Spec] = {
    # A result compared with the reference (executors/grading/grader.py).
    "device_mismatch": _case("device mismatch: expected a tensor on {expected}, got one on {got}",
                             expected=_word, got=_word),
    "shape_mismatch": _case("shape mismatch: expected {expected:shape}, got {got:shape}",
                            expected=_ints, got=_ints),
    "dtype_mismatch": _case("dtype mismatch: expected torch.{expected}, got torch.{got}",
                            expected=_word, got=_word),
    "needs_no_grad": _case("result requires grad; detach it (expected a tensor with "
                           "requires_grad=False)"),
    "needs_grad": _case("result does not require grad; keep it in the autograd graph "
                        "(expected a tensor with requires_grad=True)"),
    "not_contiguous": _case("result is not contiguous (strides {strides:shape}); call "
                            ".contiguous() before returning", strides=_ints),
    "values_differ_exact": _case("values differ{index:at}: {count:share}; integer and bool "
                                 "results must match exactly",
                                 index=_ints, count=_int, numel=_int),
    "values_differ": _case("values differ{index:at}: {count:share} (rtol {rtol:g}, atol "
                           "{atol:g}); that element is {distance:far}",
                           index=_ints, count=_int, numel=_int, **_TOL),
    "number_differs": _case("the returned number differs (rtol {rtol:g}, atol {atol:g}): it is "
                            "{distance:far}", **_TOL),
    "type_mismatch": _case("expected {expected:kind}, got {got:kind}{hint:hint}",
                           expected=_kind, expected_len=_opt_int, got=_kind, got_len=_opt_int,
                           hint=_hint),
    "not_gradable": _case("your function returned a {quote}, which cannot be graded; return "
                          "tensors, numbers, lists, tuples or dicts"),
    "missing_key": _case("missing key {quote} in the returned dict"),
    "unexpected_key": _case("unexpected key {quote} in the returned dict"),
    "plain_differs": _case("the returned {noun} is not the expected one", noun=_noun),
    "reference_unchecked": _case("the reference returned {kind:kind}, which the grader cannot "
                                 "check", kind=_kind, kind_len=_opt_int),
    "input_changed": _case("your function changed its input {arg:input}", arg=_int,
                           name=_opt_word),
    "grad_missing": _case("is missing: your result is not connected to that input (did you "
                          "detach it, use .data, or build a new tensor?)"),
    # The submission raised (the quote is the exception's type and text).
    "exception": _case("{quote}{line:line}", line=_opt_int),
    "grad_failed": _case("computing the gradient failed: {quote}{line:line}",
                         line=_opt_int),
    "out_of_memory": _case("ran out of memory (limit {limit_mb} MiB): {quote}{line:line}",
                           limit_mb=_int, line=_opt_int),
    "load_failed": _run("your code could not be loaded: {quote}{line:line}",
                        line=_opt_int),
    "load_out_of_memory": _run("ran out of memory while loading (limit {limit_mb} MiB): "
                               "{quote}{line:line}", limit_mb=_int, line=_opt_int),
    "malformed_results": _run("your code left its results malformed ({quote}); forking "
                              "processes or writing to the harness's channel does this"),
    "stopped_before_load": _run("your code stopped before it was loaded"),
    "stopped_during": _run("your code stopped{at:during}"),
    # How a run ended (executors/engine.py).
    "timeout": _run("time limit exceeded: your code ran longer than {seconds:g} s{at:during}",
                    seconds=_float),
    "memory_limit": _run("memory limit exceeded: your code used more than {limit_mb} MiB"
                         "{at:during}", limit_mb=_int),
    "output_limit": _run("output limit exceeded: your code printed more than {limit:size}; "
                         "print less", limit=_int),
    "result_limit": _run("your results are larger than {limit:size}; return less data",
                         limit=_int),
    "crashed": _run("your code crashed (signal {signal}){at:where}", signal=_word),
    "broken_stream": _run("your code broke the result stream{at:where} ({quote})"),
    "exit_status": _run("your code exited with status {status}{at:where}", status=_int),
    "exited_early": _run("your code exited early{at:where}"),
    # Refused before anything ran (executors/engine.py precheck, supports).
    "not_utf8": _run("your code is not valid UTF-8 (byte 0x{byte:02x} at offset {offset})",
                     byte=_int, offset=_int),
    "unpaired_surrogate": _run("your code is not valid UTF-8 (unpaired surrogate at offset "
                               "{offset})", offset=_int),
    "too_large": _run("your code is {size:size}; the limit is {limit:size}", size=_int,
                      limit=_int),
    "nul_byte": _run("your code contains a NUL byte (at offset {offset}); remove it",
                     offset=_int),
    "empty": _run("your code is empty"),
    # Refused by the bot's remote executor before a replica was asked (bot/remote_executor.py).
    "pack_unsendable": _run("this team pack's challenge cannot be sent to the executor: {quote}"),
    "pack_gone": _run("this team pack's challenge is no longer available, so it cannot be graded"),
    "needs_cuda": _run("challenge {challenge} needs a CUDA GPU, and this executor has none; "
                       "run it on a GPU executor", challenge=_word),
}


class ReasonError(ValueError):
    """Refuse a reason whose code or parameters are not the table's."""


@dataclass(frozen=True)
class Reason:
    """Why a submission failed: a code from REASONS, its parameters, the sandbox's own words."""

    code: str
    params: Mapping[str, Param] = field(default_factory=dict)
    quote: str = ""

    def __post_init__(self) -> None:
        spec = REASONS.get(self.code) if type(self.code) is str else None
        if spec is None:
            raise ReasonError("unknown reason code")
        if not isinstance(self.params, Mapping):
            raise ReasonError("reason params must be a mapping")
        context = CASE_CONTEXT if spec.case else RUN_CONTEXT
        for name, value in self.params.items():
            check = spec.params.get(name) or context.get(name)
            if check is None:
                raise ReasonError(f"reason {self.code}: unknown parameter {name!r}")
            if not check(value):
                raise ReasonError(f"reason {self.code}: bad parameter {name!r}")
        if missing := [name for name in spec.params if name not in self.params]:
            raise ReasonError(f"reason {self.code}: missing parameter {missing[0]!r}")
        if type(self.quote) is not str or len(self.quote) > MAX_QUOTE_CHARS:
            raise ReasonError(f"reason {self.code}: bad quote")
        try:
            self.quote.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ReasonError(f"reason {self.code}: quote is not valid Unicode") from exc
        # Lists arrive from JSON as lists: keep tuples, so the reason stays immutable.
        object.__setattr__(self, "params", {
            name: tuple(value) if isinstance(value, list) else value
            for name, value in self.params.items()})

    def to_json(self) -> dict[str, Any]:
        """Return the reason as JSON-ready data."""
        params = {name: list(value) if isinstance(value, tuple) else value
                  for name, value in self.params.items()}
        return {"code": self.code, "params": params, "quote": self.quote}

    @classmethod
    def from_json(cls, data: Any) -> Reason:
        """Rebuild a reason from its JSON form; ReasonError names what is wrong."""
        if not isinstance(data, dict) or set(data) != {"code", "params", "quote"}:
            raise ReasonError("a reason is an object with code, params and quote")
        if not isinstance(data["params"], dict) or len(data["params"]) > 32:
            raise ReasonError("reason params must be a small object")
        return cls(data["code"], dict(data["params"]), data["quote"])

    def english(self) -> str:
        """Return the reason in English: the verdict's ``message``."""
        spec = REASONS[self.code]
        text = _FIELD.sub(lambda m: _english_field(self, m.group(1), m.group(2)), spec.english)
        if not spec.case:
            return text
        p = self.params
        if p.get("grad_arg") is not None:
            label = f"gradient wrt {_argument(p.get('grad_name') or '', p['grad_arg'])}"
            if self.code == "grad_missing":
                text = f"{label} {text}"
            elif self.code.startswith("values_differ") and not p.get("path"):
                text = f"{label} differs{text.removeprefix('values differ')}"
            else:
                text = f"{label}: {_path_prefix(p)}{text}"
        else:
            text = _path_prefix(p) + text
        if p.get("test") is not None:
            text = f"test {p['test']} of {p.get('tests')}: {text}"
        return text


_FIELD = re.compile(r"\{(\w+)(?::([\w]+))?\}")


def _path_prefix(params: Mapping[str, Param]) -> str:
    path = params.get("path")
    return f"{path}: " if path else ""


def _argument(name: Any, index: Any) -> str:
    return f"{name} (argument {index})" if name else f"argument {index}"


def size_text(n: int) -> str:
    """Return a byte count as people read it: ``16 KiB`` or ``1,234 bytes``."""
    return f"{n:,} bytes" if n < 1024 or n % 1024 else f"{n // 1024} KiB"


def shape_text(shape: Any) -> str:
    """Return a shape the way Python prints a tuple: ``(3, 4)``, ``(5,)``, ``()``."""
    return str(tuple(int(s) for s in shape))


def kind_text(kind: str, length: int | None = None) -> str:
    """Return a short English noun phrase for a kind of value (``a tuple of 2 items``)."""
    if kind in ("list", "tuple"):
        return f"a {kind} of {length} item{'s' if length != 1 else ''}"
    if kind == "dict":
        return f"a dict with {length} key{'s' if length != 1 else ''}"
    return {"none": "None", "bytes": "bytes", "int": "an int", "value": "a value"}.get(
        kind, f"a {kind}")


def far_text(distance: str, power: int) -> str:
    """Say in English how far a value is off, relative to the tolerance."""
    return {
        "nan": "one of the two is NaN and the other is not",
        "inf": "one of the two is infinite and the other is not",
        "exact": "an exact match is required",
        "rounding": "just outside the tolerance (rounding? check the dtype you compute in)",
        "power": f"about 10^{power} times the tolerance",
        "far": "far outside the tolerance (over 1000 times)",
    }[distance]


_HINTS = {"none": "", "forgot_return": " (did you forget to return?)",
          "use_item": " (use .item() to return a Python number)",
          "return_tensor": " (return the tensor itself, not .item())"}


def _english_field(reason: Reason, name: str, style: str | None) -> str:
    p = reason.params
    value = reason.quote if name == "quote" else p.get(name)
    if style is None:
        return str(value)
    if style == "g":
        return f"{value:g}"
    if style == "02x":
        return f"{value:02x}"
    if style == "shape":
        return shape_text(value)
    if style == "at":
        return f" at [{', '.join(str(i) for i in value)}]" if value else ""  # type: ignore[union-attr]
    if style == "share":
        total = p["numel"]
        return f"{value} of {total} elements differ" if total != 1 else "the value differs"
    if style == "far":
        return far_text(str(value), int(p.get("power") or 0))  # type: ignore[arg-type]
    if style == "kind":
        return kind_text(str(value), p.get(f"{name}_len"))  # type: ignore[arg-type]
    if style == "hint":
        return _HINTS[str(value)]
    if style == "input":
        return _argument(p.get("name"), value).replace(" (", " in place (", 1) if p.get(
            "name") else f"argument {value} in place"
    if style == "line":
        return f" (line {value})" if value is not None else ""
    if style == "size":
        return size_text(int(value))  # type: ignore[arg-type]
    if style in ("during", "where"):
        if value is None:
            return "" if style == "during" else " before it was loaded"
        return f" during test {value} of {p.get('of')}"
    raise KeyError(style)
