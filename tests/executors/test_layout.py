"""Inputs keep their memory layout across the boundary: a transposed input stays transposed."""

from __future__ import annotations

import pytest
import torch

from executors.grading import wire


def _decoded(tensor: torch.Tensor) -> wire.TensorData:
    value = wire.decode(wire.encode(tensor), max_bytes=1 << 20)
    assert isinstance(value, wire.TensorData)
    return value


@pytest.mark.parametrize("make", [
    lambda: torch.arange(12.0).reshape(3, 4).t(),
    lambda: torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1),
    lambda: torch.arange(20.0).reshape(4, 5)[1:, ::2],
    lambda: torch.arange(3.0).reshape(3, 1).expand(3, 4),
])
def test_keep_layout_restores_strides_and_values(make):
    original = make()
    rebuilt = _decoded(original).to_tensor(keep_layout=True)
    assert rebuilt.stride() == original.stride()
    assert rebuilt.is_contiguous() == original.is_contiguous()
    assert torch.equal(rebuilt, original)


def test_without_keep_layout_the_grader_gets_plain_contiguous_values():
    original = torch.arange(6.0).reshape(2, 3).t()
    rebuilt = _decoded(original).to_tensor()
    assert rebuilt.is_contiguous() and torch.equal(rebuilt, original)


def test_small_view_of_a_huge_base_is_not_inflated():
    base = torch.zeros(1_000_000)
    view = base[-4:].as_strided((2, 2), (1, 2), 999_996)
    rebuilt = _decoded(view).to_tensor(keep_layout=True)
    assert torch.equal(rebuilt, view) and rebuilt.untyped_storage().nbytes() <= 64


@pytest.mark.sandbox
def test_submission_sees_a_transposed_input_as_non_contiguous(run_code):
    code = "def f(x):\n    return [x.is_contiguous(), list(x.stride())]\n"
    out = run_code(code, torch.arange(6.0).reshape(2, 3).t())
    assert out.records[1]["output"] == [False, [1, 3]]
