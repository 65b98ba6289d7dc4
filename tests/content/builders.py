"""Small questions, cards, banks and targets for the coverage and validate tests."""

from pathlib import Path

import yaml

from content.coverage import Targets
from content.loader import Bank
from content.schema import ChoiceItem, CodeItem, ExplainCard, TextItem

TARGETS = {
    "sizes": {"questions": 3, "choice": 1, "text": 1, "code": 1, "cards": 2},
    "seeds": {"000": 3, "003": 1},
    "min_questions_per_seed": 2,
    "primary_topics": ["tensors", "autograd"],
    "difficulties": [1, 2, 3],
    "choice_options": {"min": 3, "max": 6},
    "card_words": {"min": 1, "max": 50},
    "fixtures": {"folder": "fixtures", "correct": 2, "wrong": 3},
    "cuda_challenges": 1,
}


def targets(**changes) -> Targets:
    return Targets.model_validate({**TARGETS, **changes})


def text_q(item_id, *, topics=("tensors",), difficulty=1, seeds=("000:1",), links=("card-a",),
           prompt_zh="什么？", related=()):
    return TextItem.model_validate({
        "id": item_id, "version": 1, "kind": "text", "topics": list(topics),
        "difficulty": difficulty, "seed_refs": list(seeds), "explain_links": list(links),
        "related": list(related),
        "prompt": {"en": "What?", "zh-CN": prompt_zh},
        "explanation": {"en": "Because.", "zh-CN": "因为。"}, "accepted": ["x"],
    })


def choice_q(item_id, *, options=3, why_missing_zh=(), links=("card-a",)):
    choices = []
    for i in range(options):
        key = "ABCDEF"[i]
        choice = {"key": key, "text": {"en": f"option {key}", "zh-CN": f"选项 {key}"}}
        if i == 0:
            choice["correct"] = True
        else:
            choice["why"] = {"en": "a reason", "zh-CN": " " if key in why_missing_zh else "理由"}
        choices.append(choice)
    return ChoiceItem.model_validate({
        "id": item_id, "version": 1, "kind": "choice", "topics": ["tensors"], "difficulty": 2,
        "seed_refs": ["000:1"], "explain_links": list(links),
        "prompt": {"en": "Pick", "zh-CN": "选"}, "explanation": {"en": "E", "zh-CN": "解"},
        "choices": choices,
    })


def code_q(item_id, *, requires=(), counterpart=None, solution="def f(x):\n    return x\n"):
    code = {
        "entrypoint": "f", "signature": "def f(x)", "starter": "def f(x):\n    ...\n",
        "solution": solution, "requires": list(requires),
        "tests": {"generator": "def cases(g):\n    return []\n"},
    }
    if counterpart:
        code["cpu_counterpart"] = counterpart
    return CodeItem.model_validate({
        "id": item_id, "version": 1, "kind": "code", "topics": ["tensors"], "difficulty": 3,
        "seed_refs": ["000:2"], "explain_links": ["card-a"],
        "prompt": {"en": "Write f", "zh-CN": "实现 f"},
        "explanation": {"en": "E", "zh-CN": "解"}, "code": code,
    })


def card(card_id, *, topic="tensors", see_also=(), output="ok", body_zh="正文"):
    return ExplainCard.model_validate({
        "id": card_id, "version": 1, "kind": "explain", "topic": topic, "seed_refs": ["000:1"],
        "title": {"en": "T", "zh-CN": "标题"}, "body": {"en": "Body", "zh-CN": body_zh},
        "example": "print('ok')  # fine", "expected_output": output, "see_also": list(see_also),
    })


def bank_of(*entries) -> Bank:
    return Bank(
        questions={e.id: e for e in entries if not isinstance(e, ExplainCard)},
        cards={e.id: e for e in entries if isinstance(e, ExplainCard)},
    )




def write_bank(root: Path, bank: Bank, target_values: dict | None = None) -> None:
    """Write ``bank`` as YAML files under ``root`` (and targets.yaml when given)."""
    for sub, entries in (("questions", bank.questions.values()), ("explain", bank.cards.values())):
        (root / sub).mkdir(parents=True, exist_ok=True)
        items = [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in entries]
        (root / sub / "all.yaml").write_text(
            yaml.safe_dump({"items": items}, allow_unicode=True, sort_keys=False), encoding="utf-8")
    if target_values is not None:
        (root / "targets.yaml").write_text(yaml.safe_dump(target_values), encoding="utf-8")
