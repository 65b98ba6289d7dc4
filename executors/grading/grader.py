"""Grade the data-only records a sandboxed run sent back against the trusted reference.

Nothing here executes or unpickles what the sandbox produced: records arrive already decoded
by ``executors.grading.wire`` into plain lists, dicts, numbers and ``TensorData``; tensors are
rebuilt from raw bytes only to compare values. The first failing test is explained as a
:class:`~executors.grading.reasons.Reason` (a code and plain parameters, worded by each front
end in its channel's language): it names the kind of mismatch (type, shape, dtype, device,
autograd property, which element and how far off relative to the tolerance) and never a hidden
input or a hidden expected value, so explanations cannot be replayed into a hard-coded answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from executors.grading.challenges import Case, Challenge
from executors.grading.reasons import PATH, WORD, Param, Reason, far_text
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
    reason: Reason | None = None
    # False when the stream stopped before every test reported (a crash or a kill) and nothing
    # before that point explains the outcome; the caller then says why the run ended.
    final: bool = True

    @property
    def message(self) -> str:
        """Return the first failure in English (empty when every test passed)."""
        return self.reason.english() if self.reason is not None else ""


class _Malformed(Exception):
    """Signal a record that does not have the harness's shape."""


def clip(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """Return ``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def describe_error(error: Any) -> tuple[str, int | None, bool]:
    """Return an error record's own words, the line to name, and whether it was out-of-memory.

    The line is None when there is none or the words already name it (a SyntaxError does).
    """
    if not isinstance(error, dict):
        raise _Malformed("error is not a mapping")
    kind, message, memory = error.get("type"), error.get("message"), error.get("memory", False)
    if not isinstance(kind, str) or not isinstance(message, str) or not isinstance(memory, bool):
        raise _Malformed("error fields have the wrong types")
    kind = clip(kind, 80)
    text = f"{kind}: {clip(message)}" if message.strip() else kind
    line = error.get("line")
    named = type(line) is int and 0 <= line < 2**31 and f"line {line}" not in text
    return text, line if named else None, memory


def _with(reason: Reason, **context: Param) -> Reason:
    """Return ``reason`` with where it happened added (a path, a gradient, a test)."""
    return Reason(reason.code, {**reason.params, **context}, reason.quote)


# ---------------------------------------------------------------- describing values


def kind_of(value: Any) -> tuple[str, int | None]:
    """Return what a value is as a kind (``tuple``) and, for containers, how many items."""
    if isinstance(value, torch.Tensor | TensorData):
        return "tensor", None
    if value is None:
        return "none", None
    for kind, cls in (("bool", bool), ("int", int), ("float", float), ("str", str),
                      ("bytes", bytes)):
        if isinstance(value, cls):
            return kind, None
    if isinstance(value, list):
        return "list", len(value)
    if isinstance(value, tuple):
        return "tuple", len(value)
    if isinstance(value, dict):
        return "dict", len(value)
    return "value", None


def _mismatch(expected: Any, got: Any, hint: str = "none") -> Reason:
    want, want_len = kind_of(expected)
    have, have_len = kind_of(got)
    return Reason("type_mismatch", {"expected": want, "expected_len": want_len, "got": have,
                                    "got_len": have_len, "hint": hint})


# ---------------------------------------------------------------- comparing values


@dataclass(frozen=True)
class _Rules:
    challenge: Challenge
    check_flags: bool  # requires_grad and contiguity apply to results, not to gradients


def distance_of(diff: float, allowed: float) -> tuple[str, int]:
    """Say how far a value is off, in multiples of what the tolerance allows, never by how much.

    An exact distance plus the member's own value would give away the hidden expected value;
    an order of magnitude tells them whether to look for rounding or for a real mistake.
    Returns one of ``DISTANCES`` and, for ``power``, the power of ten.
    """
    if math.isnan(diff):
        return "nan", 0
    if math.isinf(diff):
        return "inf", 0
    if allowed <= 0:
        return "exact", 0
    ratio = diff / allowed
    if ratio <= 10:
        return "rounding", 0
    if ratio <= 1000:
        return "power", round(math.log10(ratio))
    return "far", 0


def how_far(diff: float, allowed: float) -> str:
    """Say in English how far a value is off relative to the tolerance."""
    return far_text(*distance_of(diff, allowed))


def _compare_values(
    expected: torch.Tensor, got: torch.Tensor, challenge: Challenge
) -> Reason | None:
    """Compare element values of two same-shape CPU tensors; return the mismatch or None.

    The reason names the first differing element and how far off it is relative to the
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
    where: dict[str, Param] = {"index": tuple(first), "count": count, "numel": total}
    if exact:
        return Reason("values_differ_exact", where)
    wide = torch.complex128 if (expected.is_complex() or got.is_complex()) else torch.float64
    want = expected[tuple(first)].to(wide) if first else expected.to(wide)
    have = got[tuple(first)].to(wide) if first else got.to(wide)
    diff = float((have - want).abs())
    if math.isnan(float(have.abs())) and not math.isnan(float(want.abs())):
        diff = math.nan
    allowed = atol + rtol * float(want.abs())
    distance, power = distance_of(diff, allowed)
    return Reason("values_differ", {**where, "rtol": float(rtol), "atol": float(atol),
                                    "distance": distance, "power": power})


def _compare_tensor(expected: torch.Tensor, got: Any, rules: _Rules) -> Reason | None:
    if not isinstance(got, TensorData):
        return _type_mismatch(expected, got)
    challenge, checks = rules.challenge, rules.challenge.checks
    got_device = got.device.split(":", 1)[0]
    if checks.device and got_device != challenge.device:
        return Reason("device_mismatch", {"expected": challenge.device, "got": got_device})
    if tuple(expected.shape) != got.shape:
        return Reason("shape_mismatch", {"expected": tuple(int(s) for s in expected.shape),
                                         "got": got.shape})
    ref_dtype = str(expected.dtype).removeprefix("torch.")
    if checks.dtype and got.dtype != ref_dtype:
        return Reason("dtype_mismatch", {"expected": ref_dtype, "got": got.dtype})
    if rules.check_flags:
        want_grad = checks.result_requires_grad
        if want_grad is False and got.requires_grad:
            return Reason("needs_no_grad")
        if want_grad is True and not got.requires_grad:
            return Reason("needs_grad")
        if checks.contiguous and not got.is_contiguous:
            return Reason("not_contiguous", {"strides": got.strides})
    return _compare_values(expected, got.to_tensor(), challenge)


def _type_mismatch(expected: Any, got: Any) -> Reason:
    if isinstance(got, Unsupported):
        return Reason("not_gradable", quote=got.type_name[:200])
    hint = "none"
    if got is None:
        hint = "forgot_return"
    elif isinstance(expected, float | int) and isinstance(got, TensorData):
        hint = "use_item"
    elif isinstance(expected, torch.Tensor) and isinstance(got, float | int):
        hint = "return_tensor"
    return _mismatch(expected, got, hint)


def _at(path: str) -> dict[str, Param]:
    # A path the reference's own keys cannot spell safely is left out rather than quoted.
    return {"path": path} if path and PATH.fullmatch(path) else {}


def compare(expected: Any, got: Any, rules: _Rules, path: str = "") -> Reason | None:
    """Compare a result (or part of one) with the reference; return the first mismatch or None."""
    problem = _compare(expected, got, rules, path)
    if problem is None or "path" in problem.params or not path:
        return problem
    return _with(problem, **_at(path))


def _compare(expected: Any, got: Any, rules: _Rules, path: str) -> Reason | None:
    if isinstance(expected, torch.Tensor):
        return _compare_tensor(expected, got, rules)
    if isinstance(expected, list | tuple):
        if not isinstance(got, list | tuple):
            return _type_mismatch(expected, got)
        if len(got) != len(expected):
            return _mismatch(expected, got)
        for i, (e, g) in enumerate(zip(expected, got, strict=True)):
            problem = compare(e, g, rules, f"{path or 'result'}[{i}]")
            if problem is not None:
                return problem
        return None
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return _type_mismatch(expected, got)
        missing = [k for k in expected if k not in got]
        if missing:
            return Reason("missing_key", quote=repr(missing[0])[:200])
        extra = [k for k in got if k not in expected]
        if extra:
            return Reason("unexpected_key", quote=repr(extra[0])[:200])
        for key, e in expected.items():
            problem = compare(e, got[key], rules, f"{path or 'result'}[{key!r}]")
            if problem is not None:
                return problem
        return None
    return _compare_plain(expected, got, rules)


def _compare_plain(expected: Any, got: Any, rules: _Rules) -> Reason | None:
    # Like tensors, plain values are reported by kind and distance, never by the hidden value.
    if isinstance(expected, bool) or expected is None or isinstance(expected, str | bytes):
        if type(got) is not type(expected):
            return _type_mismatch(expected, got)
        if got == expected:
            return None
        return Reason("plain_differs", {"noun": _noun(got)})
    if isinstance(expected, int):
        if type(got) is not int:
            return _type_mismatch(expected, got)
        return None if got == expected else Reason("plain_differs", {"noun": "int"})
    if isinstance(expected, float):
        if type(got) not in (float, int):
            return _type_mismatch(expected, got)
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
        distance, power = distance_of(diff, tol.atol + tol.rtol * abs(expected))
        return Reason("number_differs", {"rtol": float(tol.rtol), "atol": float(tol.atol),
                                         "distance": distance, "power": power})
    kind, length = kind_of(expected)
    return Reason("reference_unchecked", {"kind": kind, "kind_len": length})


def _noun(value: Any) -> str:
    return {bool: "bool", str: "str", bytes: "bytes"}.get(type(value), "value")


def _name(challenge: Challenge, index: int) -> str:
    names = challenge.param_names
    name = names[index] if 0 <= index < len(names) else ""
    return name if WORD.fullmatch(name) else ""


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


def _check_inputs(challenge: Challenge, case: Case, after: Any) -> Reason | None:
    if not isinstance(after, list | tuple) or len(after) != len(case.args):
        raise _Malformed("inputs_after does not match the arguments")
    for i, (before, now) in enumerate(zip(case.args, after, strict=True)):
        if _input_changed(before, now):
            return Reason("input_changed", {"arg": i, "name": _name(challenge, i)})
    return None


def _check_grads(challenge: Challenge, case: Case, grads: Any) -> Reason | None:
    grad = challenge.checks.grad
    assert grad is not None  # noqa: S101 - only called when the challenge checks gradients
    if not isinstance(grads, list | tuple) or len(grads) != len(case.expected_grads):
        raise _Malformed("grads does not match grad.wrt")
    rules = _Rules(challenge, check_flags=False)
    for arg, expected, got in zip(grad.wrt, case.expected_grads, grads, strict=True):
        label: dict[str, Param] = {"grad_arg": arg, "grad_name": _name(challenge, arg)}
        if got is None:
            if expected is None or not bool(expected.any()):
                continue
            return Reason("grad_missing", label)
        if expected is None:
            expected = torch.zeros(got.shape) if isinstance(got, TensorData) else None
        problem = compare(expected, got, rules)
        if problem is not None:
            return _with(problem, **label)
    return None


# ---------------------------------------------------------------- records


def _error_reason(code: str, error: Any, challenge: Challenge | None = None) -> Reason:
    text, line, _ = describe_error(error)
    params: dict[str, Param] = {"line": line}
    if challenge is not None and code.endswith("out_of_memory"):
        params["limit_mb"] = challenge.memory_mb
    return Reason(code, params, quote=text)


def check_case(challenge: Challenge, index: int, record: Any) -> tuple[Status, Reason] | None:
    """Grade one case record; return (status, reason without the test's number) or None if ok."""
    if (
        not isinstance(record, dict)
        or record.get("case") != index
        or type(record.get("ok")) is not bool
    ):
        raise _Malformed(f"record for test {index + 1} is not a case record")
    case = challenge.cases[index]
    if not record["ok"]:
        error = record.get("error")
        if describe_error(error)[2]:
            return Status.MEMORY_LIMIT, _error_reason("out_of_memory", error, challenge)
        return Status.ERROR, _error_reason("exception", error)
    if "output" not in record:
        raise _Malformed("case record has no output")
    problem = compare(case.expected, record["output"], _Rules(challenge, check_flags=True))
    if problem is None and challenge.checks.inputs_unmodified:
        problem = _check_inputs(challenge, case, record.get("inputs_after"))
    if problem is None and challenge.checks.grad is not None and case.upstream is not None:
        if record.get("grad_error") is not None:
            # The result matched but backward raised (a custom autograd.Function, say).
            error = record["grad_error"]
            status = Status.MEMORY_LIMIT if describe_error(error)[2] else Status.ERROR
            return status, _error_reason("grad_failed", error)
        problem = _check_grads(challenge, case, record.get("grads"))
    return None if problem is None else (Status.FAILED, problem)


def grade_records(challenge: Challenge, records: Sequence[Any]) -> Grade:
    """Grade the decoded result stream: the load record, then one record per hidden test."""
    total = challenge.total
    if not records:
        return Grade(Status.ERROR, 0, total, Reason("stopped_before_load"), final=False)
    try:
        return _grade(challenge, records)
    except _Malformed as exc:
        # Only code inside the sandbox writes the stream, so a garbled one is the submission's
        # doing: forked copies of the harness each writing records, or writes to its channel.
        return Grade(Status.ERROR, 0, total, Reason("malformed_results", quote=str(exc)))


def _grade(challenge: Challenge, records: Sequence[Any]) -> Grade:
    total = challenge.total
    load = records[0]
    if not isinstance(load, dict) or type(load.get("loaded")) is not bool:
        raise _Malformed("the first record is not the load record")
    if not load["loaded"]:
        error = load.get("error")
        if describe_error(error)[2]:
            return Grade(Status.MEMORY_LIMIT, 0, total,
                         _error_reason("load_out_of_memory", error, challenge))
        return Grade(Status.ERROR, 0, total, _error_reason("load_failed", error))
    cases = records[1:]
    if len(cases) > total:
        raise _Malformed(f"{len(cases)} case records for {total} tests")
    passed = 0
    first: tuple[Status, Reason] | None = None
    for index, record in enumerate(cases):
        outcome = check_case(challenge, index, record)
        if outcome is None:
            passed += 1
        elif first is None:
            first = (outcome[0], _with(outcome[1], test=index + 1, tests=total))
    if first is not None:
        return Grade(first[0], passed, total, first[1])
    if len(cases) < total:
        return Grade(Status.ERROR, passed, total,
                     Reason("stopped_during", {"at": len(cases) + 1, "of": total}), final=False)
    return Grade(Status.PASSED, passed, total)
