"""The glossary's pairing rules catch what a list of avoided renderings cannot."""

from content.glossary import Term, missing_renderings
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
