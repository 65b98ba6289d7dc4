"""Every topic of the bank has a Chinese name: a zh-CN channel reads no English topic ids."""

import re

from content.loader import Bank
from content.topics import (
    RENAMED,
    chinese_topic_names,
    topic_from_name,
    topic_label,
    topic_labels,
)

_CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_topic_of_the_bank_has_a_chinese_name_and_no_name_is_stale(bank: Bank):
    used = {topic for item in bank.questions.values() for topic in item.topics}
    named = set(chinese_topic_names())
    assert sorted(used - named) == [], "topics without a Chinese name in content/topic_names.yaml"
    assert sorted(named - used) == [], "names of topics the bank no longer has"


def test_chinese_topic_names_are_chinese_and_tell_topics_apart():
    names = chinese_topic_names()
    assert [t for t, name in names.items() if not _CJK.search(name)] == []
    assert len(set(names.values())) == len(names)


def test_english_shows_the_id_a_member_types_and_chinese_its_name():
    assert topic_label("autograd", "en") == "autograd"
    assert topic_label("autograd", "zh-CN") == "自动求导"
    assert topic_labels(["autograd", "tensors"], "zh-CN") == "自动求导、张量"
    assert topic_labels(["autograd", "tensors"], "en") == "autograd, tensors"


def test_a_merged_topic_reads_as_the_name_of_the_one_it_became():
    old, new = next(iter(RENAMED.items()))
    assert topic_label(old, "zh-CN") == topic_label(new, "zh-CN")


def test_a_pack_topic_without_a_name_shows_its_id_in_both_languages():
    assert topic_label("prefix-sum", "zh-CN") == "prefix-sum"


def test_a_chinese_name_typed_by_a_member_reads_as_its_id():
    assert topic_from_name(" 自动求导 ") == "autograd"
    assert topic_from_name("autograd") == "autograd"
    assert topic_from_name("未知") == "未知"
