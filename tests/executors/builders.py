"""Build small code challenges for executor tests: the item envelope is the same everywhere."""

from __future__ import annotations

from typing import Any

from content.schema import CodeItem


def code_item(code: dict[str, Any], item_id: str = "code.test-challenge",
              **changes: Any) -> CodeItem:
    """Return a validated code item around ``code`` (a CodeSpec as a dict)."""
    return CodeItem.model_validate({
        "id": item_id,
        "version": 1,
        "kind": "code",
        "topics": ["tensors"],
        "difficulty": 1,
        "seed_refs": ["000:1"],
        "prompt": {"en": "p", "zh-CN": "p"},
        "explanation": {"en": "e", "zh-CN": "e"},
        "code": code,
        **changes,
    })
