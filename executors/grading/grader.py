"""Grade the data-only records a sandboxed run sent back against the trusted reference.

Nothing here executes or unpickles what the sandbox produced: records arrive already decoded
by ``executors.grading.wire`` into plain lists, dicts, numbers and ``TensorData``; tensors are
rebuilt from raw bytes only to compare values. The message for the first failing test is what
the user reads: it names the kind of mismatch (type, shape, dtype, device, autograd property,
which element and how far off relative to the tolerance) and never a hidden input or a hidden
expected value, so messages cannot be replayed into a hard-coded answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from executors.grading.challenges import Case, Challenge
from executors.grading.verdict import Status
from executors.grading.wire import TensorData, Unsupported

# Long exception texts (a 10,000-line traceback message) would swamp a chat message.
MAX_ERROR_CHARS = 300


@dataclass(frozen=True)
class Grade:
    """Summarise graded records: status, tests passed, the first failure, and completeness."""

    status: Status
    passed_tests: int
    total_tests: int
    message: str
    # False when the stream stopped before every test reported (a crash or a kill) and nothing
    # before that point explains the outcome; the caller then says why the run ended.
    final: bool = True


class _Malformed(Exception):
    """Signal a record that does not have the harness's shape."""


def clip(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """Return ``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def describe_error(error: Any) -> tuple[str, bool]:
    """Return the user-facing text of an error record and whether it was out-of-memory."""
    if not isinstance(error, dict):
        raise _Malformed("error is not a mapping")
    kind, message, memory = error.get("type"), error.get("message"), error.get("memory", False)
    if not isinstance(kind, str) or not isinstance(message, str) or not isinstance(memory, bool):
        raise _Malformed("error fields have the wrong types")
    kind = clip(kind, 80)
    text = f"{kind}: {clip(message)}" if message.strip() else kind
    line = error.get("line")
    # SyntaxError messages already name the line; others get it from the harness's traceback.
    if type(line) is int and f"line {line}" not in text:
        text += f" (line {line})"
    return text, memory


# ---------------------------------------------------------------- describing values


def shape_text(shape: Sequence[int]) -> str:
    """Return a shape the way Python prints a tuple: ``(3, 4)``, ``(5,)``, ``()``."""
    return str(tuple(int(s) for s in shape))


def kind_text(value: Any) -> str:
    """Return a short noun phrase for what a value is (``a tuple of 2 items``)."""
    if isinstance(value, torch.Tensor | TensorData):
        return "a tensor"
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, int):
        return "an int"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a str"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, list | tuple):
        noun = "list" if isinstance(value, list) else "tuple"
        return f"a {noun} of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, dict):
        return f"a dict with {len(value)} key{'s' if len(value) != 1 else ''}"
    if isinstance(value, Unsupported):
        return f"a {value.type_name}"
    return f"a {type(value).__name__}"


def index_text(index: Sequence[int]) -> str:
    """Return an element index as the user would write it: ``[2, 0]``."""
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


# ---------------------------------------------------------------- comparing values


@dataclass(frozen=True)
class _Rules:
    challenge: Challenge
    check_flags: bool  # requires_grad and contiguity apply to results, not to gradients


def how_far(diff: float, allowed: float) -> str:
    """Say how far a value is off, in multiples of what the tolerance allows, never by how much.

    An exact distance plus the member's own value would give away the hidden expected value;
    an order of magnitude tells them whether to look for rounding or for a real mistake.
    """
    if math.isnan(diff):
        return "one of the two is NaN and the other is not"
    if math.isinf(diff):
        return "one of the two is infinite and the other is not"
    if allowed <= 0:
        return "an exact match is required"
    ratio = diff / allowed
    if ratio <= 10:
        return "just outside the tolerance (rounding? check the dtype you compute in)"
    if ratio <= 1000:
        return f"about 10^{round(math.log10(ratio))} times the tolerance"
    return "far outside the tolerance (over 1000 times)"


def _compare_values(expected: torch.Tensor, got: torch.Tensor, challenge: Challenge) -> str | None:
    """Compare element values of two same-shape CPU tensors; return the mismatch or None.

    The message names the first differing element and how far off it is relative to the
    tolerance; it never quotes a hidden expected value.
    """
    ref_dtype = expected.dtype
    exact = not (ref_dtype.is_floating_point or ref_dtype.is_complex)
    if exact and not (got.dtype.is_floating_point or got.dtype.is_complex):
        close = expected.to(torch.int64) == got.to(torch.int64)
        rtol = atol = 0.0
    else:
        wide = torch.complex128 if (expected.is_complex() or got.is_complex()) else torch.float64
        e, g = expected.to(wide), got.to(wide)
        tol = challenge.checks.tolerance(str(ref_dtype).removeprefix("torch."))
        rtol, atol = tol.rtol, tol.atol
        close = torch.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
    if bool(close.all()):
        return None
    bad = ~close
    count, total = int(bad.sum()), bad.numel()
    first = [int(i) for i in bad.nonzero()[0]] if bad.dim() else []
    where = f" at {index_text(first)}" if first else ""
    share = f"{count} of {total} elements differ" if total > 1 else "the value differs"
    if exact:
        return f"values differ{where}: {share}; integer and bool results must match exactly"
    wide = torch.complex128 if (expected.is_complex() or got.is_complex()) else torch.float64
    want = expected[tuple(first)].to(wide) if first else expected.to(wide)
    have = got[tuple(first)].to(wide) if first else got.to(wide)
    diff = float((have - want).abs())
    if math.isnan(float(have.abs())) and not math.isnan(float(want.abs())):
        diff = math.nan
    allowed = atol + rtol * float(want.abs())
    return (
        f"values differ{where}: {share} (rtol {rtol:g}, atol {atol:g}); "
        f"that element is {how_far(diff, allowed)}"
    )


def _compare_tensor(expected: torch.Tensor, got: Any, rules: _Rules) -> str | None:
    if not isinstance(got, TensorData):
        return _type_mismatch(expected, got)
    challenge, checks = rules.challenge, rules.challenge.checks
    got_device = got.device.split(":", 1)[0]
    if checks.device and got_device != challenge.device:
        return f"device mismatch: expected a tensor on {challenge.device}, got one on {got_device}"
    if tuple(expected.shape) != got.shape:
        return f"shape mismatch: expected {shape_text(expected.shape)}, got {shape_text(got.shape)}"
    ref_dtype = str(expected.dtype).removeprefix("torch.")
    if checks.dtype and got.dtype != ref_dtype:
        return f"dtype mismatch: expected torch.{ref_dtype}, got torch.{got.dtype}"
    if rules.check_flags:
        want_grad = checks.result_requires_grad
        if want_grad is False and got.requires_grad:
            return "result requires grad; detach it (expected a tensor with requires_grad=False)"
        if want_grad is True and not got.requires_grad:
            return (
                "result does not require grad; keep it in the autograd graph "
                "(expected a tensor with requires_grad=True)"
            )
        if checks.contiguous and not got.is_contiguous:
            return (
                f"result is not contiguous (strides {shape_text(got.strides)}); "
                "call .contiguous() before returning"
            )
    return _compare_values(expected, got.to_tensor(), challenge)


def _type_mismatch(expected: Any, got: Any) -> str:
    if isinstance(got, Unsupported):
        return (
            f"your function returned {kind_text(got)}, which cannot be graded; "
            "return tensors, numbers, lists, tuples or dicts"
        )
    hint = ""
    if got is None:
        hint = " (did you forget to return?)"
    elif isinstance(expected, float | int) and isinstance(got, TensorData):
        hint = " (use .item() to return a Python number)"
    elif isinstance(expected, torch.Tensor) and isinstance(got, float | int):
        hint = " (return the tensor itself, not .item())"
    return f"expected {kind_text(expected)}, got {kind_text(got)}{hint}"


def compare(expected: Any, got: Any, rules: _Rules, path: str = "") -> str | None:
    """Compare a result (or part of one) with the reference; return the first mismatch or None."""
    prefix = f"{path}: " if path else ""
    if isinstance(expected, torch.Tensor):
        problem = _compare_tensor(expected, got, rules)
        return None if problem is None else prefix + problem
    if isinstance(expected, list | tuple):
        if not isinstance(got, list | tuple):
            return prefix + _type_mismatch(expected, got)
        if len(got) != len(expected):
            return prefix + f"expected {kind_text(expected)}, got {kind_text(got)}"
        for i, (e, g) in enumerate(zip(expected, got, strict=True)):
            problem = compare(e, g, rules, f"{path or 'result'}[{i}]")
            if problem is not None:
                return problem
        return None
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return prefix + _type_mismatch(expected, got)
        missing = [k for k in expected if k not in got]
        if missing:
            return prefix + f"missing key {missing[0]!r} in the returned dict"
        extra = [k for k in got if k not in expected]
        if extra:
            return prefix + f"unexpected key {extra[0]!r} in the returned dict"
        for key, e in expected.items():
            problem = compare(e, got[key], rules, f"{path or 'result'}[{key!r}]")
            if problem is not None:
                return problem
        return None
    return _compare_plain(expected, got, rules, prefix)


def _compare_plain(expected: Any, got: Any, rules: _Rules, prefix: str) -> str | None:
    # Like tensors, plain values are reported by kind and distance, never by the hidden value.
    if isinstance(expected, bool) or expected is None or isinstance(expected, str | bytes):
        if type(got) is not type(expected):
            return prefix + _type_mismatch(expected, got)
        if got == expected:
            return None
        return prefix + f"the returned {_noun(got)} is not the expected one"
    if isinstance(expected, int):
        if type(got) is not int:
            return prefix + _type_mismatch(expected, got)
        return None if got == expected else prefix + "the returned int is not the expected one"
    if isinstance(expected, float):
        if type(got) not in (float, int):
            return prefix + _type_mismatch(expected, got)
        # A Python float often comes from .item() of a float32 tensor, so float32 closeness is
        # the fair default; a challenge can tighten it with a "float64" tolerance override.
        tol = rules.challenge.checks.tolerances.get("float64") or rules.challenge.checks.tolerance(
            "float32"
        )
        value = float(got)
        if (math.isnan(expected) and math.isnan(value)) or (
            abs(value - expected) <= tol.atol + tol.rtol * abs(expected)
        ):
            return None
        diff = math.nan if math.isnan(value) != math.isnan(expected) else abs(value - expected)
        return prefix + (
            f"the returned number differs (rtol {tol.rtol:g}, atol {tol.atol:g}): "
            f"it is {how_far(diff, tol.atol + tol.rtol * abs(expected))}"
        )
    return prefix + f"the reference returned {kind_text(expected)}, which the grader cannot check"


def _noun(value: Any) -> str:
    return {bool: "bool", str: "str", bytes: "bytes"}.get(type(value), "value")


# ---------------------------------------------------------------- inputs and gradients


def _same_exactly(before: torch.Tensor, after: Any) -> bool:
    if not isinstance(after, TensorData) or tuple(before.shape) != after.shape:
        return False
    now = after.to_tensor()
    if now.dtype != before.dtype:
        return False
    equal = before == now
    if before.is_floating_point() or before.is_complex():
        equal |= torch.isnan(before) & torch.isnan(now)
    return bool(equal.all())


def _input_changed(before: Any, after: Any) -> bool:
    if isinstance(before, torch.Tensor):
        return not _same_exactly(before, after)
    if isinstance(before, list | tuple):
        return (
            not isinstance(after, list | tuple)
            or len(after) != len(before)
            or any(_input_changed(b, a) for b, a in zip(before, after, strict=True))
        )
    if isinstance(before, dict):
        return (
            not isinstance(after, dict)
            or set(after) != set(before)
            or any(_input_changed(before[k], after[k]) for k in before)
        )
    # Plain values are immutable or copied by the harness; nothing the user can change in place.
    return False


def _check_inputs(challenge: Challenge, case: Case, after: Any) -> str | None:
    if not isinstance(after, list | tuple) or len(after) != len(case.args):
        raise _Malformed("inputs_after does not match the arguments")
    for i, (before, now) in enumerate(zip(case.args, after, strict=True)):
        if _input_changed(before, now):
            name = challenge.param_label(i)
            label = name.replace(" (", " in place (", 1) if "(" in name else f"{name} in place"
            return f"your function changed its input {label}"
    return None


def _check_grads(challenge: Challenge, case: Case, grads: Any) -> str | None:
    grad = challenge.checks.grad
    assert grad is not None  # noqa: S101 - only called when the challenge checks gradients
    if not isinstance(grads, list | tuple) or len(grads) != len(case.expected_grads):
        raise _Malformed("grads does not match grad.wrt")
    rules = _Rules(challenge, check_flags=False)
    for arg, expected, got in zip(grad.wrt, case.expected_grads, grads, strict=True):
        label = f"gradient wrt {challenge.param_label(arg)}"
        if got is None:
            if expected is None or not bool(expected.any()):
                continue
            return (
                f"{label} is missing: your result is not connected to that input "
                "(did you detach it, use .data, or build a new tensor?)"
            )
        if expected is None:
            expected = torch.zeros(got.shape) if isinstance(got, TensorData) else None
        problem = compare(expected, got, rules)
        if problem is not None:
            if problem.startswith("values differ"):
                return f"{label} differs{problem.removeprefix('values differ')}"
            return f"{label}: {problem}"
    return None


# ---------------------------------------------------------------- records


def check_case(challenge: Challenge, index: int, record: Any) -> tuple[Status, str] | None:
    """Grade one case record; return (status, message without the test prefix) or None if ok."""
    if (
        not isinstance(record, dict)
        or record.get("case") != index
        or type(record.get("ok")) is not bool
    ):
        raise _Malformed(f"record for test {index + 1} is not a case record")
    case = challenge.cases[index]
    if not record["ok"]:
        text, memory = describe_error(record.get("error"))
        if memory:
            limit = f"limit {challenge.memory_mb} MiB"
            return Status.MEMORY_LIMIT, f"ran out of memory ({limit}): {text}"
        return Status.ERROR, text
    if "output" not in record:
        raise _Malformed("case record has no output")
    problem = compare(case.expected, record["output"], _Rules(challenge, check_flags=True))
    if problem is None and challenge.checks.inputs_unmodified:
        problem = _check_inputs(challenge, case, record.get("inputs_after"))
    if problem is None and challenge.checks.grad is not None and case.upstream is not None:
        if record.get("grad_error") is not None:
            # The result matched but backward raised (a custom autograd.Function, say).
            text, memory = describe_error(record["grad_error"])
            status = Status.MEMORY_LIMIT if memory else Status.ERROR
            return status, f"computing the gradient failed: {text}"
        problem = _check_grads(challenge, case, record.get("grads"))
    return None if problem is None else (Status.FAILED, problem)


def grade_records(challenge: Challenge, records: Sequence[Any]) -> Grade:
    """Grade the decoded result stream: the load record, then one record per hidden test."""
    total = challenge.total
    if not records:
        return Grade(Status.ERROR, 0, total, "your code stopped before it was loaded", final=False)
    try:
        return _grade(challenge, records)
    except _Malformed as exc:
        # Only code inside the sandbox writes the stream, so a garbled one is the submission's
        # doing: forked copies of the harness each writing records, or writes to its channel.
        return Grade(Status.ERROR, 0, total,
                     f"your code left its results malformed ({exc}); forking processes "
                     "or writing to the harness's channel does this")


def _grade(challenge: Challenge, records: Sequence[Any]) -> Grade:
    total = challenge.total
    load = records[0]
    if not isinstance(load, dict) or type(load.get("loaded")) is not bool:
        raise _Malformed("the first record is not the load record")
    if not load["loaded"]:
        text, memory = describe_error(load.get("error"))
        if memory:
            limit = f"ran out of memory while loading (limit {challenge.memory_mb} MiB): {text}"
            return Grade(Status.MEMORY_LIMIT, 0, total, limit)
        return Grade(Status.ERROR, 0, total, f"your code could not be loaded: {text}")
    cases = records[1:]
    if len(cases) > total:
        raise _Malformed(f"{len(cases)} case records for {total} tests")
    passed = 0
    first: tuple[Status, str] | None = None
    for index, record in enumerate(cases):
        outcome = check_case(challenge, index, record)
        if outcome is None:
            passed += 1
        elif first is None:
            first = (outcome[0], f"test {index + 1} of {total}: {outcome[1]}")
    if first is not None:
        return Grade(first[0], passed, total, first[1])
    if len(cases) < total:
        where = f"test {len(cases) + 1} of {total}"
        return Grade(Status.ERROR, passed, total, f"your code stopped during {where}", final=False)
    return Grade(Status.PASSED, passed, total, "")
