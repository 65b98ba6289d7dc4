"""The glossary's pairing rules catch what a list of avoided renderings cannot."""

import pytest

from content.glossary import Term, load_glossary, missing_renderings
from content.loader import load_bank
from content.schema import ExplainCard


def card(en_body, zh_body):
    return ExplainCard.model_validate({
        "id": "card-x", "version": 1, "kind": "explain", "topic": "training",
        "seed_refs": ["000:1"],
        "title": {"en": "T", "zh-CN": "标题"}, "body": {"en": en_body, "zh-CN": zh_body},
        "example": "print(1 + 1)\n", "expected_output": "2"})


MICRO = Term.model_validate({"en": "micro-batch", "zh-CN": "微批次",
                             "required_for": ["micro-batch"]})
AUTOGRAD = Term.model_validate({"en": "autograd", "zh-CN": "自动求导", "translate": True})


def test_micro_batch_rendered_as_mini_batch_is_flagged():
    problems = missing_renderings([card("Sum over micro-batches.", "在几个小批量上求和。")],
                                  [MICRO])
    assert [p.message for p in problems] == [
        "the English says 'micro-batch'; zh-CN must render it as '微批次'"]


def test_micro_batch_rendered_as_prescribed_passes():
    assert missing_renderings([card("Sum over micro-batches.", "在几个微批次上求和。")],
                              [MICRO]) == []


def test_a_bare_english_term_in_chinese_prose_is_flagged_but_not_in_code():
    bare = card("Autograd records ops.", "autograd 会记录运算。")
    coded = card("Autograd records ops.", "自动求导会记录运算，见 `torch.autograd.grad`。")
    assert len(missing_renderings([bare], [AUTOGRAD])) == 1
    assert missing_renderings([coded], [AUTOGRAD]) == []


SHIPPED = {term.en: term for term in load_glossary() or ()}


@pytest.mark.parametrize(("term", "zh"), [
    ("buffer (module state)", "BatchNorm 的滑动统计量是 buffer。"),
    ("buffer (module state)", "参数和 buffers 都会移动。"),
    ("backward pass", "每次 backward 都会累加梯度。"),
    ("dtype", "结果的 dtype 与输入一致。"),
    ("mask", "用布尔 mask 做索引。"),
])
def test_the_shipped_glossary_flags_these_english_words_in_chinese_prose(term, zh):
    problems = missing_renderings([card("English text.", zh)], [SHIPPED[term]])
    assert len(problems) == 1
    assert SHIPPED[term].zh_CN in problems[0].message


@pytest.mark.parametrize("zh", [
    "缓冲区用 `register_buffer` 注册。",
    "调用 `loss.backward()` 做反向传播。",
    "`torch.tensor(1, dtype=torch.int8)` 的数据类型是 int8。",
    "写成 `x[mask]`，或者调用 `masked_fill`。",
    "backward()、zero_grad() 与 step()",  # a call written bare is code, not a prose word
])
def test_api_names_in_code_font_or_called_are_not_flagged(zh):
    terms = [SHIPPED[t] for t in ("buffer (module state)", "backward pass", "dtype", "mask")]
    assert missing_renderings([card("English text.", zh)], terms) == []


def test_the_shipped_bank_leaves_none_of_these_words_untranslated():
    terms = [SHIPPED[t] for t in ("buffer (module state)", "backward pass", "dtype", "mask")]
    assert missing_renderings(list(load_bank().all_entries()), terms) == []
