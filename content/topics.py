"""Topic names that were merged into another: old name to the name the bank uses now.

Topics are read from the bank when a question is drawn or counted, so merging two spellings
changes no item's id or version (what an item asks is unchanged). Only what a channel stored
or an admin types can still name an old topic: ``current_topic`` reads it as the new one.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path

import yaml

TOPIC_NAMES_FILE = Path(__file__).with_name("topic_names.yaml")

RENAMED: dict[str, str] = {
    "accuracy-metrics": "accuracy",
    "cuda-sync-timing": "cuda-sync",
    "custom-autograd-function": "custom-function",
    "freezing-layers": "freezing",
    "in-place": "in-place-ops",
    "lr-warmup": "warmup",
    "masks": "masking",
    "memory-leak": "memory-leaks",
    "multilabel": "multilabel-classification",
    "reductions": "reduction",
}


def current_topic(name: str) -> str:
    """Return the name the bank uses for ``name`` (itself unless it was merged away)."""
    return RENAMED.get(name, name)


def current_topics(names: Iterable[str]) -> tuple[str, ...]:
    """Return ``names`` under their current names, each once, sorted."""
    return tuple(sorted({current_topic(name) for name in names}))


# Words that qualify a topic without naming another concept ("lr-warmup" is "warmup",
# "in-place-ops" is "in-place"): left out when two topic names are compared.
_QUALIFIERS = frozenset({"ops", "op", "lr", "layers", "metrics", "classification", "timing",
                         "autograd"})


def topic_stem(name: str) -> str:
    """Return what two spellings of one topic share: no qualifier, no plural, no "-ing".

    ``memory-leak`` and ``memory-leaks``, ``masks`` and ``masking``, ``warmup`` and
    ``lr-warmup`` all have one stem; the content tests refuse a bank with two such topics.
    """
    words = [w for w in name.split("-") if w not in _QUALIFIERS] or name.split("-")
    stems = []
    for word in words:
        for suffix in ("ing", "s"):
            if word.endswith(suffix) and not word.endswith("ss") and len(word) > len(suffix) + 2:
                word = word[: -len(suffix)]
                break
        stems.append(word)
    return "".join(stems)


@cache
def _chinese_names() -> dict[str, str]:
    names = yaml.safe_load(TOPIC_NAMES_FILE.read_text(encoding="utf-8")) or {}
    return {str(topic): str(name) for topic, name in names.items()}


def chinese_topic_names() -> dict[str, str]:
    """Return every named topic's Chinese name (a copy: the table itself is shared)."""
    return dict(_chinese_names())


def topic_label(topic: str, locale: str) -> str:
    """Return how ``locale`` names ``topic``: its Chinese name in zh-CN, else its id.

    The id is what members type (``/quiz autograd``), so English shows the id itself; a team
    pack's own topics have no Chinese name and show their id in both languages.
    """
    if locale == "zh-CN":
        return _chinese_names().get(current_topic(topic), topic)
    return topic


def topic_labels(topics: Iterable[str], locale: str) -> str:
    """Return ``topics`` named for ``locale``, joined as a list in that language."""
    return ("、" if locale == "zh-CN" else ", ").join(topic_label(t, locale) for t in topics)


@cache
def _ids_by_chinese_name() -> dict[str, str]:
    return {name.casefold(): topic for topic, name in _chinese_names().items()}


def topic_from_name(text: str) -> str:
    """Return the topic id a member meant: a Chinese name reads as its id, anything else as is."""
    return _ids_by_chinese_name().get(text.strip().casefold(), text)
