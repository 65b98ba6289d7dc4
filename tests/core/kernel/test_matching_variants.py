"""Honest variants of accepted answers pass; no listed rejected answer ever does (shipped bank).

The table comes from an independent review of the text matcher: calls with arguments, units,
spacing around "=", full-width punctuation and zh-CN forms, each one a way members really
write a right answer.
"""

import pytest

from bot.core.kernel.matching import match_text
from content.loader import load_bank
from content.schema import TextItem

BANK = load_bank()
TEXT_ITEMS = sorted(q.id for q in BANK.questions.values() if isinstance(q, TextItem))

HONEST = [
    # calls with arguments, where the item asks for the function
    ("repro.manual-seed-name", "torch.manual_seed(0)"),
    ("repro.manual-seed-name", "torch.manual_seed(42)."),
    ("repro.manual-seed-name", "`torch.manual_seed(1234)`"),
    ("repro.manual-seed-name", "manual_seed(seed)"),
    ("repro.manual-seed-name", "torch.manual_seed（0）"),  # full-width parentheses
    ("autograd.retain-grad-name", "y.retain_grad()"),
    ("autograd.retain-grad-name", "retain_grad（）"),
    ("data.collate-fn-name", "pad_sequence(batch, batch_first=True)"),
    ("data.collate-fn-name", "torch.nn.utils.rnn.pad_sequence(seqs)"),
    ("devices.memory-history-name", "torch.cuda.memory._record_memory_history(max_entries=100000)"),
    ("devices.peak-reset-name", "torch.cuda.reset_peak_memory_stats(device)"),
    ("devices.peak-reset-name", "torch.cuda.reset_peak_memory_stats()。"),
    ("deploy.cond-name", "torch.cond(pred, true_fn, false_fn, (x,))"),
    ("indexing.gather-name", "torch.gather(x, 1, idx)"),
    ("indexing.gather-name", "x.gather(dim=1, index=idx)"),
    ("tensors.resize-changes-numel", "x.resize_(2, 3)"),
    ("tensors.is-contiguous-name", "x.is_contiguous()"),
    ("perf.profiler-name", "torch.profiler.profile(activities=[ProfilerActivity.CPU])"),
    ("losses.binary-logit-loss-name", "nn.BCEWithLogitsLoss(pos_weight=w)"),
    ("losses.binary-logit-loss-name", "F.binary_cross_entropy_with_logits(logits, y)"),
    ("optim.steplr-name", "StepLR(optimizer, step_size=30)"),
    ("training.regression-loss", "nn.MSELoss()"),
    ("training.regression-loss", "F.mse_loss(pred, target)"),
    ("tensors.einsum-equivalent", "torch.bmm(a, b)"),
    ("modules.kaiming-init-name", "nn.init.kaiming_normal_(w, mode='fan_out')"),
    # spaced "=" and keyword forms
    ("training.argmax-dim", "dim = 1"),
    ("training.argmax-dim", "dim= -1"),
    ("training.argmax-dim", "dim =1"),
    ("training.argmax-dim", "`dim = 1`"),
    ("deploy.dynamic-shapes-name", "dynamic_shapes ="),
    # numbers with the word that says what they count
    ("dist.global-batch", "256 samples"),
    ("dist.global-batch", "256 samples."),
    ("dist.global-batch", "256 个样本"),
    ("dist.global-batch", "256 examples"),
    ("perf.recompile-count", "2 times"),
    ("perf.recompile-count", "2 次"),
    ("perf.recompile-count", "2times"),
    ("data.loader-len-drop-last", "2 batches"),
    ("data.loader-len-drop-last", "2 个"),
    ("modules.linear-param-count", "55 values"),
    ("modules.lstm-param-count", "2560 elements"),
    ("mixed.bf16-exponent-bits", "8"),
    # units the author wrote, spaced or not, and full-width digits
    ("mixed.bf16-bytes", "2 bytes"),
    ("mixed.bf16-bytes", "２ bytes"),
    ("devices.float32-matrix-mib", "4 MiB"),
    ("devices.float32-matrix-mib", "4MiB."),
    ("training.accuracy-value", "50 %"),
    ("training.accuracy-value", "５０％"),
    # full-width punctuation and zh-CN sentence marks
    ("mixed.cpu-autocast-default", "torch.bfloat16。"),
    ("tensors.from-numpy-dtype", "「torch.float64」"),
    ("tensors.int-tensor-times-float", "torch.float32！"),
    ("deploy.quant-dtype", "torch.qint8；"),
    ("tensors.cat-shape", "（6, 3）"),
    ("tensors.cat-shape", "(6，3)"),
    ("tensors.keepdim-shape", "torch.Size（[2, 1, 4]）"),
    ("optim.warmup-first-lr", "0.02。"),
    ("autograd.second-derivative", "18。"),
]


def test_the_table_holds_at_least_fifty_variants_over_many_items():
    assert len(HONEST) >= 50
    assert len({item for item, _ in HONEST}) >= 30


@pytest.mark.parametrize(("item_id", "response"), HONEST)
def test_an_honest_variant_of_an_accepted_answer_is_right(item_id, response):
    match = match_text(BANK.question(item_id), response)
    assert match.understood and match.correct, (item_id, response, match)


@pytest.mark.parametrize("item_id", TEXT_ITEMS)
def test_no_listed_rejected_answer_is_accepted_in_any_of_these_spellings(item_id):
    item = BANK.question(item_id)
    for rejected in item.rejected:
        for spelling in (rejected, f"`{rejected}`", f"{rejected}.", f"{rejected}。",
                         f"{rejected}(x)" if rejected.isidentifier() else rejected):
            assert not match_text(item, spelling).correct, (item_id, spelling)
