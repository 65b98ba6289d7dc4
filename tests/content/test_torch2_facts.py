"""The PyTorch 2.x facts the new items' answer keys rest on, run on the installed torch.

If an upgrade changes one of these, the item named in the comment must change with it
(content/questions/*-pytorch2.yaml and *-foundations.yaml).
"""

import argparse
import io
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn


def _reload(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer)


def test_recompile_limit_is_eight_and_later_lengths_run_eagerly():
    # perf.recompile-limit-fallback
    assert torch._dynamo.config.recompile_limit == 8
    torch._dynamo.reset()
    graphs = []

    def counting(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(lambda x: x * 2, backend=counting, dynamic=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = [compiled(torch.ones(n)) for n in range(1, 14)]
    assert len(graphs) == 8
    assert all(torch.equal(r, torch.full((n,), 2.0)) for n, r in enumerate(results, start=1))
    torch._dynamo.reset()


def test_a_compiled_module_prefixes_its_state_dict_and_strict_false_loads_nothing():
    # modules.compiled-state-dict-prefix
    compiled = torch.compile(nn.Linear(2, 2))
    assert list(compiled.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    plain = nn.Linear(2, 2)
    before = plain.weight.detach().clone()
    result = plain.load_state_dict(compiled.state_dict(), strict=False)
    assert result.missing_keys == ["weight", "bias"]
    assert torch.equal(plain.weight, before)
    in_place = nn.Linear(2, 2)
    in_place.compile()
    assert list(in_place.state_dict()) == ["weight", "bias"]


def test_float32_matmul_precision_defaults_to_highest():
    # perf.matmul-precision-default, perf.matmul-precision-high
    assert torch.get_float32_matmul_precision() == "highest"


def test_a_channels_last_operand_makes_the_convolution_output_channels_last():
    # perf.channels-last-conv-output
    conv = nn.Conv2d(3, 4, 3)
    y = conv(torch.randn(2, 3, 8, 8).to(memory_format=torch.channels_last))
    assert y.is_contiguous(memory_format=torch.channels_last) and y.shape == (2, 4, 6, 6)
    z = conv.to(memory_format=torch.channels_last)(torch.randn(2, 3, 8, 8))
    assert z.is_contiguous(memory_format=torch.channels_last)


def test_gqa_groups_consecutive_query_heads_and_needs_the_flag():
    # modules.sdpa-gqa-heads
    q, k, v = torch.randn(1, 8, 4, 16), torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16)
    out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    grouped = F.scaled_dot_product_attention(q, k.repeat_interleave(4, dim=1),
                                             v.repeat_interleave(4, dim=1))
    assert torch.allclose(out, grouped, atol=1e-6)
    with pytest.raises(RuntimeError):
        F.scaled_dot_product_attention(q, k, v)


def test_eager_flex_attention_is_right_and_warns_to_compile():
    # modules.flex-attention-eager
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    q = torch.randn(1, 2, 8, 16)
    mask = create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, 8, 8, device="cpu")
    with pytest.warns(UserWarning, match="without torch.compile"):
        out = flex_attention(q, q, q, block_mask=mask)
    assert torch.allclose(out, F.scaled_dot_product_attention(q, q, q, is_causal=True),
                          atol=1e-5)


def test_func_grad_returns_the_gradient_and_leaves_dot_grad_alone():
    # autograd.func-grad-vs-backward
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    g = torch.func.grad(lambda w, x: (w * x).sum())(w, torch.tensor([3.0, 4.0]))
    assert torch.equal(g, torch.tensor([3.0, 4.0])) and w.grad is None


def test_vmap_refuses_random_calls_unless_told_how():
    # autograd.vmap-randomness
    def noisy(x):
        return x + torch.rand(())

    with pytest.raises(RuntimeError, match="randomness"):
        torch.func.vmap(noisy)(torch.zeros(3))
    same = torch.func.vmap(noisy, randomness="same")(torch.zeros(3))
    assert torch.all(same == same[0])


def test_func_shapes_of_jacrev_hessian_and_vmap_with_in_dims():
    # autograd.jacrev-shape, autograd.hessian-shape, autograd.vmap-in-dims-shape
    assert torch.func.jacrev(lambda x: x[:2] * 2)(torch.ones(3)).shape == (2, 3)
    assert torch.func.hessian(lambda x: (x ** 3).sum())(torch.ones(4)).shape == (4, 4)
    a, v = torch.randn(5, 3), torch.randn(3)
    assert torch.func.vmap(torch.dot, in_dims=(0, None))(a, v).shape == (5,)


def test_a_function_needs_setup_context_under_func_transforms():
    # autograd.setup-context-transforms
    class Combined(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class Split(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    with pytest.raises(RuntimeError, match="setup_context"):
        torch.func.grad(lambda x: Combined.apply(x).sum())(torch.tensor([3.0]))
    assert torch.func.grad(lambda x: Split.apply(x).sum())(torch.tensor([3.0])).item() == 6.0


def test_a_custom_op_needs_a_fake_to_compile_and_a_formula_to_backpropagate():
    # perf.custom-op-fake, perf.custom-op-mutates-args, autograd.custom-op-register-autograd
    with pytest.raises(TypeError, match="mutates_args"):
        torch.library.custom_op("bank25facts::nomut")(lambda x: x.clone())

    @torch.library.custom_op("bank25facts::scale", mutates_args=())
    def scale(x: torch.Tensor, k: float) -> torch.Tensor:
        return x * k

    torch._dynamo.reset()
    with pytest.raises(Exception, match="fake"):
        torch.compile(lambda x: scale(x, 2.0), backend="aot_eager", fullgraph=True)(torch.ones(2))
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="register_autograd"):
        scale(x, 2.0).sum().backward()

    @scale.register_fake
    def _(x, k):
        return torch.empty_like(x)

    torch._dynamo.reset()
    compiled = torch.compile(lambda x: scale(x, 2.0), backend="aot_eager", fullgraph=True)
    assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 2.0))
    torch._dynamo.reset()


def test_weights_only_loading_takes_plain_checkpoints_and_refuses_other_classes():
    # deploy.weights-only-checkpoint, deploy.add-safe-globals-name
    model = nn.Linear(2, 2)
    assert set(_reload({"step": 1000, "model": model.state_dict()})) == {"step", "model"}
    for refused in ({"args": argparse.Namespace(lr=0.1)}, {"mean": np.zeros(3)}, model):
        with pytest.raises(Exception, match="Weights only load failed"):
            _reload(refused)
    with torch.serialization.safe_globals([argparse.Namespace]):
        assert _reload({"args": argparse.Namespace(lr=0.1)})["args"].lr == 0.1


def test_an_exported_module_cannot_switch_mode_and_the_program_is_not_callable():
    # deploy.export-module-eval, deploy.export-module-method
    model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    x = torch.ones(2, 3)
    program = torch.export.export(model.train(), (x,))
    with pytest.raises(RuntimeError, match=r"module\(\)"):
        program(x)
    with pytest.raises(NotImplementedError):
        program.module().eval()
    served = torch.export.export(model.eval(), (x,)).module()
    assert torch.equal(served(x), served(x))


def test_cpu_autocast_lowers_matmul_and_leaves_addition_alone():
    # mixed.autocast-elementwise-dtype
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert (x @ y).dtype == torch.bfloat16
        assert (x + y).dtype == torch.float32


def test_float16_loses_1e_8_bfloat16_keeps_it_and_the_scaler_starts_at_65536():
    # mixed.fp16-underflow-value, mixed.grad-scaler-init-scale
    assert torch.tensor(1e-8).half().item() == 0.0
    assert torch.tensor(1e-8).bfloat16().item() == pytest.approx(1e-8, rel=1e-2)
    assert torch.amp.GradScaler("cpu").get_scale() == 65536.0


def test_checkpoint_without_use_reentrant_warns_and_recommends_false():
    # perf.checkpoint-use-reentrant-value
    with pytest.warns(UserWarning, match="use_reentrant=False is recom"):
        torch.utils.checkpoint.checkpoint(nn.Linear(2, 2), torch.ones(1, 2, requires_grad=True))


def test_deterministic_mode_fills_empty_tensors_and_can_warn_only():
    # repro.deterministic-empty, repro.warn-only-name
    try:
        torch.use_deterministic_algorithms(True, warn_only=True)
        assert torch.isnan(torch.empty(3)).all()
        assert torch.equal(torch.empty(2, dtype=torch.int64),
                           torch.full((2,), torch.iinfo(torch.int64).max))
    finally:
        torch.use_deterministic_algorithms(False)


def test_meta_modules_refuse_to_and_load_with_assign():
    # devices.meta-module-to-cpu, devices.to-empty-name, modules.load-state-dict-assign
    with torch.device("meta"):
        model = nn.Linear(2, 2)
    with pytest.raises(NotImplementedError, match="to_empty"):
        model.to("cpu")
    source = nn.Linear(2, 2)
    with pytest.warns(UserWarning, match="assign=True"):
        model.load_state_dict(source.state_dict())
    assert model.weight.is_meta
    model.load_state_dict(source.state_dict(), assign=True)
    assert isinstance(model.weight, nn.Parameter) and torch.equal(model.weight, source.weight)
    with torch.device("meta"):
        empty = nn.Linear(2, 2)
    assert empty.to_empty(device="cpu").weight.device.type == "cpu"


def test_jagged_nested_tensors_pack_rows_behind_offsets():
    # tensors.jagged-offsets
    nt = torch.nested.nested_tensor([torch.randn(3, 8), torch.randn(5, 8)],
                                    layout=torch.jagged)
    assert nt.offsets().tolist() == [0, 3, 8]
    assert nt.values().shape == (8, 8) and nt.to_padded_tensor(0.0).shape == (2, 5, 8)


def test_a_map_dataset_without_len_cannot_be_loaded():
    # data.map-dataset-contract
    class NoLen(torch.utils.data.Dataset):
        def __getitem__(self, i):
            return i

    with pytest.raises(TypeError, match="len"):
        next(iter(torch.utils.data.DataLoader(NoLen(), batch_size=2)))


def test_no_grad_and_detach_both_give_no_grad_but_detach_shares_the_data():
    # autograd.no-grad-vs-detach-validation
    layer = nn.Linear(2, 2)
    with torch.no_grad():
        quiet = layer(torch.ones(1, 2))
    assert not quiet.requires_grad and quiet.grad_fn is None
    out = layer(torch.ones(1, 2))
    cut = out.detach()
    assert not cut.requires_grad and cut.data_ptr() == out.data_ptr()


def test_assigning_a_layer_before_super_init_raises():
    # modules.missing-super-init
    class Broken(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(4, 2)

    with pytest.raises(AttributeError, match=r"before Module\.__init__"):
        Broken()


def test_the_onnx_exporter_takes_dynamic_shapes_and_custom_translations():
    # deploy.onnx-dynamic-shapes-kwarg, deploy.onnx-unsupported-op
    import inspect

    parameters = inspect.signature(torch.onnx.export).parameters
    assert {"dynamic_shapes", "custom_translation_table", "dynamic_axes"} <= set(parameters)
    assert parameters["dynamo"].default is True
