"""Grader behaviour on decoded records, without the sandbox: one behaviour per test."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest
import torch

from executors.grading import wire
from executors.grading.challenges import Challenge, build_challenge
from executors.grading.grader import grade_records
from executors.grading.verdict import Status
from tests.executors.builders import code_item

GEN_TWO_MATRICES = """
import torch
def cases(g):
    return [{"args": [torch.randn(3, 4, generator=g)]}, {"args": [torch.randn(3, 4, generator=g)]}]
"""


def make_challenge(
    solution: str = "def f(x):\n    return x * 2\n",
    generator: str = GEN_TWO_MATRICES,
    checks: dict[str, Any] | None = None,
) -> Challenge:
    item = code_item({
        "entrypoint": "f",
        "signature": "def f(x)",
        "starter": "def f(x):\n    ...\n",
        "solution": solution,
        "tests": {"seed": 1, "generator": generator},
        "checks": checks or {},
    }, "code.test-grading")
    return build_challenge(item)


def data(value: Any) -> Any:
    """Send a value through the wire format, as the sandbox would."""
    return wire.decode(wire.encode(value), max_bytes=1 << 30)


def good_record(challenge: Challenge, index: int) -> dict[str, Any]:
    case = challenge.cases[index]
    return data(
        {
            "case": index,
            "ok": True,
            "output": case.expected,
            "grads": list(case.expected_grads),
            "inputs_after": list(case.args),
        }
    )


def run_with(challenge: Challenge, index: int = 0, **overrides: Any) -> Any:
    """Grade a stream where every test is right except ``overrides`` on test ``index``."""
    records: list[Any] = [{"loaded": True}]
    for i in range(challenge.total):
        record = good_record(challenge, i)
        if i == index:
            record.update({k: data(v) for k, v in overrides.items()})
        records.append(record)
    return grade_records(challenge, records)


@pytest.fixture(scope="module")
def doubling() -> Challenge:
    return make_challenge()


def test_exact_outputs_pass(doubling):
    grade = run_with(doubling)
    assert (grade.status, grade.passed_tests, grade.total_tests) == (Status.PASSED, 2, 2)
    assert grade.message == ""


def test_shape_mismatch_names_both_shapes(doubling):
    grade = run_with(doubling, output=doubling.cases[0].expected.t().contiguous())
    assert grade.status is Status.FAILED
    assert grade.message == "test 1 of 2: shape mismatch: expected (3, 4), got (4, 3)"
    assert grade.passed_tests == 1


def test_dtype_mismatch_names_both_dtypes(doubling):
    grade = run_with(doubling, index=1, output=doubling.cases[1].expected.double())
    assert grade.message == (
        "test 2 of 2: dtype mismatch: expected torch.float32, got torch.float64"
    )


def test_dtype_is_ignored_when_the_challenge_allows_it():
    challenge = make_challenge(checks={"dtype": False})
    assert run_with(challenge, output=challenge.cases[0].expected.double()).status is Status.PASSED


def test_device_mismatch_is_reported(doubling):
    on_cuda = dataclasses.replace(data(doubling.cases[0].expected), device="cuda:0")
    records = [{"loaded": True}, {**good_record(doubling, 0), "output": on_cuda}]
    records.append(good_record(doubling, 1))
    grade = grade_records(doubling, records)
    assert grade.message == (
        "test 1 of 2: device mismatch: expected a tensor on cpu, got one on cuda"
    )


def test_value_mismatch_names_the_element_and_the_tolerance(doubling):
    wrong = doubling.cases[0].expected.clone()
    wrong[2, 0] += 0.0625
    grade = run_with(doubling, output=wrong)
    assert grade.status is Status.FAILED
    assert grade.message.startswith("test 1 of 2: values differ at [2, 0]: ")
    assert "1 of 12 elements differ" in grade.message
    assert "rtol 1e-05, atol 1e-06" in grade.message
    assert "outside the tolerance" in grade.message


def _numbers(text):
    import re

    return {float(n) for n in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text)}


@pytest.mark.parametrize("offset", [1e-4, 0.0625, 3.0, 1e6])
def test_value_mismatch_never_quotes_the_hidden_expected_value(doubling, offset):
    expected = doubling.cases[0].expected
    wrong = expected.clone()
    wrong[2, 0] += offset
    message = run_with(doubling, output=wrong).message
    hidden = float(expected[2, 0])
    shown = _numbers(message)
    assert not any(abs(n - hidden) < 1e-3 for n in shown), message
    assert f"{offset:g}" not in message  # nor the distance, which with their value gives it away


@pytest.mark.parametrize(("ratio", "words"), [
    (5, "just outside the tolerance"), (300, "about 10^2 times"), (1e5, "over 1000 times"),
    (float("nan"), "NaN"), (float("inf"), "infinite"),
])
def test_distance_is_told_in_multiples_of_the_tolerance(ratio, words):
    from executors.grading.grader import how_far

    assert words in how_far(ratio * 1e-6 if ratio == ratio else ratio, 1e-6)


@pytest.mark.parametrize(
    ("dtype", "relative_error", "status"),
    [
        (torch.float32, 1e-6, Status.PASSED),
        (torch.float32, 1e-4, Status.FAILED),
        (torch.float64, 1e-9, Status.PASSED),
        (torch.float64, 1e-6, Status.FAILED),
        (torch.float16, 5e-4, Status.PASSED),
        (torch.float16, 1e-2, Status.FAILED),
        (torch.bfloat16, 1e-2, Status.PASSED),
        (torch.bfloat16, 1e-1, Status.FAILED),
    ],
)
def test_tolerance_follows_the_reference_dtype(dtype, relative_error, status):
    gen = GEN_TWO_MATRICES.replace("generator=g)", f"generator=g).to({dtype!s})")
    challenge = make_challenge(generator=gen.replace("torch.randn", "4 + torch.rand"))
    expected = challenge.cases[0].expected
    got = (expected.double() * (1 + relative_error)).to(dtype)
    assert run_with(challenge, output=got).status is status


def test_tolerance_override_from_the_challenge_wins():
    challenge = make_challenge(checks={"tolerances": {"float32": {"rtol": 1e-2, "atol": 0}}})
    assert run_with(challenge, output=challenge.cases[0].expected * 1.001).status is Status.PASSED


@pytest.mark.parametrize(
    ("expected_value", "got_value", "status"),
    [
        (math.nan, math.nan, Status.PASSED),
        (1.0, math.nan, Status.FAILED),
        (math.nan, 1.0, Status.FAILED),
        (math.inf, math.inf, Status.PASSED),
        (math.inf, -math.inf, Status.FAILED),
    ],
)
def test_nan_and_inf_must_sit_where_the_reference_has_them(expected_value, got_value, status):
    challenge = make_challenge(solution="def f(x):\n    y = x * 2\n    y[0, 0] = X\n    return y\n"
                               .replace("X", f"float('{expected_value}')"))
    got = challenge.cases[0].expected.clone()
    got[0, 0] = got_value
    assert run_with(challenge, output=got).status is status


@pytest.mark.parametrize(
    ("solution", "delta"),
    [
        ("def f(x):\n    return (x * 10).long()\n", 1),
        ("def f(x):\n    return x > 0\n", True),
    ],
)
def test_integer_and_bool_results_must_match_exactly(solution, delta):
    challenge = make_challenge(solution=solution)
    got = challenge.cases[0].expected.clone()
    got[1, 1] = (got[1, 1] ^ delta) if got.dtype == torch.bool else got[1, 1] + delta
    grade = run_with(challenge, output=got)
    assert grade.status is Status.FAILED
    assert "values differ at [1, 1]" in grade.message
    assert "must match exactly" in grade.message


def test_result_that_requires_grad_must_be_detached_when_asked():
    challenge = make_challenge(checks={"result_requires_grad": False})
    attached = challenge.cases[0].expected.clone().requires_grad_(True) * 1
    grade = run_with(challenge, output=attached)
    assert grade.message == (
        "test 1 of 2: result requires grad; detach it (expected a tensor with requires_grad=False)"
    )


def test_result_that_lost_its_graph_fails_when_grad_is_required():
    challenge = make_challenge(checks={"result_requires_grad": True})
    grade = run_with(challenge, output=challenge.cases[0].expected)
    assert grade.status is Status.FAILED
    assert "result does not require grad" in grade.message


def test_non_contiguous_result_fails_only_when_contiguity_is_checked():
    loose, strict = make_challenge(), make_challenge(checks={"contiguous": True})
    transposed = strict.cases[0].expected.t().contiguous().t()
    assert run_with(loose, output=transposed).status is Status.PASSED
    grade = run_with(strict, output=transposed)
    assert grade.message == (
        "test 1 of 2: result is not contiguous (strides (1, 3)); "
        "call .contiguous() before returning"
    )


def test_input_changed_in_place_is_named(doubling):
    changed = doubling.cases[0].args[0] * 2
    grade = run_with(doubling, inputs_after=[changed])
    assert grade.message == "test 1 of 2: your function changed its input x in place (argument 0)"


def test_input_changes_are_ignored_when_the_challenge_allows_them():
    challenge = make_challenge(checks={"inputs_unmodified": False})
    changed = challenge.cases[0].args[0] * 2
    assert run_with(challenge, inputs_after=[changed]).status is Status.PASSED


GRAD_CHECKS = {"grad": {"wrt": [0], "upstream_seed": 7}}
SQUARE = "def f(x):\n    return x * x\n"


def test_reference_gradients_are_upstream_weighted():
    challenge = make_challenge(solution=SQUARE, checks=GRAD_CHECKS)
    case = challenge.cases[0]
    assert case.upstream is not None
    torch.testing.assert_close(case.expected_grads[0], 2 * case.args[0] * case.upstream)


def test_wrong_gradient_names_the_argument_and_element():
    challenge = make_challenge(solution=SQUARE, checks=GRAD_CHECKS)
    wrong = challenge.cases[1].expected_grads[0].clone()
    wrong[1, 2] = wrong[1, 2] + 1
    grade = run_with(challenge, index=1, grads=[wrong])
    assert grade.status is Status.FAILED
    assert grade.message.startswith("test 2 of 2: gradient wrt x (argument 0) differs at [1, 2]: ")


def test_missing_gradient_says_the_graph_was_cut():
    challenge = make_challenge(solution=SQUARE, checks=GRAD_CHECKS)
    grade = run_with(challenge, grads=[None])
    assert "gradient wrt x (argument 0) is missing" in grade.message
    assert "detach" in grade.message


@pytest.mark.parametrize(
    ("output", "fragment"),
    [
        (wire.Unsupported("torch.nn.modules.linear.Linear"), "cannot be graded"),
        (None, "expected a tensor, got None (did you forget to return?)"),
        ((1, 2), "expected a tensor, got a tuple of 2 items"),
        (3.5, "expected a tensor, got a float (return the tensor itself, not .item())"),
    ],
)
def test_result_of_the_wrong_kind_fails_with_a_clear_message(doubling, output, fragment):
    records: list[Any] = [{"loaded": True}, {**good_record(doubling, 0), "output": output}]
    records.append(good_record(doubling, 1))
    grade = grade_records(doubling, records)
    assert grade.status is Status.FAILED
    assert fragment in grade.message


@pytest.mark.parametrize(
    ("solution", "output", "fragment"),
    [
        ("def f(x):\n    return x, x.sum()\n", "drop",
         "expected a tuple of 2 items, got a tuple of 1"),
        ("def f(x):\n    return {'m': x.mean()}\n", {"n": 1}, "missing key 'm'"),
        ("def f(x):\n    return x.sum().item()\n", "tensor",
         "(use .item() to return a Python number)"),
        ("def f(x):\n    return x.shape[0]\n", 4, "the returned int is not the expected one"),
        ("def f(x):\n    return [x, x * 2]\n", "second-wrong", "result[1]: values differ"),
    ],
)
def test_structured_results_are_compared_piece_by_piece(solution, output, fragment):
    challenge = make_challenge(solution=solution)
    expected = challenge.cases[0].expected
    if output == "drop":
        output = expected[:1]
    elif output == "tensor":
        output = torch.tensor(expected)
    elif output == "second-wrong":
        output = [expected[0], expected[1] + 1]
    grade = run_with(challenge, output=output)
    assert grade.status is Status.FAILED
    assert fragment in grade.message


def test_python_float_result_within_tolerance_passes():
    challenge = make_challenge(solution="def f(x):\n    return x.sum().item()\n")
    nearly = challenge.cases[0].expected * (1 + 1e-7)
    assert run_with(challenge, output=nearly).status is Status.PASSED


def test_raised_exception_is_an_error_with_type_and_message(doubling):
    error = {"type": "RuntimeError", "message": "mat1 and mat2 shapes cannot be multiplied",
             "memory": False}
    records = [{"loaded": True}, {"case": 0, "ok": False, "error": error}]
    grade = grade_records(doubling, [*records, good_record(doubling, 1)])
    assert grade.status is Status.ERROR
    assert grade.message == "test 1 of 2: RuntimeError: mat1 and mat2 shapes cannot be multiplied"
    assert grade.passed_tests == 1


def test_out_of_memory_record_maps_to_memory_limit(doubling):
    error = {"type": "OutOfMemoryError", "message": "tried to allocate 4 GiB", "memory": True}
    grade = grade_records(doubling, [{"loaded": True}, {"case": 0, "ok": False, "error": error}])
    assert grade.status is Status.MEMORY_LIMIT
    assert "ran out of memory (limit 512 MiB)" in grade.message


def test_long_exception_message_is_clipped_to_one_line(doubling):
    error = {"type": "ValueError", "message": "bad\n" * 5000, "memory": False}
    grade = grade_records(doubling, [{"loaded": True}, {"case": 0, "ok": False, "error": error}])
    assert "\n" not in grade.message
    assert len(grade.message) < 400


def test_load_failure_is_an_error_that_says_so(doubling):
    error = {"type": "SyntaxError", "message": "invalid syntax (line 3)", "memory": False}
    grade = grade_records(doubling, [{"loaded": False, "error": error}])
    assert grade.status is Status.ERROR
    assert grade.message == "your code could not be loaded: SyntaxError: invalid syntax (line 3)"


def test_first_failing_test_sets_the_status_and_later_passes_still_count():
    challenge = make_challenge(generator=GEN_TWO_MATRICES.replace("]}]", "]}] * 3"))
    error = {"type": "ZeroDivisionError", "message": "division by zero", "memory": False}
    records = [{"loaded": True}] + [good_record(challenge, i) for i in range(6)]
    records[3] = {**records[3], "output": data(challenge.cases[2].expected + 1)}
    records[5] = {"case": 4, "ok": False, "error": error}
    grade = grade_records(challenge, records)
    assert (grade.status, grade.passed_tests, grade.total_tests) == (Status.FAILED, 4, 6)
    assert grade.message.startswith("test 3 of 6: values differ")


def test_stream_that_stops_early_is_an_incomplete_error(doubling):
    grade = grade_records(doubling, [{"loaded": True}, good_record(doubling, 0)])
    assert (grade.status, grade.final, grade.passed_tests) == (Status.ERROR, False, 1)
    assert grade.message == "your code stopped during test 2 of 2"


@pytest.mark.parametrize(
    "records",
    [
        pytest.param([["not", "a", "record"]], id="first-not-load"),
        pytest.param([{"loaded": True}, "junk"], id="case-not-dict"),
        pytest.param([{"loaded": True}, {"case": 1, "ok": True, "output": None}], id="wrong-index"),
        pytest.param([{"loaded": True}, {"case": 0, "ok": True}], id="no-output"),
        pytest.param([{"loaded": True}, {"case": 0, "ok": False, "error": "x"}], id="bad-error"),
        pytest.param([{"loaded": False, "error": {"type": 1}}], id="bad-load-error"),
        pytest.param([{"loaded": True}] + [{"case": i, "ok": True} for i in range(3)], id="extra"),
    ],
)
def test_malformed_records_are_an_error_verdict_not_an_exception(doubling, records):
    grade = grade_records(doubling, records)
    assert grade.status is Status.ERROR
    assert "malformed" in grade.message
    assert grade.message.startswith("your code")  # the stream is written inside the sandbox


def test_inputs_after_with_the_wrong_arity_is_malformed(doubling):
    grade = run_with(doubling, inputs_after=[])
    assert grade.status is Status.ERROR
    assert "malformed" in grade.message


def test_messages_never_print_hidden_inputs(doubling):
    grade = run_with(doubling, output=doubling.cases[0].expected[:2])
    hidden = doubling.cases[0].args[0]
    assert f"{float(hidden[0, 0]):.4f}"[:6] not in grade.message
    assert "(3, 4)" in grade.message


def test_error_line_from_the_harness_is_shown(doubling):
    error = {"type": "IndexError", "message": "index 5 is out of bounds", "memory": False,
             "line": 4}
    grade = grade_records(doubling, [{"loaded": True}, {"case": 0, "ok": False, "error": error}])
    assert grade.message == "test 1 of 2: IndexError: index 5 is out of bounds (line 4)"


def test_request_marks_differentiated_arguments_and_carries_no_reference():
    challenge = make_challenge(solution=SQUARE, checks=GRAD_CHECKS)
    payload = challenge.request_payload("def f(x):\n    return x * x\n")
    case = payload["cases"][0]
    assert case["args"][0].requires_grad
    assert case["grad"]["wrt"] == [0]
    assert not challenge.cases[0].args[0].requires_grad  # the cached input stays untouched


def test_backward_failure_after_a_matching_result_is_an_error():
    challenge = make_challenge(solution=SQUARE, checks=GRAD_CHECKS)
    error = {"type": "RuntimeError", "message": "boom in backward", "memory": False}
    record = {**good_record(challenge, 0), "grad_error": error}
    del record["grads"]
    grade = grade_records(challenge, [{"loaded": True}, record, good_record(challenge, 1)])
    assert grade.status is Status.ERROR
    assert grade.message == (
        "test 1 of 2: computing the gradient failed: RuntimeError: boom in backward"
    )


def test_wrong_shape_is_reported_before_any_gradient_problem():
    challenge = make_challenge(solution=SQUARE, checks=GRAD_CHECKS)
    error = {"type": "RuntimeError", "message": "Mismatch in shape", "memory": False}
    record = {**good_record(challenge, 0), "grad_error": error,
              "output": data(challenge.cases[0].expected[:1])}
    grade = grade_records(challenge, [{"loaded": True}, record, good_record(challenge, 1)])
    assert grade.message == "test 1 of 2: shape mismatch: expected (3, 4), got (1, 4)"
