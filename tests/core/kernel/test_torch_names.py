"""The torch names the matcher knows without importing torch, checked on the installed torch."""

import pytest
import torch
from torch import nn
from torch.nn import init
from torch.nn.utils import rnn
from torch.optim import lr_scheduler

from bot.core.kernel.answer_forms import DIM_FIRST, TENSOR_METHODS
from tests.core.kernel.test_matching_properties import OTHER_FUNCTIONS


@pytest.mark.parametrize("name", sorted(TENSOR_METHODS))
def test_every_name_read_as_a_tensor_method_is_one(name):
    assert callable(getattr(torch.Tensor, name))


def test_gather_has_no_in_place_variant():
    # The example: "gather_" is refused because it does not exist.
    assert not hasattr(torch.Tensor, "gather_")


# The arguments that come with dim for the methods that need more than a dim.
_WITH = {"gather": {"index": torch.tensor([[0, 1], [1, 0]])},
         "index_select": {"index": torch.tensor([1])}}


@pytest.mark.parametrize("name", sorted(DIM_FIRST))
def test_a_dim_first_method_takes_dim_as_its_first_argument(name):
    x = torch.tensor([[3.0, 1.0], [2.0, 5.0]])
    extra = _WITH.get(name, {})
    by_position = getattr(x, name)(1, *extra.values())
    by_keyword = getattr(x, name)(dim=1, **extra)
    if isinstance(by_position, tuple):
        by_position, by_keyword = by_position[0], by_keyword[0]
    assert torch.equal(by_position, by_keyword)


@pytest.mark.parametrize("name", OTHER_FUNCTIONS)
def test_every_other_function_the_near_misses_call_exists(name):
    homes = (torch, torch.Tensor, nn, init, rnn, lr_scheduler, torch.cuda)
    assert any(hasattr(home, name) for home in homes), name
