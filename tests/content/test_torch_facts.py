"""The facts the bank's answer keys rest on, run on the installed torch (the review's findings).

If an upgrade changes one of these, the questions and cards that state it must change too:
each test names where the bank says it.
"""

import inspect
import warnings

import pytest
import torch
from torch import nn


class _Branchy(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


class _CondBranch(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x + 1, lambda x: x - 1, (x,))


def test_export_raises_on_a_data_dependent_branch():
    # torch-compile card, deployment.trace-vs-export
    with pytest.raises(Exception, match="data-dependent"):
        torch.export.export(_Branchy(), (torch.ones(3),))


def test_torch_cond_exports_both_branches():
    program = torch.export.export(_CondBranch(), (torch.ones(3),))
    assert torch.equal(program.module()(-torch.ones(3)), -2 * torch.ones(3))


def test_jit_trace_freezes_the_branch_and_warns_that_it_is_deprecated():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(_Branchy(), (torch.ones(3),))
    kinds = {type(w.message).__name__ for w in caught}
    assert {"DeprecationWarning", "TracerWarning"} <= kinds
    # Traced on a positive input, it adds 1 to a negative one as well: the branch is frozen.
    assert torch.equal(traced(-torch.ones(3)), torch.zeros(3))


def test_jit_script_warns_that_torchscript_is_deprecated():
    with pytest.warns(DeprecationWarning, match="deprecated"):
        torch.jit.script(_Branchy())


def test_onnx_export_goes_through_dynamo_by_default():
    assert inspect.signature(torch.onnx.export).parameters["dynamo"].default is True


def test_bce_loss_clamps_its_log_at_minus_100_and_the_saturated_gradient_is_zero():
    # training.multilabel-loss
    logit = torch.tensor([30.0], requires_grad=True)
    loss = nn.BCELoss()(torch.sigmoid(logit), torch.tensor([0.0]))
    loss.backward()
    assert loss.item() == pytest.approx(100.0)
    assert logit.grad.item() == 0.0
    stable = torch.tensor([30.0], requires_grad=True)
    nn.BCEWithLogitsLoss()(stable, torch.tensor([0.0])).backward()
    assert stable.grad.item() == pytest.approx(1.0)


def test_a_layer_assigned_to_self_in_forward_registers_after_the_first_call_a_local_never():
    # training.layer-in-forward
    class OnSelf(nn.Module):
        def forward(self, x):
            self.head = nn.Linear(2, 2)
            return self.head(x)

    class Local(nn.Module):
        def forward(self, x):
            head = nn.Linear(2, 2)
            return head(x)

    on_self, local = OnSelf(), Local()
    assert len(list(on_self.parameters())) == len(list(local.parameters())) == 0
    on_self(torch.ones(1, 2))
    local(torch.ones(1, 2))
    first = on_self.head.weight
    assert len(list(on_self.parameters())) == 2 and len(list(local.parameters())) == 0
    on_self(torch.ones(1, 2))
    assert on_self.head.weight is not first  # rebuilt with fresh weights on every call


def test_optimizer_step_applies_gradients_and_computes_none():
    # backward-and-zero-grad card
    w = torch.tensor(1.0, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    opt.step()
    assert w.grad is None and w.item() == 1.0
    w.grad = torch.tensor(2.0)
    opt.step()
    assert w.item() == pytest.approx(0.8)


def test_view_needs_compatible_strides_not_contiguity():
    # tensors.view-non-contiguous
    x = torch.randn(3, 4).t()
    assert not x.is_contiguous()
    assert x.view(2, 2, 3).shape == (2, 2, 3)
    with pytest.raises(RuntimeError, match="stride"):
        x.view(12)


def test_tensor_class_reads_an_integer_as_a_shape():
    # tensors.tensor-vs-tensor-class
    assert torch.Tensor(3).shape == (3,) and torch.Tensor(3).dtype == torch.float32
    assert torch.tensor(3).shape == () and torch.tensor(3).item() == 3


def test_the_version_string_lives_in_both_places():
    # devices.version-attribute accepts both
    assert torch.version.__version__ == torch.__version__


def test_cuda_amp_spellings_are_deprecated():
    # mixed-precision card, deployment.mixed-precision-scaler
    with pytest.warns(FutureWarning, match="torch.amp"):
        torch.cuda.amp.GradScaler(enabled=False)
